/* MPI's environment: per-host state, Init/Finalize, communicators, errors,
 * time, memory, and the functions the library does not implement (they end
 * the run naming themselves). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_env.h"
#include "mpi_internal.h"

static struct mpi_host *g_hosts[MAX_RANKS];

struct mpi_host *mpi_self(void) {
  const int id = m2host_id();
  if (id < 0 || id >= MAX_RANKS) m2host_abort(1, "MPI: host %d is beyond the library's %d hosts", id, MAX_RANKS);
  if (!g_hosts[id]) {
    g_hosts[id] = calloc(1, sizeof(struct mpi_host));
    if (!g_hosts[id]) m2host_abort(1, "MPI: out of memory");
  }
  return g_hosts[id];
}

struct mpi_host *mpi_ready(const char *fn) {
  struct mpi_host *H = mpi_self();
  if (!H->initialized || H->finalized)
    m2host_abort(1, "%s called %s MPI_Init", fn, H->finalized ? "after MPI_Finalize, not between" : "before");
  m2host_compute_cycles(H->p.call_cycles);
  return H;
}

const char *mpi_error_text(int code) {
  switch (code) {
    case MPI_SUCCESS:
      return "no error";
    case MPI_ERR_BUFFER:
      return "invalid buffer pointer";
    case MPI_ERR_COUNT:
      return "invalid count";
    case MPI_ERR_TYPE:
      return "invalid datatype";
    case MPI_ERR_TAG:
      return "invalid tag";
    case MPI_ERR_COMM:
      return "invalid communicator";
    case MPI_ERR_RANK:
      return "invalid rank";
    case MPI_ERR_ROOT:
      return "invalid root";
    case MPI_ERR_OP:
      return "invalid reduction operation";
    case MPI_ERR_ARG:
      return "invalid argument";
    case MPI_ERR_TRUNCATE:
      return "message truncated";
    case MPI_ERR_REQUEST:
      return "invalid request";
    case MPI_ERR_NO_MEM:
      return "out of memory";
    case MPI_ERR_INTERN:
      return "internal error";
    case MPI_ERR_IN_STATUS:
      return "error code in status";
    default:
      return "unknown error";
  }
}

int mpi_fail(struct mpi_host *H, const char *fn, int code, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  /* Internal errors are fatal whatever the handler. */
  if (H && H->errors_return && code != MPI_ERR_INTERN && code != MPI_ERR_NO_MEM) return code;
  m2host_abort(1, "%s: %s (%s)", fn, what, mpi_error_text(code));
}

void m2mpi_unimplemented(const char *name) {
  m2host_abort(1, "%s is not implemented by the platform's MPI library (docs/mpi.md lists what is)", name);
}

/* ---- parameters ----------------------------------------------------------- */

static double param(const char *name, double fallback) {
  double v = fallback;
  if (m2host_param(name, &v) != 0) v = fallback; /* a platform without MPI parameters: the defaults */
  return v;
}

static void read_params(struct mpi_params *p) {
  p->eager_limit = (size_t)param("mpi.eager_limit", 1952);
  p->zcopy_threshold = (size_t)param("mpi.zcopy_threshold", 16384);
  p->pin_cache = param("mpi.pin_cache", 0) != 0;
  p->pin_cache_bytes = (size_t)param("mpi.pin_cache_bytes", 64.0 * 1024 * 1024);
  p->eager_slots = (int)param("mpi.eager_slots", 8);
  p->call_cycles = (uint64_t)param("mpi.call_cycles", 200);
  p->match_cycles = (uint64_t)param("mpi.match_cycles", 25);
  p->memcpy_mbyte_per_s = param("memcpy_mbyte_per_s", 300);
  p->poll_us = param("mpi.progress_poll_us", 5);
  char device[16] = "mmp";
  if (m2host_param_text("mpi.device", device, sizeof device) != 0) strcpy(device, "mmp");
  p->tcp = strcmp(device, "tcp") == 0;
}

/* ---- init and finalize ---------------------------------------------------------- */

