/* Inside the MMP host library: the per-host state and what its files
 * (mmp.c: API, requests, send and receive; mmp_pin.c: pinned memory) share.
 * Not for applications: they include mmp.h. */
#ifndef M2_MMP_HOST_H
#define M2_MMP_HOST_H

#include <stddef.h>
#include <stdint.h>

#include <ip/mmp_protocol.h>

#include "m2drv.h"
#include "mmp.h"

enum buf_mode { BUF_NONE, BUF_PINNED, BUF_PIN_MESSAGE, BUF_BOUNCE_POOL, BUF_BOUNCE_TEMP, BUF_INLINE };

struct op {
  unsigned magic;
  int in_use;
  int index; /* record index in the communication buffer */
  uint16_t gen;
  enum buf_mode mode;
  void *user;
  size_t len;
  void *bounce; /* BUF_BOUNCE_*: the pinned copy */
  m2drv_buffer temp;
  uint32_t nia; /* BUF_PIN_MESSAGE, BUF_BOUNCE_TEMP: its mapping in the NI's table */
};
struct MMP_send_handle {
  struct op op;
};
struct MMP_recv_handle {
  struct op op;
};

struct region {
  void *addr;
  uint32_t nia; /* its NI address (the translation table's pages) */
  size_t bytes;
  m2drv_buffer buf; /* from MMP_Pindown_malloc; buf.addr NULL for MMP_Pindown_register */
};

/* First fit over 256-byte blocks of a pinned area (the bounce pool). */
struct pool {
  m2drv_buffer buf;
  uint32_t nia;
  uint8_t *used; /* one byte per block */
  size_t blocks;
};
#define POOL_BLOCK 256u
#define MAX_CONNECTS (2 * (int)MMP_MAX_NODES) /* a remote endpoint per node, and then some */
#define MAX_TABLES 64                         /* PNA tables per host; an application needs one */

struct host {
  struct MMP_options opt;
  int opened;    /* the NI accepted our init block */
  int refs;      /* initialized local endpoints */
  int finalized; /* the NI firmware was told to stop */
  int error;
  m2drv *drv;
  int node;
  struct MMP_PNA_table *table;
  m2drv_buffer comm, msgbuf;                 /* the communication buffer, the message buffer */
  uint8_t xlate_used[MMP_XLATE_ENTRIES / 8]; /* the NI's translation entries in use */
  struct pool bounce;
  uint32_t req_next, req_free;
  uint32_t msg_next; /* number of the next message sent (the wire header's SEQ) */
  uint16_t gen;
  size_t pinned_bytes;
  struct region *regions;
  size_t n_regions, cap_regions;
  uint32_t sync_epoch;
  /* The user's pool, then as many again for MMP_Sync (which must work when
   * the user's pool is full). */
  struct MMP_send_handle sends[2 * MMP_MAX_SENDS];
  struct MMP_recv_handle recvs[2 * MMP_MAX_RECVS];
  /* Endpoints handed out by MMP_Make_connect. The API has no call to free
   * one, so they live here, with the rest of the host's state, instead of
   * being allocated one by one and never freed. */
  struct MMP_connect connects[MAX_CONNECTS];
  int n_connects;
  /* PNA tables: no call frees one either; kept here so that a table whose
   * MMP_initialize failed (or never came) is still the host's, not lost. */
  struct MMP_PNA_table *tables[MAX_TABLES];
  int n_tables;
};

/* The calling host's state (created on first use); NULL for a bad host id. */
struct host *mmp_self(void);
/* Records `code` as the host's last error and returns it (NULL for _null). */
int mmp_fail(struct host *H, int code);
void *mmp_fail_null(struct host *H, int code);
/* A local endpoint that one MMP_initialize accepted, on a running library. */
int mmp_local_ok(const struct host *H, const struct MMP_connect *c);

/* ---- pinned memory (mmp_pin.c) ---- */
size_t mmp_round_up(size_t v, size_t unit);
/* Pinned host memory within the host's pinned_limit: MMP_OK or MMP_ENOMEM. */
int mmp_pin_alloc(struct host *H, size_t bytes, m2drv_buffer *out);
void mmp_pin_free(struct host *H, m2drv_buffer *b);
/* Where the NI reads or writes an operation's data (its NI address in
 * *nia); sets o->mode and its resources. MMP_OK or MMP_ENOMEM. */
int mmp_place_buffer(struct host *H, struct op *o, void *buf, size_t len, int is_send, uint32_t *nia);
void mmp_release_buffer(struct host *H, struct op *o);

/* ---- address translation (mmp_xlate.c) ---- */
/* Enters the pages of [bus, bus + bytes) into the NI's translation table;
 * *nia gets the NI address of bus. MMP_OK, MMP_ENOMEM (table full) or
 * MMP_ENI. */
int mmp_xlate_map(struct host *H, uint64_t bus, size_t bytes, uint32_t *nia);
void mmp_xlate_unmap(struct host *H, uint32_t nia, size_t bytes);

#endif
