/* What one loaded copy of the lwIP library (libm2lwip.so) offers the
 * simulator: a table of functions, the only symbol the copy exports
 * (m2lwip_get_api). Each copy keeps lwIP's globals of its own, so each host
 * loads its own copy (lwip_library.h). Plain C: the glue in the copy fills
 * it, the C++ socket layer calls it. Addresses and ports in host byte order;
 * error values are lwIP's err_t (0: ERR_OK, negative: an error). */
#ifndef M2_LWIP_STACK_API_H
#define M2_LWIP_STACK_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tcp_pcb;
struct pbuf;

/* lwIP's err_t values the socket layer tells apart (lwip/err.h). */
enum {
  M2LWIP_OK = 0,
  M2LWIP_ERR_MEM = -1,
  M2LWIP_ERR_USE = -8,
  M2LWIP_ERR_ABRT = -13,
  M2LWIP_ERR_RST = -14,
  M2LWIP_ERR_CLSD = -15,
};

/* What a copy calls back into its host: the simulated time in milliseconds
 * (lwIP's sys_now) and the netif's output of one IP packet. */
typedef uint32_t (*m2lwip_now_fn)(void* host);
typedef void (*m2lwip_output_fn)(void* host, uint32_t dst_ip, const uint8_t* packet, size_t len);

typedef int8_t (*m2lwip_recv_fn)(void* arg, struct tcp_pcb* pcb, struct pbuf* p, int8_t err);
typedef int8_t (*m2lwip_sent_fn)(void* arg, struct tcp_pcb* pcb, uint16_t len);
typedef void (*m2lwip_err_fn)(void* arg, int8_t err);
typedef int8_t (*m2lwip_accept_fn)(void* arg, struct tcp_pcb* newpcb, int8_t err);
typedef int8_t (*m2lwip_connected_fn)(void* arg, struct tcp_pcb* pcb, int8_t err);

struct m2lwip_api {
  /* The copy's build options (lwipopts.h) the socket layer needs. */
  uint32_t tcp_mss, tcp_snd_buf, tcp_snd_queuelen;

  /* Initialises the stack with this host's address and MTU and the hooks
   * into the host; call once, first. */
  void (*init)(uint32_t ip, uint16_t mtu, void* host, m2lwip_now_fn now, m2lwip_output_fn output);
  /* One IP packet from the network (copied). */
  void (*input)(const uint8_t* packet, size_t len);
  /* Runs the timeouts that are due; milliseconds to the next one
   * (UINT32_MAX: none). */
  void (*check_timeouts)(void);
  uint32_t (*sleep_ms)(void);
  /* Aborts every connection without telling the peers (the host goes away). */
  void (*abandon_all)(void);

  struct tcp_pcb* (*tcp_new)(void);
  void (*tcp_arg)(struct tcp_pcb* pcb, void* arg);
  void (*tcp_recv)(struct tcp_pcb* pcb, m2lwip_recv_fn recv);
  void (*tcp_sent)(struct tcp_pcb* pcb, m2lwip_sent_fn sent);
  void (*tcp_err)(struct tcp_pcb* pcb, m2lwip_err_fn err);
  void (*tcp_accept)(struct tcp_pcb* pcb, m2lwip_accept_fn accept);
  int8_t (*tcp_bind)(struct tcp_pcb* pcb, uint32_t ip, uint16_t port);
  /* The listening pcb replaces `pcb` (freed); NULL when out of memory or
   * the port is in use (*err says which). */
  struct tcp_pcb* (*tcp_listen)(struct tcp_pcb* pcb, uint8_t backlog, int8_t* err);
  int8_t (*tcp_connect)(struct tcp_pcb* pcb, uint32_t ip, uint16_t port, m2lwip_connected_fn connected);
  int8_t (*tcp_write)(struct tcp_pcb* pcb, const void* data, uint16_t len, uint8_t more);
  int8_t (*tcp_output)(struct tcp_pcb* pcb);
  void (*tcp_recved)(struct tcp_pcb* pcb, uint16_t len);
  int8_t (*tcp_close)(struct tcp_pcb* pcb);
  int8_t (*tcp_shutdown)(struct tcp_pcb* pcb, int shut_rx, int shut_tx);
  void (*tcp_abort)(struct tcp_pcb* pcb);
  uint32_t (*tcp_sndbuf)(const struct tcp_pcb* pcb);
  uint32_t (*tcp_sndqueuelen)(const struct tcp_pcb* pcb);
  void (*tcp_nodelay)(struct tcp_pcb* pcb, int on);
  void (*tcp_keepalive)(struct tcp_pcb* pcb, int on);
  void (*tcp_reuseaddr)(struct tcp_pcb* pcb, int on);
  /* Local or remote address of a pcb. */
  void (*tcp_addr)(const struct tcp_pcb* pcb, int local, uint32_t* ip, uint16_t* port);

  /* A received chain: its total length, copy out, free. */
  size_t (*pbuf_len)(const struct pbuf* p);
  size_t (*pbuf_copy)(const struct pbuf* p, void* out, size_t len, size_t offset);
  void (*pbuf_free)(struct pbuf* p);
};

const struct m2lwip_api* m2lwip_get_api(void);

#ifdef __cplusplus
}
#endif

#endif
