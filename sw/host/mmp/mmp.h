/* MMP: the Maestro2 user-level message-passing library (host side).
 *
 * The MMP API of the Maestro2 specification, unchanged, so that existing MMP
 * callers (a NetPIPE module, MPICH's ch_maestro2 device) compile against it;
 * the NI side is the MMP firmware (sw/firmware/mmp), the contract between the
 * two ip/mmp_protocol.h, the design docs/mmp.md.
 *
 * Choices where the API leaves them open:
 *  - Network addresses (PNA): node n of the cluster (MLC-X node address n) has
 *    PNA n + 1 (MMP_PNA(n)), so that 0 can mean "this node" as the API wants.
 *    After MMP_initialize, me->network_addr holds this node's own PNA.
 *  - Ports are 0 .. MMP_MAX_PORT (0xFFFE); 0xFFFF is kept for MMP_Sync.
 *    Messages match on (sender PNA, sender port, receiver port, tag); between
 *    two endpoints and one tag they arrive in order. No wildcards.
 *  - One NI context per host: MMP_initialize may be called for several local
 *    endpoints (ports); the first call opens the NI, MMP_finalize of the last
 *    one closes it and stops the NI firmware (it cannot be reopened in the
 *    same run).
 *  - The PNA table is kept by reference: it names the nodes taking part.
 *    When it has entries, a destination outside it is "unknown"; when it is
 *    NULL or empty any node up to MMP_MAX_NODES may be addressed. MMP_Sync's
 *    ranks are its indices (rank i = t->PNA[i]; without a table rank i is
 *    node i); rank 0 coordinates the barrier.
 *  - Handles are pointers into a per-host pool of MMP_MAX_SENDS sends and
 *    MMP_MAX_RECVS receives; a handle is free again after its Wait. Waiting
 *    on anything else (NULL, a foreign pointer, a handle already waited for)
 *    is a bad handle: the Wait returns MMP_EINVAL. More outstanding
 *    operations than the pool holds: Send/Recv return NULL (MMP_EBUSY).
 *  - MMP_Wait_send returns 0; MMP_Wait_recv returns the message's length in
 *    bytes (>= 0). Errors are negative MMP_E* codes; functions that return a
 *    pointer return NULL and leave the code in MMP_last_error().
 *  - A message longer than the posted buffer is not delivered at all (no
 *    partial data): the receive completes with MMP_ETRUNC and the message is
 *    dropped.
 *
 * Buffers and costs (what the real host pays is charged to simulated time):
 *  - MMP_Pindown_malloc: host physical memory, pinned once (pin_us_per_page
 *    per 4 KB page); the NI DMAs straight from and into it (zero copy).
 *  - Sends up to the inline limit (MMP_options.inline_bytes) are copied
 *    (m2host_memcpy) into the request's inline slot in the communication
 *    buffer, whatever the buffer: they are complete when MMP_Send returns.
 *  - Other buffers in host physical memory (m2host_phys_alloc) are pinned
 *    for the one message and unpinned at its Wait (per-message pin-down).
 *  - Buffers elsewhere (heap, stack) go through a pinned bounce buffer with
 *    m2host_memcpy (one copy each way).
 *  - A message that arrives before its receive is posted is kept by the NI
 *    in the message buffer (pinned, MMP_options.msgbuf_bytes); the Wait
 *    copies it out (m2host_memcpy). */
#ifndef M2_MMP_H
#define M2_MMP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MMP_PNA(node) ((node) + 1) /* PNA of cluster node `node` */
#define MMP_MAX_PORT 0xFFFE
#define MMP_MAX_SENDS 256
#define MMP_MAX_RECVS 256

/* Error codes (negative return values, MMP_last_error()). */
#define MMP_OK 0
#define MMP_EINVAL -1    /* bad argument or handle                          */
#define MMP_ETRUNC -2    /* message longer than the posted buffer           */
#define MMP_ENODEST -3   /* unknown destination (or source)                  */
#define MMP_ENOMEM -4    /* out of pinned memory                             */
#define MMP_EBUSY -5     /* too many outstanding sends or receives           */
#define MMP_ENOTINIT -6  /* endpoint not initialized / library finalized     */
#define MMP_ENI -7       /* the NI did not answer or reported an error       */
#define MMP_ETIMEDOUT -8 /* a Wait ran out of MMP_options.wait_timeout_us   */

