/* The MPI entry points of the platform's libmpich.so.12 (MPICH ABI; the
 * prototypes come from the project's mpi.h). Each one stages its buffers
 * in the shared arena, sends the call to the simulated host, which runs the
 * platform's MPI library (sw/host/mpi) in simulated time, and copies the
 * results back. Nothing of MPI is implemented here: only the move of
 * arguments and data. Argument layout: ../../mpi_calls.h. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "mpi.h"
#include "../shim.h"

#define NONE (-1)

/* Tells the preloaded library (transport.c) that this is an MPI program. */
const int m2s_mpi_library = 1;

__attribute__((constructor)) static void m2s_mpi_program_starts(void) { m2s_greet_early(); }

/* ---- helpers --------------------------------------------------------------- */

/* Bytes of `count` elements of `type`; a type the platform lacks ends the run. */
static size_t payload(int count, MPI_Datatype type, const char *fn) {
  const int64_t each = m2x_type_bytes((int32_t)type);
  if (each == 0 && count > 0) {
    char what[M2X_NAME_BYTES];
    snprintf(what, sizeof what, "%s with datatype 0x%08x (only predefined types)", fn, (unsigned)type);
    m2s_unsupported(what);
  }
  return count > 0 ? (size_t)count * (size_t)each : 0;
}

static int comm_size(MPI_Comm comm) { return comm == MPI_COMM_SELF ? 1 : m2s_world_size(); }
static int comm_rank(MPI_Comm comm) { return comm == MPI_COMM_SELF ? 0 : m2s_world_rank(); }

static void copy_status(MPI_Status *status, const struct m2x_reply *rp) {
  if (status != MPI_STATUS_IGNORE && status) memcpy(status, rp->status, M2X_STATUS_INTS * sizeof(int));
}

/* A request's buffer while the call is in flight. */
struct pending {
  MPI_Request req;
  int64_t off;
  void *user; /* receive: where the data goes at completion; NULL for a send */
  size_t bytes;
  struct pending *next;
};
static struct pending *g_pending;

static void remember(MPI_Request req, int64_t off, void *user, size_t bytes) {
  struct pending *p = malloc(sizeof *p);
  if (!p) abort();
  p->req = req, p->off = off, p->user = user, p->bytes = bytes, p->next = g_pending;
  g_pending = p;
}

/* Request `req` completed with `received` bytes: its data to the program. */
static void complete(MPI_Request req, int64_t received) {
  for (struct pending **pp = &g_pending; *pp; pp = &(*pp)->next) {
    struct pending *p = *pp;
    if (p->req != req) continue;
    if (p->user && received > 0)
      memcpy(p->user, m2s_ptr(p->off), (size_t)received < p->bytes ? (size_t)received : p->bytes);
    m2s_free(p->off);
    *pp = p->next;
    free(p);
    return;
  }
}

static void copy_out(void *dst, int64_t off, int64_t received, size_t room) {
  if (dst && received > 0) memcpy(dst, m2s_ptr(off), (size_t)received < room ? (size_t)received : room);
}

/* Every entry point starts here (the helpers send_like and reduce_like
 * check under the public name first). */
#define CALL                  \
  m2s_check_thread(__func__); \
  struct m2x_request rq;      \
  struct m2x_reply rp;        \
  memset(&rq, 0, sizeof rq)
#define SEND_CALL(fn) m2s_call(M2X_MPI_##fn, &rq, &rp)

/* ---- environment ----------------------------------------------------------- */

int MPI_Init(int *argc, char ***argv) {
  m2s_mpi_thread_is_me();
  CALL;
  (void)argc, (void)argv;
  SEND_CALL(INIT);
  return (int)rp.ret;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  m2s_mpi_thread_is_me();
  CALL;
  (void)argc, (void)argv;
  rq.a[0] = required;
  SEND_CALL(INIT_THREAD);
  *provided = (int)rp.out[0];
  return (int)rp.ret;
}

