/* Internals of the MPI library shared by its files: the per-host state, the
 * wire header of MPI's control messages, requests, the devices that move
 * messages (MMP, TCP) and what they share. Design: docs/mpi.md.
 *
 * All hosts run in one process (one SystemC thread each): every piece of
 * state lives in the host's struct mpi_host (mpi_self()), never in globals. */
#ifndef M2_MPI_INTERNAL_H
#define M2_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mmp.h"
#include "mpi.h"

#define MPI_MMP_PORT 0x4D50 /* the MMP port every rank's MPI uses ("MP")      */
#define MPI_TCP_PORT 19792  /* the TCP port every rank's MPI listens on (0x4D50) */
#define MPI_TCP_SHORT 1024u /* TCP: messages up to this go as one packet with their header (MPICH's short protocol) */
#define CTRL_TAG 0u         /* MMP tag of the control/eager channel per pair   */
#define HDR_BYTES 32u       /* control header in front of eager data          */
#define SEND_SLOTS 32       /* pinned buffers for outgoing control messages   */
#define MAX_REQS 4096
#define MAX_RANKS 256
#define REQ_HANDLE_BASE 0x2c100000 /* MPI_Request = base + index (not MPI_REQUEST_NULL) */

/* Contexts: point to point and collectives never match each other. */
#define CTX_WORLD 0
#define CTX_WORLD_COLL 1
#define CTX_SELF 2
#define CTX_SELF_COLL 3

enum msg_type {
  MSG_EAGER = 1,
  MSG_RTS = 2,
  MSG_CTS = 3,
  MSG_SYNC = 4,    /* TCP: a synchronous send's message, with its data          */
  MSG_SYNC_ACK = 5 /* TCP: its receive was matched (sreq: the sender's request)  */
};

/* The control header (host byte order: every host is the same PC). */
struct mpi_hdr {
  uint32_t type;     /* enum msg_type                                    */
  int32_t src;       /* sender's world rank                              */
  int32_t tag;       /* MPI tag                                          */
  uint32_t ctx;      /* context                                          */
  uint64_t len;      /* message length in bytes                          */
  uint32_t sreq;     /* RTS/CTS: the sender's request index              */
  uint32_t data_tag; /* CTS: the MMP tag the receiver posted the data on  */
};

enum req_state {
  RS_FREE = 0,
  RS_DONE,          /* complete, waiting for Wait/Test                        */
  RS_RECV_POSTED,   /* receive in the posted queue, not matched yet           */
  RS_RECV_DATA,     /* rendezvous receive: data MMP receive posted, CTS sent  */
  RS_SEND_WAIT_CTS, /* rendezvous send: RTS sent                              */
  RS_SEND_DATA,     /* rendezvous send: data MMP send posted                  */
};

struct mpi_req {
  enum req_state state;
  int is_send;
  void *buf;    /* user buffer                                                  */
  size_t bytes; /* send: message length; receive: capacity                      */
  int peer;     /* world rank; MPI_ANY_SOURCE for such receives                 */
  int tag;      /* may be MPI_ANY_TAG for receives                              */
  int ctx;
  int comm_self; /* the request's communicator is MPI_COMM_SELF (status source 0) */
  int sync;      /* MPI_Ssend: always by rendezvous                              */
  uint32_t data_tag;
  struct MMP_send_handle *sh;
  struct MMP_recv_handle *rh;
  void *stage; /* one-copy: the pre-pinned buffer used                         */
  size_t stage_bytes;
  void *pinned; /* pin-down cache entry held during the transfer               */
  /* completion: what MPI_Status reports */
  int st_source, st_tag, st_error;
  size_t st_len;
  int next; /* posted-receive queue link (-1 at the end)                      */
};

struct unexpected {
  struct mpi_hdr h;
  void *data; /* eager payload copied out of the slot (malloc)               */
  struct unexpected *next;
};

/* One peer's control/eager channel: receives kept posted into pinned slots. */
struct chan {
  struct MMP_recv_handle **h;
  uint8_t **slot;
  int head; /* oldest posted receive: MMP completes them in this order */
};

struct staging {
  void *buf;
  size_t bytes;
  int busy;
};

struct pin_entry {
  uint8_t *start; /* page aligned                                          */
  size_t bytes;
  int users;     /* transfers using it now (never evicted then)           */
  uint64_t last; /* use counter for LRU                                   */
  struct pin_entry *next;
};

struct alloc_mem {
  uint8_t *p;
  size_t bytes;
  struct alloc_mem *next;
};

struct mpi_host;
struct mpi_tcp; /* the TCP device's state (mpi_tcp_device.c) */

/* A device moves MPI's messages between ranks (node*.host.mpi.device). */
struct mpi_device {
  const char *name;
  int (*start)(struct mpi_host *H); /* at MPI_Init: MPI_SUCCESS or an error code */
  void (*stop)(struct mpi_host *H);
  int (*isend)(struct mpi_host *H, const void *buf, size_t bytes, int dest, int tag, int ctx, int sync);
  int (*irecv)(struct mpi_host *H, void *buf, size_t bytes, int src, int tag, int ctx);
  void (*progress)(struct mpi_host *H); /* takes what has arrived, without waiting */
  /* One step towards completing request r; with may_wait, waits a while. */
  void (*advance)(struct mpi_host *H, int r, int may_wait);
  /* Waits a while for something from `peer` (MPI_ANY_SOURCE: anyone). */
  void (*wait_peer)(struct mpi_host *H, int peer);
};
extern const struct mpi_device mpi_mmp_device, mpi_tcp_device;

struct mpi_params {
  size_t eager_limit, zcopy_threshold, pin_cache_bytes;
  int pin_cache, eager_slots;
  uint64_t call_cycles, match_cycles;
  double memcpy_mbyte_per_s; /* the host's copy bandwidth: reductions stream their data at it */
  double poll_us;
  int tcp; /* node*.host.mpi.device is tcp */
};

