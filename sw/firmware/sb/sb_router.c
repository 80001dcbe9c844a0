/* Switch-box routing firmware: takes each message header the analyzers put
 * in the header buffer, looks up where the message goes in the routing tables
 * the simulator wrote into SDRAM (ip/sb_routes.h), and pushes a switching
 * request for it (ip/sb_regs.h). A message it cannot route is discarded (a
 * request that consumes it), counted and reported on the console, so an
 * unknown destination never blocks its channel.
 *
 * The request buffer keeps a free entry for every source channel with no
 * request in it (SB_SRC_QUEUED; a request already fetched into a reservation
 * station does not count: that channel's next message needs an entry too): a
 * second request of a queued channel is pushed only when that leaves enough
 * room, else it waits here, in SDRAM, per source channel. So the buffer never
 * fills with requests that can only wait behind another of their channel, and
 * a message arriving from a cascade link always finds room for its request
 * (deadlock avoidance, docs/models/switchbox.md). The header buffer keeps
 * being drained meanwhile. Runs forever; dozes while there is nothing to do. */
#include <mlx.h>
#include <ni_memory_map.h>
#include <sb_memory_map.h>
#include <sb_regs.h>
#include <sb_routes.h>

#include "fw.h"
#include "mmio.h"

/* fwcommon drives the console and simctrl at the NI's addresses. */
_Static_assert(SB_CONSOLE_BASE == NI_CONSOLE_BASE, "console address differs from the NI's");
_Static_assert(SB_SIMCTRL_BASE == NI_SIMCTRL_BASE, "simctrl address differs from the NI's");

/* fw_result indices (end-of-run report and stats.tsv). */
#define RESULT_ROUTED 0
#define RESULT_DROPPED 1
FW_RESULT_NAMES("messages routed,messages dropped");

static uint32_t reg(uint32_t off) { return mmio_read32(SB_SWITCH_BASE + off); }
static void set_reg(uint32_t off, uint32_t v) { mmio_write32(SB_SWITCH_BASE + off, v); }

static uint32_t table32(uint32_t off) { return *(volatile const uint32_t *)(uintptr_t)(SB_ROUTES_BASE + off); }

static uint8_t table8(uint32_t off) { return *(volatile const uint8_t *)(uintptr_t)(SB_ROUTES_BASE + off); }

static unsigned g_ports;
static uint32_t g_routed, g_dropped;

/* Requests waiting for their source channel's previous one, per source
 * channel (index SB_SRC_BIT's shift), oldest first. */
#define SOURCES (2u * SB_MAX_PORTS)
#define PENDING_DEPTH 64u
struct pending {
  uint32_t mask, bytes, flags;
};
/* In .data (loaded with the image), not .bss: crt0 zeroing 24 KB would delay
 * the router's start by ~80 us of simulated time. Entries are written before
 * they are read, so their initial value does not matter. */
static struct pending g_pending[SOURCES][PENDING_DEPTH] __attribute__((section(".data.sb_pending")));
static unsigned g_first[SOURCES], g_count[SOURCES];
static uint32_t g_waiting; /* source bits with requests in g_pending */
static uint32_t g_watch;   /* SB_SRC_WATCH as last written */
static int g_no_space;     /* a push found the request buffer full */
static uint32_t g_sources; /* source channels: 2 per port */

/* The interrupt only ends a doze: silence it here, main() enables it again
 * before the next one. */
void fw_external_interrupt(void) { set_reg(SB_IRQ_ENABLE, 0); }

/* Dozes until `cond` (SB_IRQ_*) holds. */
static void wait_for(uint32_t cond) {
  const uint32_t saved = irq_disable();
  while (!(reg(SB_IRQ_STATUS) & cond)) {
    set_reg(SB_IRQ_ENABLE, cond);
    cpu_idle();
  }
  set_reg(SB_IRQ_ENABLE, 0);
  irq_restore(saved);
}

static int tables_valid(void) {
  return table32(SB_ROUTES_MAGIC_OFF) == SB_ROUTES_MAGIC && table32(SB_ROUTES_VERSION_OFF) == SB_ROUTES_VERSION;
}

/* Output port mask for a message from port `in`; 0 = no route. */
static uint32_t route(unsigned in, uint32_t w0, uint32_t w1) {
  const unsigned dst = MLX_HDR_DST(w0);
  const uint32_t others = ~(1u << in);
  if (!tables_valid()) return 0;
  switch (MLX_HDR_TYPE(w1)) {
    case MLX_TYPE_UNICAST: {
      const unsigned port = table8(SB_ROUTES_UNICAST_OFF(dst));
      return port != 0 && port <= g_ports ? 1u << (port - 1) : 0;
    }
    case MLX_TYPE_BROADCAST:
      return table32(SB_ROUTES_BCAST_OFF(in)) & others;
    case MLX_TYPE_MULTICAST: {
      const unsigned groups = table32(SB_ROUTES_GROUPS_OFF);
      for (unsigned g = 0; g < groups && g < SB_ROUTES_MAX_GROUPS; g++)
        if (table32(SB_ROUTES_MCAST_OFF(g) + SB_ROUTES_MCAST_GROUP) == dst)
          return table32(SB_ROUTES_MCAST_OFF(g) + SB_ROUTES_MCAST_MASK(in)) & others;
      return 0;
    }
    default:
      return 0;
  }
}

static unsigned source_index(uint32_t source) {
  return (SB_SOURCE_PORT(source) << 1) + (SB_SOURCE_CHANNEL(source) & 1u);
}