int MPI_Get_version(int *version, int *subversion) {
  CALL;
  SEND_CALL(GET_VERSION);
  *version = (int)rp.out[0];
  *subversion = (int)rp.out[1];
  return (int)rp.ret;
}

int MPI_Type_size(MPI_Datatype type, int *size) {
  CALL;
  rq.a[0] = type;
  SEND_CALL(TYPE_SIZE);
  *size = (int)rp.out[0];
  return (int)rp.ret;
}

int MPI_Error_string(int code, char *string, int *resultlen) {
  CALL;
  rq.a[0] = code;
  rq.a[1] = m2s_alloc(M2X_ERROR_STRING, string, "MPI_Error_string");
  SEND_CALL(ERROR_STRING);
  memcpy(string, m2s_ptr(rq.a[1]), M2X_ERROR_STRING);
  string[M2X_ERROR_STRING - 1] = '\0';
  *resultlen = (int)rp.out[0];
  m2s_free(rq.a[1]);
  return (int)rp.ret;
}

int MPI_Initialized(int *flag) {
  CALL;
  SEND_CALL(INITIALIZED);
  *flag = (int)rp.out[0];
  return (int)rp.ret;
}

int MPI_Finalize(void) {
  CALL;
  SEND_CALL(FINALIZE);
  return (int)rp.ret;
}

int MPI_Finalized(int *flag) {
  CALL;
  SEND_CALL(FINALIZED);
  *flag = (int)rp.out[0];
  return (int)rp.ret;
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  CALL;
  rq.a[0] = comm, rq.a[1] = errorcode;
  SEND_CALL(ABORT);
  (void)rp;
  _exit(errorcode ? errorcode : 1); /* the run ends; the simulator stops this process */
}

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
  CALL;
  rq.a[0] = comm;
  SEND_CALL(COMM_RANK);
  *rank = (int)rp.out[0];
  return (int)rp.ret;
}

int MPI_Comm_size(MPI_Comm comm, int *size) {
  CALL;
  rq.a[0] = comm;
  SEND_CALL(COMM_SIZE);
  *size = (int)rp.out[0];
  return (int)rp.ret;
}

int MPI_Get_processor_name(char *name, int *resultlen) {
  CALL;
  rq.a[0] = m2s_alloc(M2X_PROCESSOR_NAME, name, "MPI_Get_processor_name");
  SEND_CALL(GET_PROCESSOR_NAME);
  const int len = (int)rp.out[0];
  memcpy(name, m2s_ptr(rq.a[0]), (size_t)(len < M2X_PROCESSOR_NAME ? len + 1 : M2X_PROCESSOR_NAME));
  name[M2X_PROCESSOR_NAME - 1] = '\0';
  *resultlen = len;
  m2s_free(rq.a[0]);
  return (int)rp.ret;
}

static double bits_to_double(int64_t bits) {
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

double MPI_Wtime(void) {
  CALL;
  SEND_CALL(WTIME);
  return bits_to_double(rp.out[0]);
}

double MPI_Wtick(void) {
  CALL;
  SEND_CALL(WTICK);
  return bits_to_double(rp.out[0]);
}

/* Errors then come back as return codes instead of ending the run (the
 * platform's library keeps the setting per host). */
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  CALL;
  rq.a[0] = comm, rq.a[1] = errhandler;
  SEND_CALL(COMM_SET_ERRHANDLER);
  return (int)rp.ret;
}

/* The program's own memory, as MPICH gives without special memory: every
 * call stages its buffers into the host's arena anyway (shim.h). */
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
  m2s_check_thread(__func__);
  (void)info;
  void *p = size > 0 ? malloc((size_t)size) : NULL;
  if (!p || !baseptr) {
    free(p);
    return MPI_ERR_NO_MEM;
  }
  memcpy(baseptr, &p, sizeof p);
  return MPI_SUCCESS;
}

int MPI_Free_mem(void *base) {
  m2s_check_thread(__func__);
  free(base);
  return MPI_SUCCESS;
}

