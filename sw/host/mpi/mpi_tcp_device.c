/* The MPI device over TCP (node*.host.mpi.device: tcp), as MPICH's ch_p4 ran
 * MPI over sockets: one TCP connection per pair of ranks, every message sent
 * whole (the 32-byte header, then its data) in the order it was started, and
 * read whole by the receiver into a buffer of the device's own before it is
 * matched, because the socket layer (p4) knows nothing of MPI's posted
 * receives: one copy from that buffer into the user's, besides the kernel's
 * copies (charged by the host's TCP/IP stack). The sender hands the user's
 * buffer to the socket (no copy of its own), except for short messages (up
 * to MPI_TCP_SHORT bytes), which it copies behind the header into one
 * packet and writes with one call, as MPICH's short protocol did. A synchronous send completes
 * when the receiver says its receive matched. Sockets are nonblocking; a
 * waiting call sleeps in poll(2) on every connection. Design: docs/mpi.md. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_env.h"
#include "mpi_internal.h"

/* A message on its way out: header, then data from the user's buffer. */
struct tcp_out {
  struct mpi_hdr h;
  const uint8_t *data;
  uint8_t *packed; /* a short message: header and data in one buffer (malloc'd); else NULL */
  size_t sent;     /* bytes of header + data written so far */
  int req;         /* the send request completed when all is written; -1: none (an ack) */
  struct tcp_out *next;
};

/* One peer's connection and the message being read from it. */
struct tcp_peer {
  int sd; /* -1: none (this rank itself) */
  int closed;
  struct tcp_out *out_head, *out_tail;
  struct mpi_hdr in_h;
  size_t in_got; /* bytes of header + data read so far */
  uint8_t *in_data;
};

struct mpi_tcp {
  int listen_sd;
  struct tcp_peer *peers;
  int *poll_sds;
  short *poll_events, *poll_revents;
};

static int tcp_fail(struct mpi_host *H, const char *what, long rc) {
  return mpi_fail(H, "MPI (device tcp)", MPI_ERR_INTERN, "%s: %s", what, strerror((int)-rc));
}

/* ---- arriving messages ----------------------------------------------------- */

/* A whole message has arrived from a peer (or from this rank itself):
 * `data` is the device's buffer (malloc'd, or NULL), which this takes over. */
static void queue_out(struct mpi_host *H, int dest, const struct mpi_hdr *h, const void *data, int req);

static void arrived(struct mpi_host *H, const struct mpi_hdr *h, uint8_t *data) {
  if (h->type == MSG_SYNC_ACK) {
    free(data);
    if (h->sreq >= MAX_REQS || H->reqs[h->sreq].state != RS_SEND_WAIT_CTS) {
      tcp_fail(H, "an acknowledgement for no waiting synchronous send", -EPROTO);
      return;
    }
    mpi_complete(&H->reqs[h->sreq], MPI_SUCCESS);
    return;
  }
  if (h->type == MSG_SYNC) {
    /* Matched or not, the sender hears once the receive matches: at once for
     * a posted receive, else when a receive takes it off the unexpected queue. */
    const int r = mpi_take_posted(H, h);
    if (r < 0) {
      mpi_queue_unexpected_owned(H, h, data);
      return;
    }
    const struct mpi_hdr ack = {MSG_SYNC_ACK, H->rank, h->tag, h->ctx, 0, h->sreq, 0};
    queue_out(H, h->src, &ack, NULL, -1);
    mpi_deliver_eager(&H->reqs[r], h, data);
    free(data);
    return;
  }
  const int r = mpi_take_posted(H, h);
  if (r < 0) {
    mpi_queue_unexpected_owned(H, h, data);
    return;
  }
  mpi_deliver_eager(&H->reqs[r], h, data);
  free(data);
}

