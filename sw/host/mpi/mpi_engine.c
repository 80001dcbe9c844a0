/* The MPI protocol engine over MMP: per-pair control/eager channels, eager and
 * rendezvous protocols, matching with wildcards, progress and waiting.
 *
 * MMP matches on (sender, ports, tag) and has no wildcards, so every rank
 * keeps eager_slots MMP receives posted per peer on one control tag into
 * pinned slots. Everything a rank sends to another rank's MPI goes over that
 * channel first (eager data with its header, RTS, CTS), so the order per pair
 * is MMP's order per tag. Arriving headers are matched here against the
 * posted-receive queue (wildcards allowed) or queued as unexpected. Rendezvous
 * data goes on a fresh MMP tag the receiver picked and posted before it sent
 * CTS, so it never waits in MMP's message buffer. Design: docs/mpi.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_env.h"
#include "mpi_internal.h"

/* ---- requests ------------------------------------------------------------- */

static int req_alloc(struct mpi_host *H) {
  for (int i = 0; i < MAX_REQS; i++) {
    if (H->reqs[i].state != RS_FREE) continue;
    memset(&H->reqs[i], 0, sizeof H->reqs[i]);
    H->reqs[i].next = -1;
    return i;
  }
  mpi_fail(H, "MPI", MPI_ERR_INTERN, "more than %d outstanding requests", MAX_REQS);
  return -1;
}

static void complete(struct mpi_req *R, int error) {
  R->st_error = error;
  R->state = RS_DONE;
}

/* ---- control messages ---------------------------------------------------------- */

/* A free pinned send slot: reclaims finished ones, waits for the oldest if none. */
static int send_slot(struct mpi_host *H) {
  for (int round = 0;; round++) {
    for (int k = 0; k < SEND_SLOTS; k++) {
      const int i = (H->send_next + k) % SEND_SLOTS;
      if (H->send_h[i] && MMP_Wait_send_for(H->send_h[i], 0) != MMP_ETIMEDOUT) H->send_h[i] = NULL;
      if (!H->send_h[i]) {
        H->send_next = (i + 1) % SEND_SLOTS;
        return i;
      }
    }
    /* All in flight: the oldest finishes without anything from us (its
     * receiver's MMP takes it into a posted slot or its message buffer). */
    const int i = H->send_next;
    if (MMP_Wait_send_for(H->send_h[i], -1) != MMP_OK)
      mpi_fail(H, "MPI", MPI_ERR_INTERN, "a control message could not be sent");
    H->send_h[i] = NULL;
  }
}

/* Sends a control message (header + `len` bytes of eager data) to `dest`. */
static void send_ctrl(struct mpi_host *H, int dest, const struct mpi_hdr *h, const void *data, size_t len) {
  const int s = send_slot(H);
  memcpy(H->send_slot[s], h, sizeof *h); /* the header: part of the call's own work */
  if (len) m2host_memcpy(H->send_slot[s] + HDR_BYTES, data, len);
  H->send_h[s] = MMP_Send(H->send_slot[s], HDR_BYTES + len, CTRL_TAG, H->me, H->peers[dest]);
  if (!H->send_h[s])
    mpi_fail(H, "MPI", MPI_ERR_INTERN, "MMP_Send to rank %d failed: %s", dest, MMP_strerror(MMP_last_error()));
}

/* ---- rendezvous ------------------------------------------------------------------ */

/* Where a rendezvous transfer's data is in host memory, for MMP: from the
 * threshold on (by message length, so both sides agree) the user's buffer
 * (zero copy), else `bytes` of a pre-pinned staging buffer. */
static void *data_place(struct mpi_host *H, struct mpi_req *R, size_t msg_len, size_t bytes) {
  if (msg_len >= H->p.zcopy_threshold) {
    R->pinned = bytes ? mpi_pin_acquire(H, R->buf, bytes) : NULL;
    return R->buf;
  }
  R->stage = mpi_stage_get(H, bytes);
  R->stage_bytes = bytes;
  return R->stage;
}

static void data_release(struct mpi_host *H, struct mpi_req *R) {
  if (R->stage) mpi_stage_put(H, R->stage);
  if (R->pinned) mpi_pin_release(H, R->pinned);
  R->stage = R->pinned = NULL;
}