/* ---- point to point -------------------------------------------------------- */

static int send_like(uint32_t fn, const char *name, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request) {
  m2s_check_thread(name);
  CALL;
  const size_t bytes = payload(count, type, name);
  rq.a[0] = m2s_stage(buf, bytes, name);
  rq.a[1] = count, rq.a[2] = type, rq.a[3] = dest, rq.a[4] = tag, rq.a[5] = comm;
  m2s_call(fn, &rq, &rp);
  if (request) {
    *request = (MPI_Request)rp.out[0];
    if (*request != MPI_REQUEST_NULL) remember(*request, rq.a[0], NULL, 0);
    else m2s_free(rq.a[0]);
  } else {
    m2s_free(rq.a[0]);
  }
  return (int)rp.ret;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_like(M2X_MPI_SEND, "MPI_Send", buf, count, type, dest, tag, comm, NULL);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_like(M2X_MPI_SSEND, "MPI_Ssend", buf, count, type, dest, tag, comm, NULL);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  return send_like(M2X_MPI_ISEND, "MPI_Isend", buf, count, type, dest, tag, comm, request);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status) {
  CALL;
  const size_t bytes = payload(count, type, "MPI_Recv");
  rq.a[0] = m2s_alloc(bytes, buf, "MPI_Recv");
  rq.a[1] = count, rq.a[2] = type, rq.a[3] = source, rq.a[4] = tag, rq.a[5] = comm;
  SEND_CALL(RECV);
  copy_out(buf, rq.a[0], rp.out[1], bytes);
  m2s_free(rq.a[0]);
  copy_status(status, &rp);
  return (int)rp.ret;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *request) {
  CALL;
  const size_t bytes = payload(count, type, "MPI_Irecv");
  rq.a[0] = m2s_alloc(bytes, buf, "MPI_Irecv");
  rq.a[1] = count, rq.a[2] = type, rq.a[3] = source, rq.a[4] = tag, rq.a[5] = comm;
  SEND_CALL(IRECV);
  *request = (MPI_Request)rp.out[0];
  if (*request != MPI_REQUEST_NULL) remember(*request, rq.a[0], buf, bytes);
  else m2s_free(rq.a[0]);
  return (int)rp.ret;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  CALL;
  const MPI_Request before = *request;
  rq.a[0] = before;
  SEND_CALL(WAIT);
  *request = (MPI_Request)rp.out[0];
  complete(before, rp.out[1]);
  copy_status(status, &rp);
  return (int)rp.ret;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  CALL;
  const MPI_Request before = *request;
  rq.a[0] = before;
  SEND_CALL(TEST);
  *flag = (int)rp.out[2];
  if (*flag) {
    *request = (MPI_Request)rp.out[0];
    complete(before, rp.out[1]);
    copy_status(status, &rp);
  }
  return (int)rp.ret;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  CALL;
  const size_t n = count > 0 ? (size_t)count : 0;
  rq.a[0] = count;
  rq.a[1] = m2s_stage(requests, n * sizeof(MPI_Request), "MPI_Waitall");
  rq.a[2] = m2s_alloc(n * M2X_STATUS_INTS * sizeof(int), statuses, "MPI_Waitall");
  rq.a[3] = m2s_alloc(n * sizeof(int64_t), NULL, "MPI_Waitall");
  SEND_CALL(WAITALL);
  const MPI_Request *after = m2s_ptr(rq.a[1]);
  const int64_t *received = m2s_ptr(rq.a[3]);
  for (size_t i = 0; i < n; ++i) {
    const MPI_Request before = requests[i];
    requests[i] = after[i];
    complete(before, received[i]);
  }
  if (statuses != MPI_STATUSES_IGNORE && statuses)
    memcpy(statuses, m2s_ptr(rq.a[2]), n * M2X_STATUS_INTS * sizeof(int));
  m2s_free(rq.a[1]), m2s_free(rq.a[2]), m2s_free(rq.a[3]);
  return (int)rp.ret;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  CALL;
  const size_t sbytes = payload(sendcount, sendtype, "MPI_Sendrecv");
  const size_t rbytes = payload(recvcount, recvtype, "MPI_Sendrecv");
  rq.a[0] = m2s_stage(sendbuf, sbytes, "MPI_Sendrecv");
  rq.a[1] = sendcount, rq.a[2] = sendtype, rq.a[3] = dest, rq.a[4] = sendtag;
  rq.a[5] = m2s_alloc(rbytes, recvbuf, "MPI_Sendrecv");
  rq.a[6] = recvcount, rq.a[7] = recvtype, rq.a[8] = source, rq.a[9] = recvtag, rq.a[10] = comm;
  SEND_CALL(SENDRECV);
  copy_out(recvbuf, rq.a[5], rp.out[1], rbytes);
  m2s_free(rq.a[0]), m2s_free(rq.a[5]);
  copy_status(status, &rp);
  return (int)rp.ret;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  CALL;
  rq.a[0] = source, rq.a[1] = tag, rq.a[2] = comm;
  SEND_CALL(PROBE);
  copy_status(status, &rp);
  return (int)rp.ret;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  CALL;
  rq.a[0] = source, rq.a[1] = tag, rq.a[2] = comm;
  SEND_CALL(IPROBE);
  *flag = (int)rp.out[2];
  if (*flag) copy_status(status, &rp);
  return (int)rp.ret;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype type, int *count) {
  CALL;
  const int *s = (const int *)status;
  for (int i = 0; i < M2X_STATUS_INTS; ++i) rq.a[i] = s[i];
  rq.a[5] = type;
  SEND_CALL(GET_COUNT);
  *count = (int)rp.out[0];
  return (int)rp.ret;
}