int MPI_Init(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  struct mpi_host *H = mpi_self();
  if (H->initialized) return mpi_fail(H, "MPI_Init", MPI_ERR_OTHER, "called twice");
  read_params(&H->p);
  m2host_compute_cycles(H->p.call_cycles);
  /* World: every host of the platform, rank = host number. */
  H->rank = m2host_id();
  H->size = m2host_count();
  H->dev = H->p.tcp ? &mpi_tcp_device : &mpi_mmp_device;
  if (!H->p.tcp) {
    H->me = MMP_initialize(MMP_Make_connect(0, MPI_MMP_PORT), NULL);
    if (!H->me)
      return mpi_fail(H, "MPI_Init", MPI_ERR_INTERN, "MMP_initialize failed: %s", MMP_strerror(MMP_last_error()));
    H->peers = calloc((size_t)H->size, sizeof *H->peers);
    if (!H->peers) return mpi_fail(H, "MPI_Init", MPI_ERR_NO_MEM, "out of memory");
    for (int r = 0; r < H->size; r++) H->peers[r] = MMP_Make_connect(MMP_PNA(r), MPI_MMP_PORT);
  }
  const int rc = mpi_engine_start(H);
  if (rc != MPI_SUCCESS) return mpi_fail(H, "MPI_Init", rc, "cannot set up the control channels");
  H->initialized = 1;
  /* Every rank's channels are posted before anyone's first message. */
  return MPI_Barrier(MPI_COMM_WORLD);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  (void)required;
  if (provided) *provided = MPI_THREAD_SINGLE; /* one thread per simulated host */
  return MPI_Init(argc, argv);
}

int MPI_Initialized(int *flag) {
  if (!flag) return mpi_fail(mpi_self(), "MPI_Initialized", MPI_ERR_ARG, "flag is NULL");
  *flag = mpi_self()->initialized;
  return MPI_SUCCESS;
}

int MPI_Finalized(int *flag) {
  if (!flag) return mpi_fail(mpi_self(), "MPI_Finalized", MPI_ERR_ARG, "flag is NULL");
  *flag = mpi_self()->finalized;
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  struct mpi_host *H = mpi_ready("MPI_Finalize");
  for (int r = 0; r < MAX_REQS; r++)
    if (H->reqs[r].state != RS_FREE && H->reqs[r].state != RS_DONE)
      m2host_printf("MPI_Finalize: a %s request (peer %d, tag %d) is still pending\n",
                    H->reqs[r].is_send ? "send" : "receive", H->reqs[r].peer, H->reqs[r].tag);
  /* Nobody sends to a rank that has stopped: everyone is done first. */
  MPI_Barrier(MPI_COMM_WORLD);
  mpi_engine_stop(H);
  mpi_buffers_free(H);
  if (H->me) MMP_finalize(H->me);
  H->finalized = 1;
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  (void)comm;
  m2host_abort(errorcode ? errorcode : 1, "MPI_Abort(errorcode %d)", errorcode);
}

/* ---- communicators ------------------------------------------------------------------ */

int mpi_comm_check(struct mpi_host *H, const char *fn, MPI_Comm comm, int *ctx, int *size, int *my_rank) {
  if (comm == MPI_COMM_WORLD) {
    *ctx = CTX_WORLD;
    *size = H->size;
    *my_rank = H->rank;
  } else if (comm == MPI_COMM_SELF) {
    *ctx = CTX_SELF;
    *size = 1;
    *my_rank = 0;
  } else {
    return mpi_fail(H, fn, MPI_ERR_COMM, "communicator 0x%x is neither MPI_COMM_WORLD nor MPI_COMM_SELF",
                    (unsigned)comm);
  }
  return MPI_SUCCESS;
}

int mpi_world_rank(MPI_Comm comm, struct mpi_host *H, int rank) { return comm == MPI_COMM_SELF ? H->rank : rank; }

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
  struct mpi_host *H = mpi_ready("MPI_Comm_rank");
  int ctx, size, me;
  const int rc = mpi_comm_check(H, "MPI_Comm_rank", comm, &ctx, &size, &me);
  if (rc != MPI_SUCCESS) return rc;
  if (!rank) return mpi_fail(H, "MPI_Comm_rank", MPI_ERR_ARG, "rank is NULL");
  *rank = me;
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size) {
  struct mpi_host *H = mpi_ready("MPI_Comm_size");
  int ctx, n, me;
  const int rc = mpi_comm_check(H, "MPI_Comm_size", comm, &ctx, &n, &me);
  if (rc != MPI_SUCCESS) return rc;
  if (!size) return mpi_fail(H, "MPI_Comm_size", MPI_ERR_ARG, "size is NULL");
  *size = n;
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  struct mpi_host *H = mpi_ready("MPI_Comm_set_errhandler");
  int ctx, n, me;
  const int rc = mpi_comm_check(H, "MPI_Comm_set_errhandler", comm, &ctx, &n, &me);
  if (rc != MPI_SUCCESS) return rc;
  if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN)
    return mpi_fail(H, "MPI_Comm_set_errhandler", MPI_ERR_ARG, "only MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN");
  /* One setting for the host (both communicators). */
  H->errors_return = errhandler == MPI_ERRORS_RETURN;
  return MPI_SUCCESS;
}