struct mpi_host {
  int initialized, finalized;
  int rank, size;
  int errors_return; /* MPI_ERRORS_RETURN set on a communicator           */
  struct mpi_params p;
  const struct mpi_device *dev;
  struct mpi_tcp *tcp; /* the TCP device's connections (device tcp only) */
  struct MMP_connect *me;
  struct MMP_connect **peers; /* by world rank                            */
  size_t slot_bytes;
  uint8_t *pool; /* pinned: size * eager_slots receive slots, then the send slots */
  struct chan *chans;
  uint8_t *send_slot[SEND_SLOTS];
  struct MMP_send_handle *send_h[SEND_SLOTS];
  int send_next;
  struct mpi_req reqs[MAX_REQS];
  int posted_head, posted_tail; /* posted receives in order              */
  struct unexpected *unexp_head, *unexp_tail;
  uint32_t next_data_tag;
  int rr; /* wildcard polling rotation                                    */
  struct staging *stages;
  size_t n_stages;
  struct pin_entry *pins; /* the pin-down cache                            */
  size_t pinned_bytes;
  struct alloc_mem *allocs; /* MPI_Alloc_mem: pinned already              */
  uint64_t pin_clock;
};

struct mpi_host *mpi_self(void);
/* The host's state after MPI_Init (ends the run naming `fn` otherwise). */
struct mpi_host *mpi_ready(const char *fn);
/* An error of call `fn`: fatal (ends the run with the message) unless
 * MPI_ERRORS_RETURN was set; returns `code`. */
int mpi_fail(struct mpi_host *H, const char *fn, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
const char *mpi_error_text(int code);

/* Datatypes (mpi_types.c). */
int mpi_type_size(MPI_Datatype t); /* bytes, or -1 for an unknown type */
/* Combines n elements of `in` into `inout`; MPI_SUCCESS, MPI_ERR_OP or MPI_ERR_TYPE. */
int mpi_reduce_apply(MPI_Op op, MPI_Datatype t, const void *in, void *inout, size_t n);

/* Communicators: context and world rank of `rank` in comm (mpi_env.c). */
int mpi_comm_check(struct mpi_host *H, const char *fn, MPI_Comm comm, int *ctx, int *size, int *my_rank);
int mpi_world_rank(MPI_Comm comm, struct mpi_host *H, int rank);

/* Requests, matching and waiting, shared by the devices (mpi_requests.c). */
int mpi_req_alloc(struct mpi_host *H); /* a fresh request's index, or -1 (out of requests) */
/* A fresh request for a send or receive of `bytes` at buf with `peer`; its index, or -1. */
int mpi_req_new(struct mpi_host *H, int is_send, const void *buf, size_t bytes, int peer, int tag, int ctx);
void mpi_complete(struct mpi_req *R, int error);
/* The first posted receive an arriving header matches, taken off the queue; -1: none. */
int mpi_take_posted(struct mpi_host *H, const struct mpi_hdr *h);
void mpi_post_recv(struct mpi_host *H, int r); /* appends r to the posted-receive queue */
/* Queues an unmatched message; eager data is copied (the device's buffer is free again). */
void mpi_queue_unexpected(struct mpi_host *H, const struct mpi_hdr *h, const void *data);
/* The same for a message whose data (malloc'd, or NULL) the queue takes over without a copy. */
void mpi_queue_unexpected_owned(struct mpi_host *H, const struct mpi_hdr *h, void *data);
/* The first unexpected message matching src/tag/ctx, taken off the queue (the caller frees it and its data). */
struct unexpected *mpi_take_unexpected(struct mpi_host *H, int src, int tag, int ctx);
/* Copies eager data into a matched receive (truncating) and completes it. */
void mpi_deliver_eager(struct mpi_req *R, const struct mpi_hdr *h, const void *data);

/* The device's entry points for the MPI calls (through H->dev). */
int mpi_engine_start(struct mpi_host *H);
void mpi_engine_stop(struct mpi_host *H);
/* Starts a send / receive; the request index, or -1 (out of requests). */
int mpi_isend(struct mpi_host *H, const void *buf, size_t bytes, int dest, int tag, int ctx, int sync);
int mpi_irecv(struct mpi_host *H, void *buf, size_t bytes, int src, int tag, int ctx);
int mpi_null_req(struct mpi_host *H); /* complete at once: an MPI_PROC_NULL operation */
void mpi_wait_req(struct mpi_host *H, int r);
int mpi_test_req(struct mpi_host *H, int r); /* 1 when complete */
void mpi_progress(struct mpi_host *H);
/* Finds (and with `wait`, waits for) an unexpected message matching src/tag/ctx. */
const struct mpi_hdr *mpi_probe(struct mpi_host *H, int src, int tag, int ctx, int wait);
/* Fills the caller's status from a completed request and frees it; returns its error code. */
int mpi_req_finish(struct mpi_host *H, int r, MPI_Status *status);

/* Buffers (mpi_buffers.c): pre-pinned staging for one-copy transfers and the pin-down cache. */
void *mpi_stage_get(struct mpi_host *H, size_t bytes);
void mpi_stage_put(struct mpi_host *H, void *buf);
/* Before a zero-copy transfer of [buf, buf + bytes): with the pin-down cache on and
 * the buffer in host physical memory, pins it (or finds it pinned); returns the
 * cache entry to release after the transfer, or NULL (MMP then pins per message). */
void *mpi_pin_acquire(struct mpi_host *H, void *buf, size_t bytes);
void mpi_pin_release(struct mpi_host *H, void *entry);
void mpi_buffers_free(struct mpi_host *H);

#endif