/* Reads what the peer's socket has, without waiting; whole messages go on. */
static void read_peer(struct mpi_host *H, int p) {
  struct tcp_peer *P = &H->tcp->peers[p];
  while (P->sd >= 0 && !P->closed) {
    long rc;
    if (P->in_got < HDR_BYTES) {
      rc = m2host_tcp_recv(P->sd, (uint8_t *)&P->in_h + P->in_got, HDR_BYTES - P->in_got, 1);
    } else {
      const size_t want = (size_t)P->in_h.len - (P->in_got - HDR_BYTES);
      rc = m2host_tcp_recv(P->sd, P->in_data + (P->in_got - HDR_BYTES), want, 1);
    }
    if (rc == -EAGAIN) return;
    if (rc == 0) {
      /* The peer closed: normal after its MPI_Finalize, an error mid-message. */
      if (P->in_got) tcp_fail(H, "a rank closed its connection in the middle of a message", -ECONNRESET);
      P->closed = 1;
      return;
    }
    if (rc < 0) {
      tcp_fail(H, "reading from a rank's connection", rc);
      return;
    }
    P->in_got += (size_t)rc;
    if (P->in_got == HDR_BYTES && P->in_h.len) {
      P->in_data = malloc((size_t)P->in_h.len);
      if (!P->in_data) {
        mpi_fail(H, "MPI (device tcp)", MPI_ERR_NO_MEM, "no memory for a %llu-byte message",
                 (unsigned long long)P->in_h.len);
        return;
      }
    }
    if (P->in_got >= HDR_BYTES && P->in_got - HDR_BYTES == P->in_h.len) {
      const struct mpi_hdr h = P->in_h;
      uint8_t *data = P->in_data;
      P->in_data = NULL;
      P->in_got = 0;
      arrived(H, &h, data);
    }
  }
}

/* ---- leaving messages ----------------------------------------------------------- */

/* Writes what the peer's socket takes now, oldest message first. */
static void write_peer(struct mpi_host *H, int p) {
  struct tcp_peer *P = &H->tcp->peers[p];
  while (P->out_head) {
    struct tcp_out *o = P->out_head;
    const size_t total = HDR_BYTES + (size_t)o->h.len;
    while (o->sent < total) {
      long rc;
      if (o->packed) rc = m2host_tcp_send(P->sd, o->packed + o->sent, total - o->sent, 1);
      else if (o->sent < HDR_BYTES)
        rc = m2host_tcp_send(P->sd, (const uint8_t *)&o->h + o->sent, HDR_BYTES - o->sent, 1);
      else rc = m2host_tcp_send(P->sd, o->data + (o->sent - HDR_BYTES), total - o->sent, 1);
      if (rc == -EAGAIN) return;
      if (rc < 0) {
        tcp_fail(H, "writing to a rank's connection", rc);
        return;
      }
      o->sent += (size_t)rc;
    }
    P->out_head = o->next;
    if (!P->out_head) P->out_tail = NULL;
    /* A standard send is complete when its data is in the socket; a
     * synchronous one waits for the receiver's acknowledgement. */
    if (o->req >= 0 && o->h.type != MSG_SYNC && !o->packed) mpi_complete(&H->reqs[o->req], MPI_SUCCESS);
    free(o->packed);
    free(o);
  }
}

static void queue_out(struct mpi_host *H, int dest, const struct mpi_hdr *h, const void *data, int req) {
  if (dest == H->rank) {
    /* To itself: no socket; the message arrives at once through the device's buffer. */
    uint8_t *copy = NULL;
    if (h->len) {
      copy = malloc((size_t)h->len);
      if (!copy) {
        mpi_fail(H, "MPI (device tcp)", MPI_ERR_NO_MEM, "no memory for a message to itself");
        return;
      }
      m2host_memcpy(copy, data, (size_t)h->len);
    }
    if (req >= 0 && h->type != MSG_SYNC) mpi_complete(&H->reqs[req], MPI_SUCCESS);
    arrived(H, h, copy);
    return;
  }
  struct tcp_out *o = calloc(1, sizeof *o);
  if (!o) {
    mpi_fail(H, "MPI (device tcp)", MPI_ERR_NO_MEM, "no memory for a send");
    return;
  }
  o->h = *h;
  o->data = data;
  o->req = req;
  if (h->len <= MPI_TCP_SHORT) {
    /* One packet, one write; the user's buffer is free at once. */
    o->packed = malloc(HDR_BYTES + (size_t)h->len);
    if (!o->packed) {
      free(o);
      mpi_fail(H, "MPI (device tcp)", MPI_ERR_NO_MEM, "no memory for a send");
      return;
    }
    memcpy(o->packed, h, HDR_BYTES);
    if (h->len) m2host_memcpy(o->packed + HDR_BYTES, data, (size_t)h->len);
    if (req >= 0 && h->type != MSG_SYNC) mpi_complete(&H->reqs[req], MPI_SUCCESS);
  }
  struct tcp_peer *P = &H->tcp->peers[dest];
  if (P->out_tail) P->out_tail->next = o;
  else P->out_head = o;
  P->out_tail = o;
  write_peer(H, dest);
}

