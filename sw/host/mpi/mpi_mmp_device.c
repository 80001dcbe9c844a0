/* The MPI device over MMP (node*.host.mpi.device: mmp): per-pair control/eager channels, eager and
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
  mpi_complete(R, err);
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
  mpi_complete(R, rc == MMP_OK ? MPI_SUCCESS : MPI_ERR_INTERN);
}

/* ---- matching --------------------------------------------------------------------- */

/* An arriving EAGER or RTS header: the first posted receive it matches, or the
 * unexpected queue. */
static void on_message(struct mpi_host *H, const struct mpi_hdr *h, const uint8_t *data) {
  const int r = mpi_take_posted(H, h);
  if (r < 0) mpi_queue_unexpected(H, h, data);
  else if (h->type == MSG_EAGER) mpi_deliver_eager(&H->reqs[r], h, data);
  else start_rendezvous_recv(H, r, h);
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

static void mmp_progress(struct mpi_host *H) {
  for (int p = 0; p < H->size; p++) poll_chan(H, p, 0);
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

static int mmp_start(struct mpi_host *H) {
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
  return MPI_SUCCESS;
}

static void mmp_stop(struct mpi_host *H) {
  for (int s = 0; s < SEND_SLOTS; s++)
    if (H->send_h[s]) MMP_Wait_send_for(H->send_h[s], -1);
  /* The posted control receives end with MMP (no cancel in MMP). */
  for (int p = 0; p < H->size && H->chans; p++) {
    free(H->chans[p].h);
    free(H->chans[p].slot);
  }
  free(H->chans);
  H->chans = NULL;
}

/* ---- starting operations ---------------------------------------------------------------- */

static int mmp_isend(struct mpi_host *H, const void *buf, size_t bytes, int dest, int tag, int ctx, int sync) {
  const int r = mpi_req_new(H, 1, buf, bytes, dest, tag, ctx);
  if (r < 0) return -1;
  struct mpi_req *R = &H->reqs[r];
  R->sync = sync;
  if (!sync && bytes <= H->p.eager_limit) {
    /* Eager: the data goes with the header; the user's buffer is free again now. */
    const struct mpi_hdr h = {MSG_EAGER, H->rank, tag, (uint32_t)ctx, bytes, 0, 0};
    send_ctrl(H, dest, &h, buf, bytes);
    mpi_complete(R, MPI_SUCCESS);
    return r;
  }
  const struct mpi_hdr h = {MSG_RTS, H->rank, tag, (uint32_t)ctx, bytes, (uint32_t)r, 0};
  R->state = RS_SEND_WAIT_CTS;
  send_ctrl(H, dest, &h, NULL, 0);
  return r;
}

static int mmp_irecv(struct mpi_host *H, void *buf, size_t bytes, int src, int tag, int ctx) {
  const int r = mpi_req_new(H, 0, buf, bytes, src, tag, ctx);
  if (r < 0) return -1;
  struct mpi_req *R = &H->reqs[r];
  struct unexpected *u = mpi_take_unexpected(H, src, tag, ctx);
  if (u) {
    if (u->h.type == MSG_EAGER) mpi_deliver_eager(R, &u->h, u->data);
    else start_rendezvous_recv(H, r, &u->h);
    free(u->data);
    free(u);
    return r;
  }
  mpi_post_recv(H, r);
  return r;
}

/* ---- completing them ---------------------------------------------------------------------- */

/* One step towards completing request r: waits for its data transfer, or a
 * while for its peer's channel. */
static void mmp_advance(struct mpi_host *H, int r, int may_wait) {
  struct mpi_req *R = &H->reqs[r];
  /* Never an unbounded wait on one transfer: this host may owe another rank
   * a clear-to-send (or take its data) while it waits, and two ranks each
   * waiting for the other's data would deadlock. So the wait on this
   * request's word (which wakes at once when it is written) gives up after
   * progress_poll_us and every channel is looked at again. */
  const double data_timeout_us = may_wait ? H->p.poll_us : 0;
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

const struct mpi_device mpi_mmp_device = {"mmp",     mmp_start,    mmp_stop,    mmp_isend,
                                          mmp_irecv, mmp_progress, mmp_advance, wait_chan};
