/* The glue compiled into every loaded copy of lwIP (libm2lwip.so): lwIP's
 * clock and network interface, wired to the host that loaded the copy
 * through pointers that live in the copy (so each copy talks to its own
 * host), and the function table the simulator calls (lwip_stack_api.h).
 * Everything else in the copy is hidden: only m2lwip_get_api is exported. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwip/init.h"
#include "lwip/ip.h"
#include "lwip/ip4.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/sys.h"
#include "lwip/tcp.h"
#include "lwip/timeouts.h"
#include "lwip_stack_api.h"

/* This copy's host: set once by init. */
static void* g_host;
static m2lwip_now_fn g_now;
static m2lwip_output_fn g_output;
static struct netif g_netif;

int m2lwip_diag(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  fputs("lwip: ", stderr);
  const int n = vfprintf(stderr, format, ap);
  va_end(ap);
  return n;
}

u32_t sys_now(void) { return g_now ? g_now(g_host) : 0; }

/* The netif's output: the packet as one buffer to the host, which maps the
 * destination address to a node (no ARP). */
static err_t netif_output_packet(struct netif* netif, struct pbuf* p, const ip4_addr_t* dst) {
  (void)netif;
  uint8_t* buf = (uint8_t*)malloc(p->tot_len);
  if (!buf) return ERR_MEM;
  pbuf_copy_partial(p, buf, p->tot_len, 0);
  g_output(g_host, lwip_ntohl(ip4_addr_get_u32(dst)), buf, p->tot_len);
  free(buf);
  return ERR_OK;
}

static err_t netif_setup(struct netif* netif) {
  netif->name[0] = 'm';
  netif->name[1] = '2';
  netif->output = netif_output_packet;
  netif->flags = NETIF_FLAG_UP | NETIF_FLAG_LINK_UP;
  return ERR_OK;
}

static void init(uint32_t ip, uint16_t mtu, void* host, m2lwip_now_fn now, m2lwip_output_fn output) {
  g_host = host;
  g_now = now;
  g_output = output;
  lwip_init();
  ip4_addr_t addr, mask, gw;
  ip4_addr_set_u32(&addr, lwip_htonl(ip));
  ip4_addr_set_u32(&mask, lwip_htonl(0xFF000000u)); /* 10.0.0.0/8: every node on link */
  ip4_addr_set_u32(&gw, 0);
  netif_add(&g_netif, &addr, &mask, &gw, NULL, netif_setup, ip_input);
  g_netif.mtu = mtu;
  netif_set_default(&g_netif);
  netif_set_up(&g_netif);
  netif_set_link_up(&g_netif);
}

static void input(const uint8_t* packet, size_t len) {
  struct pbuf* p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_RAM);
  if (!p) return; /* out of memory: dropped, as a NIC would */
  pbuf_take(p, packet, (u16_t)len);
  if (g_netif.input(p, &g_netif) != ERR_OK) pbuf_free(p);
}

static void check_timeouts(void) { sys_check_timeouts(); }
static uint32_t sleep_ms(void) { return sys_timeouts_sleeptime(); }

static void abandon_all(void) {
  while (tcp_active_pcbs) tcp_abandon(tcp_active_pcbs, 0);
  while (tcp_tw_pcbs) tcp_abandon(tcp_tw_pcbs, 0);
  while (tcp_listen_pcbs.pcbs) tcp_close(tcp_listen_pcbs.pcbs);
  while (tcp_bound_pcbs) tcp_close(tcp_bound_pcbs);
}

static void arg_(struct tcp_pcb* pcb, void* arg) { tcp_arg(pcb, arg); }
static void recv_(struct tcp_pcb* pcb, m2lwip_recv_fn f) { tcp_recv(pcb, (tcp_recv_fn)f); }
static void sent_(struct tcp_pcb* pcb, m2lwip_sent_fn f) { tcp_sent(pcb, (tcp_sent_fn)f); }
static void err_(struct tcp_pcb* pcb, m2lwip_err_fn f) { tcp_err(pcb, (tcp_err_fn)f); }
static void accept_(struct tcp_pcb* pcb, m2lwip_accept_fn f) { tcp_accept(pcb, (tcp_accept_fn)f); }

static int8_t bind_(struct tcp_pcb* pcb, uint32_t ip, uint16_t port) {
  ip_addr_t a;
  ip_addr_set_ip4_u32(&a, lwip_htonl(ip));
  return tcp_bind(pcb, &a, port);
}

static struct tcp_pcb* listen_(struct tcp_pcb* pcb, uint8_t backlog, int8_t* err) {
  err_t e = ERR_OK;
  struct tcp_pcb* l = tcp_listen_with_backlog_and_err(pcb, backlog, &e);
  *err = e;
  return l;
}

static int8_t connect_(struct tcp_pcb* pcb, uint32_t ip, uint16_t port, m2lwip_connected_fn f) {
  ip_addr_t a;
  ip_addr_set_ip4_u32(&a, lwip_htonl(ip));
  return tcp_connect(pcb, &a, port, (tcp_connected_fn)f);
}

static int8_t write_(struct tcp_pcb* pcb, const void* data, uint16_t len, uint8_t more) {
  return tcp_write(pcb, data, len, TCP_WRITE_FLAG_COPY | (more ? TCP_WRITE_FLAG_MORE : 0));
}

static uint32_t sndbuf_(const struct tcp_pcb* pcb) { return tcp_sndbuf(pcb); }
static uint32_t sndqueuelen_(const struct tcp_pcb* pcb) { return tcp_sndqueuelen(pcb); }

static void nodelay_(struct tcp_pcb* pcb, int on) {
  if (on) tcp_nagle_disable(pcb);
  else tcp_nagle_enable(pcb);
}

static void keepalive_(struct tcp_pcb* pcb, int on) {
  if (on) ip_set_option(pcb, SOF_KEEPALIVE);
  else ip_reset_option(pcb, SOF_KEEPALIVE);
}

static void reuseaddr_(struct tcp_pcb* pcb, int on) {
  if (on) ip_set_option(pcb, SOF_REUSEADDR);
  else ip_reset_option(pcb, SOF_REUSEADDR);
}

static void addr_(const struct tcp_pcb* pcb, int local, uint32_t* ip, uint16_t* port) {
  const ip_addr_t* a = local ? &pcb->local_ip : &pcb->remote_ip;
  *ip = lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(a)));
  *port = local ? pcb->local_port : pcb->remote_port;
}

static size_t pbuf_len_(const struct pbuf* p) { return p->tot_len; }
static size_t pbuf_copy_(const struct pbuf* p, void* out, size_t len, size_t offset) {
  return pbuf_copy_partial(p, out, (u16_t)len, (u16_t)offset);
}
static void pbuf_free_(struct pbuf* p) { pbuf_free(p); }

static const struct m2lwip_api g_api = {
    TCP_MSS,      TCP_SND_BUF, TCP_SND_QUEUELEN,
    init,         input,       check_timeouts,
    sleep_ms,     abandon_all, tcp_new,
    arg_,         recv_,       sent_,
    err_,         accept_,     bind_,
    listen_,      connect_,    write_,
    tcp_output,   tcp_recved,  tcp_close,
    tcp_shutdown, tcp_abort,   sndbuf_,
    sndqueuelen_, nodelay_,    keepalive_,
    reuseaddr_,   addr_,       pbuf_len_,
    pbuf_copy_,   pbuf_free_,
};

__attribute__((visibility("default"))) const struct m2lwip_api* m2lwip_get_api(void) { return &g_api; }