/* ---- the device ------------------------------------------------------------------ */

static void tcp_progress(struct mpi_host *H) {
  for (int p = 0; p < H->size; p++) {
    if (H->tcp->peers[p].sd < 0) continue;
    write_peer(H, p);
    read_peer(H, p);
  }
}

/* Sleeps in poll(2) until a connection can be read, or written where output
 * waits (or timeout_us passes; < 0: no limit). */
static void tcp_wait(struct mpi_host *H, double timeout_us) {
  struct mpi_tcp *T = H->tcp;
  int n = 0;
  for (int p = 0; p < H->size; p++) {
    const struct tcp_peer *P = &T->peers[p];
    if (P->sd < 0 || P->closed) continue;
    T->poll_sds[n] = P->sd;
    T->poll_events[n] = (short)(POLLIN | (P->out_head ? POLLOUT : 0));
    n++;
  }
  m2host_tcp_poll(T->poll_sds, T->poll_events, T->poll_revents, n, timeout_us);
}

static void tcp_advance(struct mpi_host *H, int r, int may_wait) {
  if (!may_wait || H->reqs[r].state == RS_DONE) return;
  const int peer = H->reqs[r].peer;
  if (peer >= 0 && peer < H->size && peer != H->rank && H->tcp->peers[peer].closed && !H->reqs[r].is_send) {
    tcp_fail(H, "waiting for a message from a rank that closed its connection", -ECONNRESET);
    return;
  }
  /* Nothing here ever needs a period: a message from anyone wakes the poll. */
  tcp_wait(H, -1);
}

static void tcp_wait_peer(struct mpi_host *H, int peer) {
  (void)peer;
  tcp_wait(H, -1);
}

static int tcp_isend(struct mpi_host *H, const void *buf, size_t bytes, int dest, int tag, int ctx, int sync) {
  const int r = mpi_req_new(H, 1, buf, bytes, dest, tag, ctx);
  if (r < 0) return -1;
  struct mpi_req *R = &H->reqs[r];
  R->sync = sync;
  R->state = sync ? RS_SEND_WAIT_CTS : RS_SEND_DATA;
  const struct mpi_hdr h = {sync ? MSG_SYNC : MSG_EAGER, H->rank, tag, (uint32_t)ctx, bytes, (uint32_t)r, 0};
  queue_out(H, dest, &h, buf, r);
  return r;
}

static int tcp_irecv(struct mpi_host *H, void *buf, size_t bytes, int src, int tag, int ctx) {
  const int r = mpi_req_new(H, 0, buf, bytes, src, tag, ctx);
  if (r < 0) return -1;
  struct mpi_req *R = &H->reqs[r];
  struct unexpected *u = mpi_take_unexpected(H, src, tag, ctx);
  if (!u) {
    mpi_post_recv(H, r);
    return r;
  }
  if (u->h.type == MSG_SYNC) {
    const struct mpi_hdr ack = {MSG_SYNC_ACK, H->rank, u->h.tag, u->h.ctx, 0, u->h.sreq, 0};
    queue_out(H, u->h.src, &ack, NULL, -1);
  }
  mpi_deliver_eager(R, &u->h, u->data);
  free(u->data);
  free(u);
  return r;
}

/* Connects the ranks pairwise: each listens, connects to every lower rank
 * (saying who it is in 4 bytes) and accepts every higher one. A lower rank
 * not listening yet refuses: the connect is tried again a millisecond later,
 * as p4 retries. */
