/* MPI point to point: argument checks and handles over the protocol engine
 * (mpi_engine.c). */
#include "host/host_env.h"
#include "mpi_internal.h"

/* Checks a buffer description; its length in bytes through *bytes. */
static int check_buf(struct mpi_host *H, const char *fn, const void *buf, int count, MPI_Datatype type, size_t *bytes) {
  const int size = mpi_type_size(type);
  if (size < 0) return mpi_fail(H, fn, MPI_ERR_TYPE, "datatype 0x%x is not a basic datatype", (unsigned)type);
  if (count < 0) return mpi_fail(H, fn, MPI_ERR_COUNT, "count %d", count);
  if (count > 0 && !buf) return mpi_fail(H, fn, MPI_ERR_BUFFER, "NULL buffer for %d elements", count);
  *bytes = (size_t)count * (size_t)size;
  return MPI_SUCCESS;
}

/* Checks the peer and tag of a call; the peer's world rank through *world. */
static int check_peer(struct mpi_host *H, const char *fn, MPI_Comm comm, int rank, int tag, int is_recv, int *ctx,
                      int *world) {
  int size, me;
  int rc = mpi_comm_check(H, fn, comm, ctx, &size, &me);
  if (rc != MPI_SUCCESS) return rc;
  if (!(rank >= 0 && rank < size) && rank != MPI_PROC_NULL && !(is_recv && rank == MPI_ANY_SOURCE))
    return mpi_fail(H, fn, MPI_ERR_RANK, "rank %d (communicator of %d)", rank, size);
  if (tag < 0 && !(is_recv && tag == MPI_ANY_TAG)) return mpi_fail(H, fn, MPI_ERR_TAG, "tag %d", tag);
  *world = rank >= 0 ? mpi_world_rank(comm, H, rank) : rank;
  return MPI_SUCCESS;
}

static int to_handle(int r) { return REQ_HANDLE_BASE + r; }

static int from_handle(struct mpi_host *H, MPI_Request h) {
  const int r = h - REQ_HANDLE_BASE;
  return r >= 0 && r < MAX_REQS && H->reqs[r].state != RS_FREE ? r : -1;
}

static int start(struct mpi_host *H, const char *fn, int is_send, const void *buf, int count, MPI_Datatype type,
                 int rank, int tag, MPI_Comm comm, int sync, int *req) {
  size_t bytes = 0;
  int ctx = 0, world = 0;
  int rc = check_buf(H, fn, buf, count, type, &bytes);
  if (rc == MPI_SUCCESS) rc = check_peer(H, fn, comm, rank, tag, !is_send, &ctx, &world);
  if (rc != MPI_SUCCESS) return rc;
  if (world == MPI_PROC_NULL) {
    *req = -2; /* nothing to do */
    return MPI_SUCCESS;
  }
  *req = is_send ? mpi_isend(H, buf, bytes, world, tag, ctx, sync) : mpi_irecv(H, (void *)buf, bytes, world, tag, ctx);
  if (*req >= 0) H->reqs[*req].comm_self = comm == MPI_COMM_SELF;
  return MPI_SUCCESS;
}