/* ---- information, time, memory ---------------------------------------------------------- */

int MPI_Get_processor_name(char *name, int *resultlen) {
  if (!name || !resultlen) return mpi_fail(mpi_self(), "MPI_Get_processor_name", MPI_ERR_ARG, "NULL argument");
  snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", m2host_name());
  *resultlen = (int)strlen(name);
  return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion) {
  if (!version || !subversion) return mpi_fail(mpi_self(), "MPI_Get_version", MPI_ERR_ARG, "NULL argument");
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen) {
  if (!string || !resultlen) return mpi_fail(mpi_self(), "MPI_Error_string", MPI_ERR_ARG, "NULL argument");
  snprintf(string, MPI_MAX_ERROR_STRING, "%s", mpi_error_text(errorcode));
  *resultlen = (int)strlen(string);
  return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype datatype, int *size) {
  const int s = mpi_type_size(datatype);
  if (s < 0) return mpi_fail(mpi_self(), "MPI_Type_size", MPI_ERR_TYPE, "datatype 0x%x", (unsigned)datatype);
  if (!size) return mpi_fail(mpi_self(), "MPI_Type_size", MPI_ERR_ARG, "size is NULL");
  *size = s;
  return MPI_SUCCESS;
}

/* The host's simulated time: what its clock would read. */
double MPI_Wtime(void) { return m2host_now_us() * 1e-6; }
double MPI_Wtick(void) { return 1e-12; /* SystemC's time resolution, 1 ps */ }

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
  (void)info;
  struct mpi_host *H = mpi_ready("MPI_Alloc_mem");
  if (size <= 0 || !baseptr) return mpi_fail(H, "MPI_Alloc_mem", MPI_ERR_ARG, "size %ld", (long)size);
  struct alloc_mem *a = calloc(1, sizeof *a);
  /* Over MMP the memory is pinned once (the zero-copy path's advantage); the
   * TCP device has nothing to pin: the stack copies. */
  void *p = !a ? NULL : H->me ? MMP_Pindown_malloc((size_t)size, H->me) : malloc((size_t)size);
  if (!p) {
    free(a);
    return mpi_fail(H, "MPI_Alloc_mem", MPI_ERR_NO_MEM, "cannot pin %ld bytes", (long)size);
  }
  *a = (struct alloc_mem){p, (size_t)size, H->allocs};
  H->allocs = a;
  memcpy(baseptr, &p, sizeof p);
  return MPI_SUCCESS;
}

int MPI_Free_mem(void *base) {
  struct mpi_host *H = mpi_ready("MPI_Free_mem");
  for (struct alloc_mem **a = &H->allocs; *a; a = &(*a)->next) {
    if ((*a)->p != base) continue;
    struct alloc_mem *dead = *a;
    *a = dead->next;
    if (H->me) MMP_Pindown_free(base, H->me);
    else free(base);
    free(dead);
    return MPI_SUCCESS;
  }
  return mpi_fail(H, "MPI_Free_mem", MPI_ERR_ARG, "%p did not come from MPI_Alloc_mem", base);
}

/* ---- not implemented -------------------------------------------------------------------------- */

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  (void)comm, (void)newcomm;
  m2mpi_unimplemented("MPI_Comm_dup");
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  (void)comm, (void)color, (void)key, (void)newcomm;
  m2mpi_unimplemented("MPI_Comm_split");
}

int MPI_Cancel(MPI_Request *request) {
  (void)request;
  m2mpi_unimplemented("MPI_Cancel");
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  (void)sendbuf, (void)sendcount, (void)sendtype, (void)recvbuf, (void)recvcount, (void)recvtype, (void)root,
      (void)comm;
  m2mpi_unimplemented("MPI_Scatter");
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  (void)sendbuf, (void)sendcount, (void)sendtype, (void)recvbuf, (void)recvcount, (void)recvtype, (void)comm;
  m2mpi_unimplemented("MPI_Allgather");
}

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  (void)count, (void)oldtype, (void)newtype;
  m2mpi_unimplemented("MPI_Type_contiguous");
}