static int tcp_start(struct mpi_host *H) {
  struct mpi_tcp *T = calloc(1, sizeof *T);
  if (!T) return MPI_ERR_NO_MEM;
  H->tcp = T;
  T->peers = calloc((size_t)H->size, sizeof *T->peers);
  T->poll_sds = calloc((size_t)H->size, sizeof *T->poll_sds);
  T->poll_events = calloc((size_t)H->size, sizeof *T->poll_events);
  T->poll_revents = calloc((size_t)H->size, sizeof *T->poll_revents);
  if (!T->peers || !T->poll_sds || !T->poll_events || !T->poll_revents) return MPI_ERR_NO_MEM;
  for (int p = 0; p < H->size; p++) T->peers[p].sd = -1;
  T->listen_sd = m2host_tcp_socket();
  if (T->listen_sd < 0) return tcp_fail(H, "socket", T->listen_sd);
  m2host_tcp_setopt(T->listen_sd, SOL_SOCKET, SO_REUSEADDR, 1);
  const int lrc = m2host_tcp_listen(T->listen_sd, MPI_TCP_PORT, H->size);
  if (lrc < 0) return tcp_fail(H, "listening on MPI's port", lrc);
  for (int p = 0; p < H->rank; p++) {
    int sd = -1;
    for (int attempt = 0;; attempt++) {
      sd = m2host_tcp_socket();
      if (sd < 0) return tcp_fail(H, "socket", sd);
      const int rc = m2host_tcp_connect(sd, p, MPI_TCP_PORT);
      if (rc == 0) break;
      m2host_tcp_close(sd);
      if (rc != -ECONNREFUSED || attempt == 1000) return tcp_fail(H, "connecting to a lower rank", rc);
      m2host_tcp_poll(NULL, NULL, NULL, 0, 1000.0);
    }
    const int32_t me = H->rank;
    const long rc = m2host_tcp_send(sd, &me, sizeof me, 0);
    if (rc != (long)sizeof me) return tcp_fail(H, "greeting a lower rank", rc < 0 ? rc : -EPROTO);
    T->peers[p].sd = sd;
  }
  for (int k = H->rank + 1; k < H->size; k++) {
    int node = -1;
    const int sd = m2host_tcp_accept(T->listen_sd, &node);
    if (sd < 0) return tcp_fail(H, "accepting a higher rank", sd);
    int32_t who = -1;
    size_t got = 0;
    while (got < sizeof who) {
      const long rc = m2host_tcp_recv(sd, (uint8_t *)&who + got, sizeof who - got, 0);
      if (rc <= 0) return tcp_fail(H, "reading a higher rank's greeting", rc < 0 ? rc : -ECONNRESET);
      got += (size_t)rc;
    }
    if (who <= H->rank || who >= H->size || T->peers[who].sd >= 0)
      return tcp_fail(H, "a connection that is no higher rank's", -EPROTO);
    T->peers[who].sd = sd;
  }
  /* Small messages go at once, as p4 sets on its sockets (no Nagle delay). */
  for (int p = 0; p < H->size; p++)
    if (T->peers[p].sd >= 0) m2host_tcp_setopt(T->peers[p].sd, IPPROTO_TCP, TCP_NODELAY, 1);
  return MPI_SUCCESS;
}

static void tcp_stop(struct mpi_host *H) {
  struct mpi_tcp *T = H->tcp;
  if (!T) return;
  /* Everything queued goes out before the connections close. */
  for (int p = 0; p < H->size; p++)
    while (T->peers[p].out_head && !T->peers[p].closed) {
      write_peer(H, p);
      if (T->peers[p].out_head) tcp_wait(H, -1);
    }
  for (int p = 0; p < H->size; p++) {
    if (T->peers[p].sd >= 0) m2host_tcp_close(T->peers[p].sd);
    free(T->peers[p].in_data);
  }
  if (T->listen_sd >= 0) m2host_tcp_close(T->listen_sd);
  free(T->peers);
  free(T->poll_sds);
  free(T->poll_events);
  free(T->poll_revents);
  free(T);
  H->tcp = NULL;
}

const struct mpi_device mpi_tcp_device = {"tcp",     tcp_start,    tcp_stop,    tcp_isend,
                                          tcp_irecv, tcp_progress, tcp_advance, tcp_wait_peer};