/* A matched RTS: post the data receive into the user's buffer, then send CTS. */
static void start_rendezvous_recv(struct mpi_host *H, int r, const struct mpi_hdr *h) {
  struct mpi_req *R = &H->reqs[r];
  R->st_source = h->src;
  R->st_tag = h->tag;
  R->st_len = h->len;
  if (++H->next_data_tag == 0 || H->next_data_tag > 0x7FFFFFFFu) H->next_data_tag = 1;
  R->data_tag = H->next_data_tag;
  /* A message longer than the capacity is dropped by MMP (truncation).
   * What is pinned or staged is what the message needs, at most the
   * capacity: pinning a 4 MB buffer for a 20 KB message cost 100 times its
   * transfer (130 us per page). */
  const size_t n = h->len < R->bytes ? (size_t)h->len : R->bytes;
  void *where = n ? data_place(H, R, (size_t)h->len, n) : NULL;
  const size_t cap = !where ? 0 : R->stage ? R->stage_bytes : n;
  R->rh = MMP_Recv(where, cap, (int)R->data_tag, H->peers[h->src], H->me);
  if (!R->rh) mpi_fail(H, "MPI", MPI_ERR_INTERN, "MMP_Recv failed: %s", MMP_strerror(MMP_last_error()));
  R->state = RS_RECV_DATA;
  const struct mpi_hdr cts = {MSG_CTS, H->rank, h->tag, h->ctx, h->len, h->sreq, R->data_tag};
  send_ctrl(H, h->src, &cts, NULL, 0);
}

static void finish_rendezvous_recv(struct mpi_host *H, struct mpi_req *R, int rc) {
  int err = MPI_SUCCESS;
  if (rc == MMP_ETRUNC) {
    err = MPI_ERR_TRUNCATE;
    R->st_len = R->bytes;
  } else if (rc < 0) {
    err = MPI_ERR_INTERN;
  } else if (R->stage) {
    m2host_memcpy(R->buf, R->stage, (size_t)rc); /* one copy out of the pre-pinned buffer */
  }
  data_release(H, R);
  R->rh = NULL;
  complete(R, err);
}

static void on_cts(struct mpi_host *H, const struct mpi_hdr *h) {
  if (h->sreq >= MAX_REQS || H->reqs[h->sreq].state != RS_SEND_WAIT_CTS) {
    mpi_fail(H, "MPI", MPI_ERR_INTERN, "clear-to-send from rank %d for no waiting send", h->src);
    return;
  }
  struct mpi_req *R = &H->reqs[h->sreq];
  void *from = NULL;
  if (R->bytes) {
    from = data_place(H, R, R->bytes, R->bytes);
    if (R->stage) m2host_memcpy(R->stage, R->buf, R->bytes); /* one copy into the pre-pinned buffer */
  }
  R->sh = MMP_Send(from, R->bytes, (int)h->data_tag, H->me, H->peers[R->peer]);
  if (!R->sh) mpi_fail(H, "MPI", MPI_ERR_INTERN, "MMP_Send failed: %s", MMP_strerror(MMP_last_error()));
  R->state = RS_SEND_DATA;
}

static void finish_rendezvous_send(struct mpi_host *H, struct mpi_req *R, int rc) {
  data_release(H, R);
  R->sh = NULL;
  complete(R, rc == MMP_OK ? MPI_SUCCESS : MPI_ERR_INTERN);
}

/* ---- matching --------------------------------------------------------------------- */

static int matches(int want_src, int want_tag, int want_ctx, const struct mpi_hdr *h) {
  return (int)h->ctx == want_ctx && (want_src == MPI_ANY_SOURCE || want_src == h->src) &&
         (want_tag == MPI_ANY_TAG || want_tag == h->tag);
}