/* ---- collectives ----------------------------------------------------------- */

int MPI_Barrier(MPI_Comm comm) {
  CALL;
  rq.a[0] = comm;
  SEND_CALL(BARRIER);
  return (int)rp.ret;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  CALL;
  const size_t bytes = payload(count, type, "MPI_Bcast");
  rq.a[0] = m2s_stage(buf, bytes, "MPI_Bcast");
  rq.a[1] = count, rq.a[2] = type, rq.a[3] = root, rq.a[4] = comm;
  SEND_CALL(BCAST);
  if (rp.ret == MPI_SUCCESS && bytes) memcpy(buf, m2s_ptr(rq.a[0]), bytes);
  m2s_free(rq.a[0]);
  return (int)rp.ret;
}

/* A collective's send side: MPI_IN_PLACE travels as NONE. */
static int64_t stage_send(const void *buf, size_t bytes, const char *fn) {
  return buf == MPI_IN_PLACE ? NONE : m2s_stage(buf, bytes, fn);
}

/* Its receive side at a rank where it matters: in place, the buffer is input too. */
static int64_t stage_recv(void *buf, size_t bytes, int in_place, const char *fn) {
  return in_place ? m2s_stage(buf, bytes, fn) : m2s_alloc(bytes, buf, fn);
}

static void finish(void *buf, int64_t off, size_t bytes, int ok) {
  if (off == NONE) return;
  if (ok && buf && bytes) memcpy(buf, m2s_ptr(off), bytes);
  m2s_free(off);
}

