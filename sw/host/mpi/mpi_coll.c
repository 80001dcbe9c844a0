/* MPI collectives on MPI_COMM_WORLD and MPI_COMM_SELF, over the point-to-point
 * engine in the communicator's collective context (never matched by user
 * messages). Algorithms (docs/mpi.md): barrier, reduce and gather linear
 * through rank 0 / the root, broadcast by a binomial tree, all-to-all by
 * pairwise exchange, allreduce = reduce + broadcast. Reductions combine in
 * rank order so that floating-point results do not depend on timing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_env.h"
#include "mpi_internal.h"

enum { TAG_BARRIER = 1, TAG_BCAST, TAG_REDUCE, TAG_GATHER, TAG_ALLTOALL };

struct coll {
  struct mpi_host *H;
  MPI_Comm comm;
  int ctx, size, rank;
};

static int coll_begin(const char *fn, MPI_Comm comm, struct coll *c) {
  c->H = mpi_ready(fn);
  c->comm = comm;
  int ctx;
  const int rc = mpi_comm_check(c->H, fn, comm, &ctx, &c->size, &c->rank);
  c->ctx = ctx + 1; /* the collective context */
  return rc;
}

static int world(const struct coll *c, int rank) { return mpi_world_rank(c->comm, c->H, rank); }

static void csend(const struct coll *c, const void *buf, size_t bytes, int rank, int tag) {
  const int r = mpi_isend(c->H, buf, bytes, world(c, rank), tag, c->ctx, 0);
  mpi_wait_req(c->H, r);
  mpi_req_finish(c->H, r, MPI_STATUS_IGNORE);
}

static int crecv(const struct coll *c, void *buf, size_t bytes, int rank, int tag) {
  const int r = mpi_irecv(c->H, buf, bytes, world(c, rank), tag, c->ctx);
  mpi_wait_req(c->H, r);
  return mpi_req_finish(c->H, r, MPI_STATUS_IGNORE);
}

static int check_args(const struct coll *c, const char *fn, const void *buf, int count, MPI_Datatype type,
                      size_t *bytes) {
  const int size = mpi_type_size(type);
  if (size < 0) return mpi_fail(c->H, fn, MPI_ERR_TYPE, "datatype 0x%x is not a basic datatype", (unsigned)type);
  if (count < 0) return mpi_fail(c->H, fn, MPI_ERR_COUNT, "count %d", count);
  if (count > 0 && !buf) return mpi_fail(c->H, fn, MPI_ERR_BUFFER, "NULL buffer");
  *bytes = (size_t)count * (size_t)size;
  return MPI_SUCCESS;
}

static int check_root(const struct coll *c, const char *fn, int root) {
  return root >= 0 && root < c->size ? MPI_SUCCESS : mpi_fail(c->H, fn, MPI_ERR_ROOT, "root %d", root);
}