/* Delivers eager data into a matched receive. */
static void deliver_eager(struct mpi_host *H, struct mpi_req *R, const struct mpi_hdr *h, const void *data) {
  R->st_source = h->src;
  R->st_tag = h->tag;
  const size_t n = h->len <= R->bytes ? (size_t)h->len : R->bytes;
  if (n) m2host_memcpy(R->buf, data, n);
  R->st_len = n;
  complete(R, h->len > R->bytes ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
  (void)H;
}

/* An arriving EAGER or RTS header: the first posted receive it matches, or the
 * unexpected queue. */
static void on_message(struct mpi_host *H, const struct mpi_hdr *h, const uint8_t *data) {
  int prev = -1;
  for (int r = H->posted_head; r >= 0; prev = r, r = H->reqs[r].next) {
    m2host_compute_cycles(H->p.match_cycles);
    struct mpi_req *R = &H->reqs[r];
    if (!matches(R->peer, R->tag, R->ctx, h)) continue;
    if (prev < 0) H->posted_head = R->next;
    else H->reqs[prev].next = R->next;
    if (H->posted_tail == r) H->posted_tail = prev;
    R->next = -1;
    if (h->type == MSG_EAGER) deliver_eager(H, R, h, data);
    else start_rendezvous_recv(H, r, h);
    return;
  }
  struct unexpected *u = calloc(1, sizeof *u);
  if (!u) {
    mpi_fail(H, "MPI", MPI_ERR_NO_MEM, "out of memory for an unexpected message");
    return;
  }
  u->h = *h;
  if (h->type == MSG_EAGER && h->len) {
    u->data = malloc((size_t)h->len);
    if (!u->data) {
      free(u);
      mpi_fail(H, "MPI", MPI_ERR_NO_MEM, "out of memory for an unexpected message");
      return;
    }
    m2host_memcpy(u->data, data, (size_t)h->len); /* frees the slot for the next message */
  }
  if (H->unexp_tail) H->unexp_tail->next = u;
  else H->unexp_head = u;
  H->unexp_tail = u;
}

/* ---- control channels --------------------------------------------------------------- */

/* Posts control slot k of `peer`'s channel (at MPI_Init, and again whenever
 * a message taken from it frees it: `when` says which, for the error). */
static void post_slot(struct mpi_host *H, int peer, int k, const char *when) {
  struct chan *c = &H->chans[peer];
  c->h[k] = MMP_Recv(c->slot[k], H->slot_bytes, CTRL_TAG, H->peers[peer], H->me);
  if (!c->h[k])
    mpi_fail(H, when, MPI_ERR_INTERN, "MMP_Recv of a control slot for rank %d failed: %s", peer,
             MMP_strerror(MMP_last_error()));
}

/* Takes what has arrived on `peer`'s channel, waiting up to timeout_us for the
 * first one; the number of messages handled. */
static int poll_chan(struct mpi_host *H, int peer, double timeout_us) {
  struct chan *c = &H->chans[peer];
  int n = 0;
  for (;;) {
    const int k = c->head;
    const int rc = MMP_Wait_recv_for(c->h[k], timeout_us);
    if (rc == MMP_ETIMEDOUT) return n;
    c->h[k] = NULL;
    if (rc == MMP_ETRUNC)
      mpi_fail(H, "MPI", MPI_ERR_INTERN,
               "a control message from rank %d is longer than this host's eager limit (%zu B): "
               "node*.host.mpi.eager_limit must be the same on every host",
               peer, H->p.eager_limit);
    if (rc < (int)HDR_BYTES) mpi_fail(H, "MPI", MPI_ERR_INTERN, "bad control message from rank %d", peer);
    struct mpi_hdr h;
    memcpy(&h, c->slot[k], sizeof h);
    if (h.type == MSG_CTS) on_cts(H, &h);
    else on_message(H, &h, c->slot[k] + HDR_BYTES);
    post_slot(H, peer, k, "MPI progress (a control slot posted again)");
    c->head = (k + 1) % H->p.eager_slots;
    n++;
    timeout_us = 0;
  }
}

void mpi_progress(struct mpi_host *H) {
  for (int p = 0; p < H->size; p++) poll_chan(H, p, 0);
}

/* What the stall and deadlock reports say this host waits in: set for the
 * whole of a blocking call's wait (its progress polls included, which are
 * where a report may catch it), cleared when the call returns. */
static void say_waiting(int peer) {
  char what[64];
  if (peer == MPI_ANY_SOURCE) snprintf(what, sizeof what, "MPI, waiting for a message from any rank");
  else snprintf(what, sizeof what, "MPI, waiting for a message from rank %d", peer);
  m2host_activity(M2HOST_LAYER_MPI, what);
}

/* Waits a while for something a pending request needs from `peer`
 * (MPI_ANY_SOURCE: the peers in turn, each for a share of the period). */
static void wait_chan(struct mpi_host *H, int peer) {
  if (peer == MPI_ANY_SOURCE) {
    H->rr = (H->rr + 1) % H->size;
    poll_chan(H, H->rr, H->p.poll_us / H->size);
  } else {
    poll_chan(H, peer, H->p.poll_us);
  }
}

int mpi_engine_start(struct mpi_host *H) {
  H->slot_bytes = (HDR_BYTES + H->p.eager_limit + 63) / 64 * 64;
  const size_t n_recv = (size_t)H->size * (size_t)H->p.eager_slots;
  H->pool = MMP_Pindown_malloc((n_recv + SEND_SLOTS) * H->slot_bytes, H->me);
  H->chans = calloc((size_t)H->size, sizeof *H->chans);
  if (!H->pool || !H->chans) return MPI_ERR_NO_MEM;
  for (int p = 0; p < H->size; p++) {
    struct chan *c = &H->chans[p];
    c->h = calloc((size_t)H->p.eager_slots, sizeof *c->h);
    c->slot = calloc((size_t)H->p.eager_slots, sizeof *c->slot);
    if (!c->h || !c->slot) return MPI_ERR_NO_MEM;
    for (int k = 0; k < H->p.eager_slots; k++) {
      c->slot[k] = H->pool + ((size_t)p * (size_t)H->p.eager_slots + (size_t)k) * H->slot_bytes;
      post_slot(H, p, k, "MPI_Init");
    }
  }
  for (int s = 0; s < SEND_SLOTS; s++) H->send_slot[s] = H->pool + (n_recv + (size_t)s) * H->slot_bytes;
  H->posted_head = H->posted_tail = -1;
  return MPI_SUCCESS;
}

void mpi_engine_stop(struct mpi_host *H) {
  for (int s = 0; s < SEND_SLOTS; s++)
    if (H->send_h[s]) MMP_Wait_send_for(H->send_h[s], -1);
  /* The posted control receives end with MMP (no cancel in MMP). */
  for (int p = 0; p < H->size && H->chans; p++) {
    free(H->chans[p].h);
    free(H->chans[p].slot);
  }
  free(H->chans);
  H->chans = NULL;
  for (struct unexpected *u = H->unexp_head, *n; u; u = n) {
    n = u->next;
    free(u->data);
    free(u);
  }
  H->unexp_head = H->unexp_tail = NULL;
}

/* ---- starting operations ---------------------------------------------------------------- */

int mpi_isend(struct mpi_host *H, const void *buf, size_t bytes, int dest, int tag, int ctx, int sync) {
  const int r = req_alloc(H);
  if (r < 0) return -1;
  struct mpi_req *R = &H->reqs[r];
  R->is_send = 1;
  R->buf = (void *)buf;
  R->bytes = bytes;
  R->peer = dest;
  R->tag = tag;
  R->ctx = ctx;
  R->sync = sync;
  if (!sync && bytes <= H->p.eager_limit) {
    /* Eager: the data goes with the header; the user's buffer is free again now. */
    const struct mpi_hdr h = {MSG_EAGER, H->rank, tag, (uint32_t)ctx, bytes, 0, 0};
    send_ctrl(H, dest, &h, buf, bytes);
    complete(R, MPI_SUCCESS);
    return r;
  }
  const struct mpi_hdr h = {MSG_RTS, H->rank, tag, (uint32_t)ctx, bytes, (uint32_t)r, 0};
  R->state = RS_SEND_WAIT_CTS;
  send_ctrl(H, dest, &h, NULL, 0);
  return r;
}

int mpi_irecv(struct mpi_host *H, void *buf, size_t bytes, int src, int tag, int ctx) {
  const int r = req_alloc(H);
  if (r < 0) return -1;
  struct mpi_req *R = &H->reqs[r];
  R->buf = buf;
  R->bytes = bytes;
  R->peer = src;
  R->tag = tag;
  R->ctx = ctx;
  struct unexpected *prev = NULL;
  for (struct unexpected *u = H->unexp_head; u; prev = u, u = u->next) {
    m2host_compute_cycles(H->p.match_cycles);
    if (!matches(src, tag, ctx, &u->h)) continue;
    if (prev) prev->next = u->next;
    else H->unexp_head = u->next;
    if (H->unexp_tail == u) H->unexp_tail = prev;
    if (u->h.type == MSG_EAGER) deliver_eager(H, R, &u->h, u->data);
    else start_rendezvous_recv(H, r, &u->h);
    free(u->data);
    free(u);
    return r;
  }
  R->state = RS_RECV_POSTED;
  if (H->posted_tail >= 0) H->reqs[H->posted_tail].next = r;
  else H->posted_head = r;
  H->posted_tail = r;
  return r;
}

int mpi_null_req(struct mpi_host *H) {
  const int r = req_alloc(H);
  if (r < 0) return -1;
  H->reqs[r].peer = H->reqs[r].st_source = MPI_PROC_NULL;
  H->reqs[r].st_tag = MPI_ANY_TAG;
  complete(&H->reqs[r], MPI_SUCCESS);
  return r;
}

/* ---- completing them ---------------------------------------------------------------------- */

/* One step towards completing request r: waits for its data transfer, or a
 * while for its peer's channel. */
static void advance(struct mpi_host *H, int r, double data_timeout_us) {
  struct mpi_req *R = &H->reqs[r];
  int rc;
  switch (R->state) {
    case RS_RECV_DATA:
      rc = MMP_Wait_recv_for(R->rh, data_timeout_us);
      if (rc != MMP_ETIMEDOUT) finish_rendezvous_recv(H, R, rc);
      break;
    case RS_SEND_DATA:
      rc = MMP_Wait_send_for(R->sh, data_timeout_us);
      if (rc != MMP_ETIMEDOUT) finish_rendezvous_send(H, R, rc);
      break;
    case RS_RECV_POSTED:
    case RS_SEND_WAIT_CTS:
      if (data_timeout_us != 0) wait_chan(H, R->peer);
      break;
    default:
      break;
  }
}

void mpi_wait_req(struct mpi_host *H, int r) {
  say_waiting(H->reqs[r].peer);
  for (;;) {
    mpi_progress(H);
    if (H->reqs[r].state == RS_DONE) break;
    /* Never an unbounded wait on one transfer: this host may owe another rank
     * a clear-to-send (or take its data) while it waits, and two ranks each
     * waiting for the other's data would deadlock. So the wait on this
     * request's word (which wakes at once when it is written) gives up after
     * progress_poll_us and every channel is looked at again. */
    advance(H, r, H->p.poll_us);
    if (H->reqs[r].state == RS_DONE) break;
  }
  m2host_activity(M2HOST_LAYER_MPI, NULL);
}

int mpi_test_req(struct mpi_host *H, int r) {
  mpi_progress(H);
  if (H->reqs[r].state != RS_DONE) advance(H, r, 0);
  return H->reqs[r].state == RS_DONE;
}

int mpi_req_finish(struct mpi_host *H, int r, MPI_Status *status) {
  struct mpi_req *R = &H->reqs[r];
  const int err = R->st_error;
  if (status && status != MPI_STATUS_IGNORE && !R->is_send) {
    status->MPI_SOURCE = R->comm_self ? 0 : R->st_source;
    status->MPI_TAG = R->st_tag;
    status->MPI_ERROR = err;
    status->count_lo = (int)(R->st_len & 0xFFFFFFFFu);
    status->count_hi_and_cancelled = (int)((R->st_len >> 32) << 1);
  }
  R->state = RS_FREE;
  return err;
}

const struct mpi_hdr *mpi_probe(struct mpi_host *H, int src, int tag, int ctx, int wait) {
  if (wait) say_waiting(src);
  for (;;) {
    mpi_progress(H);
    for (struct unexpected *u = H->unexp_head; u; u = u->next) {
      m2host_compute_cycles(H->p.match_cycles);
      if (matches(src, tag, ctx, &u->h)) {
        if (wait) m2host_activity(M2HOST_LAYER_MPI, NULL);
        return &u->h;
      }
    }
    if (!wait) return NULL;
    wait_chan(H, src);
  }
}