struct MMP_PNA_table {
  int n_networks; /* capacity given to MMP_alloc_PNA_table            */
  int n;          /* entries added so far                              */
  int *PNA;       /* PNA[0 .. n-1]                                     */
};

struct MMP_connect {
  int network_addr; /* PNA; 0 = this node (own PNA after MMP_initialize) */
  int port;
  /* private */
  unsigned magic;
  int initialized; /* a local endpoint MMP_initialize accepted            */
};

struct MMP_send_handle; /* opaque: a slot of the library's pool */
struct MMP_recv_handle;

struct MMP_PNA_table *MMP_alloc_PNA_table(int n_networks);
void MMP_add_PNA_to_table(struct MMP_PNA_table *t, int pna);

/* Endpoints are kept by the library (never freed); at most 512 per host
 * (MMP_EBUSY beyond). */
struct MMP_connect *MMP_Make_connect(int network_addr, int port);
struct MMP_connect *MMP_initialize(struct MMP_connect *me, struct MMP_PNA_table *t); /* NULL on error */
void MMP_finalize(struct MMP_connect *me);

void *MMP_Pindown_malloc(size_t bytes, struct MMP_connect *me); /* NULL on error */
void MMP_Pindown_free(void *p, struct MMP_connect *me);

struct MMP_send_handle *MMP_Send(void *buf, size_t len, int tag, struct MMP_connect *from,
                                 struct MMP_connect *to); /* NULL on error */
int MMP_Wait_send(struct MMP_send_handle *h);

struct MMP_recv_handle *MMP_Recv(void *buf, size_t len, int tag, struct MMP_connect *from,
                                 struct MMP_connect *to); /* NULL on error */
int MMP_Wait_recv(struct MMP_recv_handle *h);

void MMP_Sync(int id, int n_nodes); /* barrier over n_nodes nodes */

/* ---- extensions (not in the original API) ------------------------------ */
/* The last error of this host's MMP calls (MMP_E*; MMP_OK after success). */
int MMP_last_error(void);
const char *MMP_strerror(int code);

/* Library settings, per host; take effect at the next first MMP_initialize. */
struct MMP_options {
  size_t msgbuf_bytes;    /* NI-managed buffer for unexpected messages (256 KB) */
  size_t bounce_bytes;    /* pinned pool for copies of unpinned buffers (256 KB) */
  size_t inline_bytes;    /* sends up to this size are copied into the request (<= 192) */
  size_t pinned_limit;    /* most pinned bytes in all (256 MB)                  */
  double wait_timeout_us; /* a Wait gives up after this (< 0: never)            */
  double init_timeout_us; /* how long MMP_initialize waits for the NI (10 ms)   */
  int broadcast_sync;     /* MMP_Sync releases by SB broadcast when every host takes part */
};
void MMP_get_options(struct MMP_options *o);
/* A Wait that gives up after timeout_us (< 0: never; 0: just looks) instead
 * of MMP_options.wait_timeout_us: MMP_ETIMEDOUT leaves the handle valid. */
int MMP_Wait_send_for(struct MMP_send_handle *h, double timeout_us);
int MMP_Wait_recv_for(struct MMP_recv_handle *h, double timeout_us);
/* Pins [p, p + bytes) of host physical memory (m2host_phys_alloc) in place,
 * charging the pinning; the NI then uses it zero copy like MMP_Pindown_malloc
 * memory until MMP_Pindown_unregister(p) unpins it (or MMP_finalize).
 * MMP_OK, MMP_EINVAL (not host physical memory), MMP_ENOMEM (pinned limit). */
int MMP_Pindown_register(void *p, size_t bytes, struct MMP_connect *me);
int MMP_Pindown_unregister(void *p, struct MMP_connect *me);
int MMP_set_options(const struct MMP_options *o); /* MMP_OK or MMP_EINVAL */

#ifdef __cplusplus
}
#endif

#endif