int MPI_Barrier(MPI_Comm comm) {
  struct coll c;
  const int rc = coll_begin("MPI_Barrier", comm, &c);
  if (rc != MPI_SUCCESS || c.size == 1) return rc;
  /* Everyone checks in with rank 0, which then lets everyone go. */
  if (c.rank == 0) {
    for (int r = 1; r < c.size; r++) crecv(&c, NULL, 0, r, TAG_BARRIER);
    for (int r = 1; r < c.size; r++) csend(&c, NULL, 0, r, TAG_BARRIER);
  } else {
    csend(&c, NULL, 0, 0, TAG_BARRIER);
    crecv(&c, NULL, 0, 0, TAG_BARRIER);
  }
  return MPI_SUCCESS;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  struct coll c;
  size_t bytes;
  int rc = coll_begin("MPI_Bcast", comm, &c);
  if (rc == MPI_SUCCESS) rc = check_args(&c, "MPI_Bcast", buffer, count, datatype, &bytes);
  if (rc == MPI_SUCCESS) rc = check_root(&c, "MPI_Bcast", root);
  if (rc != MPI_SUCCESS) return rc;
  /* Binomial tree over ranks relative to the root. */
  const int me = (c.rank - root + c.size) % c.size;
  int mask = 1;
  while (mask < c.size) {
    if (me & mask) {
      crecv(&c, buffer, bytes, (me - mask + root) % c.size, TAG_BCAST);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (me + mask < c.size) csend(&c, buffer, bytes, (me + mask + root) % c.size, TAG_BCAST);
  return MPI_SUCCESS;
}

static int reduce(struct coll *c, const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                  MPI_Op op, int root) {
  size_t bytes;
  const void *mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  int rc = check_args(c, fn, mine, count, type, &bytes);
  if (rc == MPI_SUCCESS) rc = check_root(c, fn, root);
  if (rc != MPI_SUCCESS) return rc;
  /* The operation and type must combine (checked on every rank alike). */
  const int probe = mpi_reduce_apply(op, type, NULL, NULL, 0);
  if (probe != MPI_SUCCESS) return mpi_fail(c->H, fn, probe, "op 0x%x on datatype 0x%x", (unsigned)op, (unsigned)type);
  if (c->rank != root) {
    csend(c, mine, bytes, root, TAG_REDUCE);
    return MPI_SUCCESS;
  }
  if (!recvbuf && bytes) return mpi_fail(c->H, fn, MPI_ERR_BUFFER, "NULL receive buffer at the root");
  /* acc = v0 op v1 op ... in rank order. */
  uint8_t *acc = malloc(bytes ? bytes : 1), *in = malloc(bytes ? bytes : 1);
  if (!acc || !in) {
    free(acc);
    free(in);
    return mpi_fail(c->H, fn, MPI_ERR_NO_MEM, "out of memory");
  }
  for (int r = 0; r < c->size; r++) {
    uint8_t *dst = r == 0 ? acc : in;
    if (r == root) m2host_memcpy(dst, mine, bytes);
    else crecv(c, dst, bytes, r, TAG_REDUCE);
    if (r > 0) {
      mpi_reduce_apply(op, type, dst, acc, (size_t)count);
      /* Memory bound: two operand streams in, one out, 1.5 times the traffic
       * of copying the vector, at the host's copy bandwidth (the PIII's FPU
       * and ALU combine an element in a few cycles, far less). */
      m2host_compute_ns(1.5 * (double)bytes * 1e3 / c->H->p.memcpy_mbyte_per_s);
    }
  }
  m2host_memcpy(recvbuf, acc, bytes);
  free(acc);
  free(in);
  return MPI_SUCCESS;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  struct coll c;
  const int rc = coll_begin("MPI_Reduce", comm, &c);
  return rc != MPI_SUCCESS ? rc : reduce(&c, "MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  struct coll c;
  int rc = coll_begin("MPI_Allreduce", comm, &c);
  if (rc == MPI_SUCCESS) rc = reduce(&c, "MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, 0);
  return rc != MPI_SUCCESS ? rc : MPI_Bcast(recvbuf, count, datatype, 0, comm);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  struct coll c;
  size_t sbytes = 0, rbytes = 0;
  int rc = coll_begin("MPI_Gather", comm, &c);
  if (rc == MPI_SUCCESS) rc = check_root(&c, "MPI_Gather", root);
  if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
    rc = check_args(&c, "MPI_Gather", sendbuf, sendcount, sendtype, &sbytes);
  if (rc == MPI_SUCCESS && c.rank == root) rc = check_args(&c, "MPI_Gather", recvbuf, recvcount, recvtype, &rbytes);
  if (rc != MPI_SUCCESS) return rc;
  if (c.rank != root) {
    csend(&c, sendbuf, sbytes, root, TAG_GATHER);
    return MPI_SUCCESS;
  }
  if (sendbuf != MPI_IN_PLACE && sbytes != rbytes)
    return mpi_fail(c.H, "MPI_Gather", MPI_ERR_TRUNCATE, "root sends %zu bytes but receives %zu per rank", sbytes,
                    rbytes);
  for (int r = 0; r < c.size; r++) {
    uint8_t *dst = (uint8_t *)recvbuf + (size_t)r * rbytes;
    if (r == root) {
      if (sendbuf != MPI_IN_PLACE) m2host_memcpy(dst, sendbuf, rbytes);
    } else if (crecv(&c, dst, rbytes, r, TAG_GATHER) != MPI_SUCCESS) {
      return mpi_fail(c.H, "MPI_Gather", MPI_ERR_TRUNCATE, "rank %d sent more than %zu bytes", r, rbytes);
    }
  }
  return MPI_SUCCESS;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  struct coll c;
  size_t sbytes = 0, rbytes = 0;
  const int in_place = sendbuf == MPI_IN_PLACE;
  int rc = coll_begin("MPI_Alltoall", comm, &c);
  if (rc == MPI_SUCCESS && !in_place) rc = check_args(&c, "MPI_Alltoall", sendbuf, sendcount, sendtype, &sbytes);
  if (rc == MPI_SUCCESS) rc = check_args(&c, "MPI_Alltoall", recvbuf, recvcount, recvtype, &rbytes);
  if (in_place) sbytes = rbytes;
  if (rc == MPI_SUCCESS && sbytes != rbytes)
    rc = mpi_fail(c.H, "MPI_Alltoall", MPI_ERR_TRUNCATE, "sends %zu bytes per rank but receives %zu", sbytes, rbytes);
  if (rc != MPI_SUCCESS) return rc;
  /* In place (MPI 2.2): what goes out is what recvbuf holds now, sent from
   * a copy since the receives overwrite it (the copy is host time too). */
  void *copy = NULL;
  if (in_place) {
    copy = malloc(rbytes * (size_t)c.size + 1);
    if (!copy) return mpi_fail(c.H, "MPI_Alltoall", MPI_ERR_NO_MEM, "out of memory");
    m2host_memcpy(copy, recvbuf, rbytes * (size_t)c.size);
    sendbuf = copy;
  }
  /* Every receive posted first, then the sends in a rotated order (rank + k)
   * so that not everyone sends to rank 0 at once. */
  int *reqs = malloc(sizeof(int) * (size_t)(2 * c.size));
  if (!reqs) {
    free(copy);
    return mpi_fail(c.H, "MPI_Alltoall", MPI_ERR_NO_MEM, "out of memory");
  }
  int n = 0;
  for (int k = 1; k < c.size; k++) {
    const int from = (c.rank - k + c.size) % c.size;
    reqs[n++] =
        mpi_irecv(c.H, (uint8_t *)recvbuf + (size_t)from * rbytes, rbytes, world(&c, from), TAG_ALLTOALL, c.ctx);
  }
  for (int k = 1; k < c.size; k++) {
    const int to = (c.rank + k) % c.size;
    reqs[n++] =
        mpi_isend(c.H, (const uint8_t *)sendbuf + (size_t)to * sbytes, sbytes, world(&c, to), TAG_ALLTOALL, c.ctx, 0);
  }
  if (!in_place) /* in place, its own block is already there */
    m2host_memcpy((uint8_t *)recvbuf + (size_t)c.rank * rbytes, (const uint8_t *)sendbuf + (size_t)c.rank * sbytes,
                  sbytes);
  int err = MPI_SUCCESS;
  for (int i = 0; i < n; i++) {
    mpi_wait_req(c.H, reqs[i]);
    if (mpi_req_finish(c.H, reqs[i], MPI_STATUS_IGNORE) != MPI_SUCCESS) err = MPI_ERR_TRUNCATE;
  }
  free(reqs);
  free(copy);
  return err == MPI_SUCCESS ? err : mpi_fail(c.H, "MPI_Alltoall", err, "a block was longer than expected");
}