/* Pushes a request into the hardware (checked by may_push). */
static void push(unsigned i, const struct pending *p) {
  set_reg(SB_REQ_SOURCE, SB_SOURCE(i >> 1, i & 1u));
  set_reg(SB_REQ_DEST, p->mask);
  set_reg(SB_REQ_BYTES, p->bytes);
  set_reg(SB_REQ_PUSH, p->flags);
}

static unsigned ones(uint32_t v) {
  unsigned n = 0;
  for (; v != 0; v &= v - 1) n++;
  return n;
}

/* May a request of source bit `bit` enter the request buffer now? A source
 * channel with no request in the buffer always may (its entry is reserved);
 * one that has a request there only while every source channel without one
 * still finds a free entry after it (so the buffer never fills with requests
 * that wait behind others). Channels whose request is in a station count as
 * without one: when it completes, their next message needs an entry, and the
 * buffer gains none then (counting them as busy let two boxes of a 32- to
 * 64-node chain fill their buffers and starve a cascade link's channels). */
static int may_push(uint32_t bit, uint32_t queued, uint32_t free) {
  if (free == 0) {
    g_no_space = 1;
    return 0;
  }
  if (!(queued & bit)) return 1;
  const uint32_t all = g_sources >= 32 ? ~0u : (1u << g_sources) - 1u;
  return free > ones(all & ~queued);
}

/* Pushes the oldest waiting request of every source channel that may. */
static void push_waiting(void) {
  if (g_waiting == 0) return;
  uint32_t queued = reg(SB_SRC_QUEUED), free = reg(SB_REQ_FREE);
  for (unsigned i = 0; i < SOURCES; i++) {
    const uint32_t bit = 1u << i;
    if (!(g_waiting & bit) || !may_push(bit, queued, free)) continue;
    push(i, &g_pending[i][g_first[i]]);
    queued |= bit;
    free--;
    g_first[i] = (g_first[i] + 1) % PENDING_DEPTH;
    if (--g_count[i] == 0) g_waiting &= ~bit;
  }
}

/* Requests (source, mask, bytes, flags) now if it may, else queues it behind
 * the channel's earlier requests. */
static void request(uint32_t source, uint32_t mask, uint32_t bytes, uint32_t flags) {
  const unsigned i = source_index(source);
  const uint32_t bit = 1u << i;
  struct pending p = {mask, bytes, flags};
  /* Common case, as cheap as a plain push (firmware time is latency): nothing
   * waiting here and a free entry for every source channel even after this
   * one. */
  if (g_waiting == 0 && reg(SB_REQ_FREE) > g_sources - 1) {
    push(i, &p);
    return;
  }
  if (!(g_waiting & bit) && may_push(bit, reg(SB_SRC_QUEUED), reg(SB_REQ_FREE))) {
    push(i, &p);
    return;
  }
  g_pending[i][(g_first[i] + g_count[i]) % PENDING_DEPTH] = p;
  g_count[i]++;
  g_waiting |= bit;
}

/* Routes the oldest header; 0 (and leaves it) if its source channel's queue
 * is full. */
static int switch_one(void) {
  const uint32_t source = reg(SB_HDR_SOURCE);
  if (g_waiting != 0 && g_count[source_index(source)] == PENDING_DEPTH) return 0;
  const uint32_t w0 = reg(SB_HDR_WORD0);
  const uint32_t w1 = reg(SB_HDR_WORD1);
  set_reg(SB_HDR_POP, 1);
  const unsigned in = SB_SOURCE_PORT(source);
  const uint32_t bytes = MLX_HEADER_BYTES + MLX_HDR_LEN(w1);
  const uint32_t mask = route(in, w0, w1);
  if (mask != 0) {
    request(source & ~SB_SOURCE_VALID, mask, bytes, 0);
    g_routed++;
    return 1;
  }
  request(source & ~SB_SOURCE_VALID, 0, bytes, SB_REQ_FLAG_DISCARD);
  /* A broadcast with nowhere else to go is normal (a leaf of the tree). */
  if (MLX_HDR_TYPE(w1) == MLX_TYPE_BROADCAST && tables_valid()) return 1;
  g_dropped++;
  printf("sb: no route: port %u channel %u, type %u to 0x%04x from 0x%04x, %u bytes: discarded\n", in,
         (unsigned)SB_SOURCE_CHANNEL(source), (unsigned)MLX_HDR_TYPE(w1), MLX_HDR_DST(w0), MLX_HDR_SRC(w0),
         (unsigned)bytes);
  fw_result(RESULT_DROPPED, g_dropped);
  return 1;
}

int main(void) {
  const uint32_t config = reg(SB_CONFIG);
  g_ports = SB_CONFIG_PORTS(config);
  g_sources = 2u * g_ports;
  if (tables_valid()) set_reg(SB_UP_PORTS, table32(SB_ROUTES_UP_PORTS_OFF));
  printf("sb router: %u ports, %u stations, %s, routes %s\n", g_ports, (unsigned)SB_CONFIG_STATIONS(config),
         config & SB_CONFIG_OOO ? "out-of-order" : "in-order", tables_valid() ? "loaded" : "missing");
  for (;;) {
    int blocked = 0; /* the oldest header's source channel queue is full */
    g_no_space = 0;
    push_waiting();
    while (reg(SB_HDR_COUNT) != 0)
      if (!switch_one()) {
        blocked = 1;
        break;
      }
    fw_result(RESULT_ROUTED, g_routed);
    if (g_waiting == 0) {
      wait_for(SB_IRQ_HEADER);
      continue;
    }
    if (g_watch != g_waiting) {
      g_watch = g_waiting;
      set_reg(SB_SRC_WATCH, g_watch);
    }
    wait_for((blocked ? 0u : SB_IRQ_HEADER) | SB_IRQ_SRC_IDLE | (g_no_space ? SB_IRQ_REQ_SPACE : 0u));
  }
}