static void proc_null_status(MPI_Status *status) {
  if (!status || status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_PROC_NULL;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  status->count_lo = status->count_hi_and_cancelled = 0;
}

/* The empty status of a Wait or Test on MPI_REQUEST_NULL (MPI 3.1, 3.7.3):
 * source MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0. */
static void empty_status(MPI_Status *status) {
  proc_null_status(status);
  if (status && status != MPI_STATUS_IGNORE) status->MPI_SOURCE = MPI_ANY_SOURCE;
}

/* Waits for r (-2: a MPI_PROC_NULL operation) and reports it. */
static int finish(struct mpi_host *H, const char *fn, int r, MPI_Status *status) {
  if (r == -2) {
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  mpi_wait_req(H, r);
  const int err = mpi_req_finish(H, r, status);
  return err == MPI_SUCCESS ? err : mpi_fail(H, fn, err, "the message");
}

static int send_common(const char *fn, const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                       int sync) {
  struct mpi_host *H = mpi_ready(fn);
  int r;
  const int rc = start(H, fn, 1, buf, count, type, dest, tag, comm, sync, &r);
  return rc != MPI_SUCCESS ? rc : finish(H, fn, r, MPI_STATUS_IGNORE);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_common("MPI_Send", buf, count, datatype, dest, tag, comm, 0);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send_common("MPI_Ssend", buf, count, datatype, dest, tag, comm, 1);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) {
  struct mpi_host *H = mpi_ready("MPI_Recv");
  int r;
  const int rc = start(H, "MPI_Recv", 0, buf, count, datatype, source, tag, comm, 0, &r);
  return rc != MPI_SUCCESS ? rc : finish(H, "MPI_Recv", r, status);
}

static int istart(const char *fn, int is_send, const void *buf, int count, MPI_Datatype type, int rank, int tag,
                  MPI_Comm comm, MPI_Request *request) {
  struct mpi_host *H = mpi_ready(fn);
  if (!request) return mpi_fail(H, fn, MPI_ERR_ARG, "request is NULL");
  int r;
  const int rc = start(H, fn, is_send, buf, count, type, rank, tag, comm, 0, &r);
  if (rc != MPI_SUCCESS) return rc;
  if (r == -2) {
    r = mpi_null_req(H); /* MPI_PROC_NULL: complete at once */
    if (r < 0) return MPI_ERR_INTERN;
  }
  *request = to_handle(r);
  return MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
  return istart("MPI_Isend", 1, buf, count, datatype, dest, tag, comm, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) {
  return istart("MPI_Irecv", 0, buf, count, datatype, source, tag, comm, request);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  struct mpi_host *H = mpi_ready("MPI_Wait");
  if (!request) return mpi_fail(H, "MPI_Wait", MPI_ERR_REQUEST, "request is NULL");
  if (*request == MPI_REQUEST_NULL) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  const int r = from_handle(H, *request);
  if (r < 0) return mpi_fail(H, "MPI_Wait", MPI_ERR_REQUEST, "request 0x%x", (unsigned)*request);
  *request = MPI_REQUEST_NULL;
  return finish(H, "MPI_Wait", r, status);
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  struct mpi_host *H = mpi_ready("MPI_Waitall");
  if (count < 0 || (count > 0 && !array_of_requests)) return mpi_fail(H, "MPI_Waitall", MPI_ERR_ARG, "count %d", count);
  int any_error = 0;
  const int saved = H->errors_return;
  H->errors_return = 1; /* collect, then report once */
  for (int i = 0; i < count; i++) {
    MPI_Status *st = array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[i];
    const int rc = MPI_Wait(&array_of_requests[i], st);
    if (rc != MPI_SUCCESS) any_error = 1;
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = rc;
  }
  H->errors_return = saved;
  return any_error ? mpi_fail(H, "MPI_Waitall", MPI_ERR_IN_STATUS, "a request failed") : MPI_SUCCESS;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  struct mpi_host *H = mpi_ready("MPI_Test");
  if (!request || !flag) return mpi_fail(H, "MPI_Test", MPI_ERR_ARG, "NULL argument");
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  const int r = from_handle(H, *request);
  if (r < 0) return mpi_fail(H, "MPI_Test", MPI_ERR_REQUEST, "request 0x%x", (unsigned)*request);
  *flag = mpi_test_req(H, r);
  if (!*flag) return MPI_SUCCESS;
  *request = MPI_REQUEST_NULL;
  return finish(H, "MPI_Test", r, status);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  struct mpi_host *H = mpi_ready("MPI_Sendrecv");
  int rr, sr;
  int rc = start(H, "MPI_Sendrecv", 0, recvbuf, recvcount, recvtype, source, recvtag, comm, 0, &rr);
  if (rc == MPI_SUCCESS) rc = start(H, "MPI_Sendrecv", 1, sendbuf, sendcount, sendtype, dest, sendtag, comm, 0, &sr);
  if (rc != MPI_SUCCESS) return rc;
  rc = finish(H, "MPI_Sendrecv", sr, MPI_STATUS_IGNORE);
  const int rc2 = finish(H, "MPI_Sendrecv", rr, status);
  return rc != MPI_SUCCESS ? rc : rc2;
}

static int probe(const char *fn, int source, int tag, MPI_Comm comm, int wait, int *flag, MPI_Status *status) {
  struct mpi_host *H = mpi_ready(fn);
  int ctx, world;
  const int rc = check_peer(H, fn, comm, source, tag, 1, &ctx, &world);
  if (rc != MPI_SUCCESS) return rc;
  if (world == MPI_PROC_NULL) {
    if (flag) *flag = 1;
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  const struct mpi_hdr *h = mpi_probe(H, world, tag, ctx, wait);
  if (flag) *flag = h != NULL;
  if (h && status && status != MPI_STATUS_IGNORE) {
    status->MPI_SOURCE = comm == MPI_COMM_SELF ? 0 : h->src;
    status->MPI_TAG = h->tag;
    status->MPI_ERROR = MPI_SUCCESS;
    status->count_lo = (int)(h->len & 0xFFFFFFFFu);
    status->count_hi_and_cancelled = (int)((h->len >> 32) << 1);
  }
  return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  return probe("MPI_Probe", source, tag, comm, 1, NULL, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  if (!flag) return mpi_fail(mpi_self(), "MPI_Iprobe", MPI_ERR_ARG, "flag is NULL");
  return probe("MPI_Iprobe", source, tag, comm, 0, flag, status);
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) {
  const int size = mpi_type_size(datatype);
  if (!status || status == MPI_STATUS_IGNORE || !count)
    return mpi_fail(mpi_self(), "MPI_Get_count", MPI_ERR_ARG, "NULL status or count");
  if (size < 0) return mpi_fail(mpi_self(), "MPI_Get_count", MPI_ERR_TYPE, "datatype 0x%x", (unsigned)datatype);
  const unsigned long long bytes = (unsigned long long)(unsigned)status->count_lo |
                                   (unsigned long long)((unsigned)status->count_hi_and_cancelled >> 1) << 32;
  if (size == 0) *count = 0;
  else *count = bytes % (unsigned)size ? MPI_UNDEFINED : (int)(bytes / (unsigned)size);
  return MPI_SUCCESS;
}
