/* What every MPI device shares: the request pool, matching against the
 * posted-receive and unexpected queues, and waiting for a request, which
 * alternates the device's progress with its wait. The devices
 * (mpi_mmp_device.c, mpi_tcp_device.c) move the messages. Design: docs/mpi.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_env.h"
#include "mpi_internal.h"

/* ---- requests ------------------------------------------------------------- */

int mpi_req_alloc(struct mpi_host *H) {
  for (int i = 0; i < MAX_REQS; i++) {
    if (H->reqs[i].state != RS_FREE) continue;
    memset(&H->reqs[i], 0, sizeof H->reqs[i]);
    H->reqs[i].next = -1;
    return i;
  }
  mpi_fail(H, "MPI", MPI_ERR_INTERN, "more than %d outstanding requests", MAX_REQS);
  return -1;
}

int mpi_req_new(struct mpi_host *H, int is_send, const void *buf, size_t bytes, int peer, int tag, int ctx) {
  const int r = mpi_req_alloc(H);
  if (r < 0) return -1;
  struct mpi_req *R = &H->reqs[r];
  R->is_send = is_send;
  R->buf = (void *)buf;
  R->bytes = bytes;
  R->peer = peer;
  R->tag = tag;
  R->ctx = ctx;
  return r;
}

void mpi_complete(struct mpi_req *R, int error) {
  R->st_error = error;
  R->state = RS_DONE;
}

int mpi_null_req(struct mpi_host *H) {
  const int r = mpi_req_alloc(H);
  if (r < 0) return -1;
  H->reqs[r].peer = H->reqs[r].st_source = MPI_PROC_NULL;
  H->reqs[r].st_tag = MPI_ANY_TAG;
  mpi_complete(&H->reqs[r], MPI_SUCCESS);
  return r;
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

/* ---- matching ------------------------------------------------------------- */

static int matches(int want_src, int want_tag, int want_ctx, const struct mpi_hdr *h) {
  return (int)h->ctx == want_ctx && (want_src == MPI_ANY_SOURCE || want_src == h->src) &&
         (want_tag == MPI_ANY_TAG || want_tag == h->tag);
}

int mpi_take_posted(struct mpi_host *H, const struct mpi_hdr *h) {
  int prev = -1;
  for (int r = H->posted_head; r >= 0; prev = r, r = H->reqs[r].next) {
    m2host_compute_cycles(H->p.match_cycles);
    struct mpi_req *R = &H->reqs[r];
    if (!matches(R->peer, R->tag, R->ctx, h)) continue;
    if (prev < 0) H->posted_head = R->next;
    else H->reqs[prev].next = R->next;
    if (H->posted_tail == r) H->posted_tail = prev;
    R->next = -1;
    return r;
  }
  return -1;
}

void mpi_post_recv(struct mpi_host *H, int r) {
  H->reqs[r].state = RS_RECV_POSTED;
  if (H->posted_tail >= 0) H->reqs[H->posted_tail].next = r;
  else H->posted_head = r;
  H->posted_tail = r;
}

static void append_unexpected(struct mpi_host *H, struct unexpected *u) {
  if (H->unexp_tail) H->unexp_tail->next = u;
  else H->unexp_head = u;
  H->unexp_tail = u;
}

void mpi_queue_unexpected_owned(struct mpi_host *H, const struct mpi_hdr *h, void *data) {
  struct unexpected *u = calloc(1, sizeof *u);
  if (!u) {
    free(data);
    mpi_fail(H, "MPI", MPI_ERR_NO_MEM, "out of memory for an unexpected message");
    return;
  }
  u->h = *h;
  u->data = data;
  append_unexpected(H, u);
}

void mpi_queue_unexpected(struct mpi_host *H, const struct mpi_hdr *h, const void *data) {
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
    m2host_memcpy(u->data, data, (size_t)h->len); /* frees the device's buffer for the next message */
  }
  append_unexpected(H, u);
}

struct unexpected *mpi_take_unexpected(struct mpi_host *H, int src, int tag, int ctx) {
  struct unexpected *prev = NULL;
  for (struct unexpected *u = H->unexp_head; u; prev = u, u = u->next) {
    m2host_compute_cycles(H->p.match_cycles);
    if (!matches(src, tag, ctx, &u->h)) continue;
    if (prev) prev->next = u->next;
    else H->unexp_head = u->next;
    if (H->unexp_tail == u) H->unexp_tail = prev;
    u->next = NULL;
    return u;
  }
  return NULL;
}

void mpi_unexpected_free_all(struct mpi_host *H) {
  for (struct unexpected *u = H->unexp_head, *n; u; u = n) {
    n = u->next;
    free(u->data);
    free(u);
  }
  H->unexp_head = H->unexp_tail = NULL;
}

void mpi_deliver_eager(struct mpi_req *R, const struct mpi_hdr *h, const void *data) {
  R->st_source = h->src;
  R->st_tag = h->tag;
  const size_t n = h->len <= R->bytes ? (size_t)h->len : R->bytes;
  if (n) m2host_memcpy(R->buf, data, n);
  R->st_len = n;
  mpi_complete(R, h->len > R->bytes ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
}

/* ---- the device's entry points, and waiting ------------------------------- */

int mpi_engine_start(struct mpi_host *H) {
  H->posted_head = H->posted_tail = -1;
  return H->dev->start(H);
}

void mpi_engine_stop(struct mpi_host *H) {
  H->dev->stop(H);
  mpi_unexpected_free_all(H);
}

int mpi_isend(struct mpi_host *H, const void *buf, size_t bytes, int dest, int tag, int ctx, int sync) {
  return H->dev->isend(H, buf, bytes, dest, tag, ctx, sync);
}

int mpi_irecv(struct mpi_host *H, void *buf, size_t bytes, int src, int tag, int ctx) {
  return H->dev->irecv(H, buf, bytes, src, tag, ctx);
}

void mpi_progress(struct mpi_host *H) { H->dev->progress(H); }

/* What the stall and deadlock reports say this host waits in: set for the
 * whole of a blocking call's wait (its progress polls included, which are
 * where a report may catch it), cleared when the call returns. */
static void say_waiting(int peer) {
  char what[64];
  if (peer == MPI_ANY_SOURCE) snprintf(what, sizeof what, "MPI, waiting for a message from any rank");
  else snprintf(what, sizeof what, "MPI, waiting for a message from rank %d", peer);
  m2host_activity(M2HOST_LAYER_MPI, what);
}

void mpi_wait_req(struct mpi_host *H, int r) {
  say_waiting(H->reqs[r].peer);
  for (;;) {
    mpi_progress(H);
    if (H->reqs[r].state == RS_DONE) break;
    H->dev->advance(H, r, 1);
    if (H->reqs[r].state == RS_DONE) break;
  }
  m2host_activity(M2HOST_LAYER_MPI, NULL);
}

int mpi_test_req(struct mpi_host *H, int r) {
  mpi_progress(H);
  if (H->reqs[r].state != RS_DONE) H->dev->advance(H, r, 0);
  return H->reqs[r].state == RS_DONE;
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
    H->dev->wait_peer(H, src);
  }
}