static int reduce_like(uint32_t fn, const char *name, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                       MPI_Op op, int root, MPI_Comm comm) {
  m2s_check_thread(name);
  CALL;
  const size_t bytes = payload(count, type, name);
  const int gets = fn == M2X_MPI_ALLREDUCE || comm_rank(comm) == root;
  const int in_place = sendbuf == MPI_IN_PLACE;
  rq.a[0] = stage_send(sendbuf, bytes, name);
  rq.a[1] = gets ? stage_recv(recvbuf, bytes, in_place, name) : NONE;
  rq.a[2] = count, rq.a[3] = type, rq.a[4] = op;
  if (fn == M2X_MPI_REDUCE) rq.a[5] = root, rq.a[6] = comm;
  else rq.a[5] = comm;
  m2s_call(fn, &rq, &rp);
  if (rq.a[0] != NONE) m2s_free(rq.a[0]);
  finish(recvbuf, rq.a[1], bytes, rp.ret == MPI_SUCCESS);
  return (int)rp.ret;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  return reduce_like(M2X_MPI_REDUCE, "MPI_Reduce", sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return reduce_like(M2X_MPI_ALLREDUCE, "MPI_Allreduce", sendbuf, recvbuf, count, type, op, 0, comm);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CALL;
  const int at_root = comm_rank(comm) == root;
  const size_t sbytes = sendbuf == MPI_IN_PLACE ? 0 : payload(sendcount, sendtype, "MPI_Gather");
  const size_t rbytes = at_root ? payload(recvcount, recvtype, "MPI_Gather") * (size_t)comm_size(comm) : 0;
  rq.a[0] = stage_send(sendbuf, sbytes, "MPI_Gather");
  rq.a[1] = sendcount, rq.a[2] = sendtype;
  rq.a[3] = at_root ? stage_recv(recvbuf, rbytes, sendbuf == MPI_IN_PLACE, "MPI_Gather") : NONE;
  rq.a[4] = recvcount, rq.a[5] = recvtype, rq.a[6] = root, rq.a[7] = comm;
  SEND_CALL(GATHER);
  if (rq.a[0] != NONE) m2s_free(rq.a[0]);
  finish(recvbuf, rq.a[3], rbytes, rp.ret == MPI_SUCCESS);
  return (int)rp.ret;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  CALL;
  const size_t n = (size_t)comm_size(comm);
  const size_t rbytes = payload(recvcount, recvtype, "MPI_Alltoall") * n;
  const size_t sbytes = sendbuf == MPI_IN_PLACE ? 0 : payload(sendcount, sendtype, "MPI_Alltoall") * n;
  rq.a[0] = stage_send(sendbuf, sbytes, "MPI_Alltoall");
  rq.a[1] = sendcount, rq.a[2] = sendtype;
  rq.a[3] = stage_recv(recvbuf, rbytes, sendbuf == MPI_IN_PLACE, "MPI_Alltoall");
  rq.a[4] = recvcount, rq.a[5] = recvtype, rq.a[6] = comm;
  SEND_CALL(ALLTOALL);
  if (rq.a[0] != NONE) m2s_free(rq.a[0]);
  finish(recvbuf, rq.a[3], rbytes, rp.ret == MPI_SUCCESS);
  return (int)rp.ret;
}

/* ---- the profiling interface: PMPI_ names for every entry point ------------- */
#define PMPI(name) __typeof__(MPI_##name) PMPI_##name __attribute__((alias("MPI_" #name)));
/* A list of entries, laid out by hand (clang-format folds it into a staircase). */
/* clang-format off */
PMPI(Init) PMPI(Init_thread) PMPI(Get_version) PMPI(Type_size) PMPI(Error_string) PMPI(Initialized) PMPI(Finalize) PMPI(Finalized) PMPI(Abort)
PMPI(Comm_rank) PMPI(Comm_size) PMPI(Get_processor_name) PMPI(Wtime) PMPI(Wtick)
PMPI(Comm_set_errhandler) PMPI(Alloc_mem) PMPI(Free_mem)
PMPI(Send) PMPI(Ssend) PMPI(Isend) PMPI(Recv) PMPI(Irecv) PMPI(Wait) PMPI(Test) PMPI(Waitall)
PMPI(Sendrecv) PMPI(Probe) PMPI(Iprobe) PMPI(Get_count)
PMPI(Barrier) PMPI(Bcast) PMPI(Reduce) PMPI(Allreduce) PMPI(Gather) PMPI(Alltoall)
    /* clang-format on */
