// The simulator's side of an outside program's MPI calls: each request
// (layout in mpi_calls.h) becomes the same call of the platform's MPI library
// (sw/host/mpi) on the program's host thread, with the program's buffers as
// arena memory. Registered with the host model at start-up (exec_calls.h).
#include <cstring>
#include <stdexcept>
#include <string>

#include "exec/mpi_calls.h"
#include "host/exec_calls.h"
#include "mpi.h"

namespace {

using m2::ExecCall;
using Outcome = m2::ExecCallHandler::Outcome;

struct BadRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The arena memory [off, off + len) of a request; nullptr for -1 (none).
void* at(ExecCall& c, int64_t off, uint64_t len) {
  if (off == -1) return nullptr;
  if (off < 0 || static_cast<uint64_t>(off) > c.arena_bytes || len > c.arena_bytes - static_cast<uint64_t>(off))
    throw BadRequest("a buffer of " + std::to_string(len) + " bytes at arena offset " + std::to_string(off) +
                     " lies outside the shared arena (" + std::to_string(c.arena_bytes) + " bytes)");
  return c.arena + off;
}

uint64_t bytes_of(int64_t count, int64_t type, int64_t times = 1) {
  const int64_t each = m2x_type_bytes(static_cast<int32_t>(type));
  return count > 0 && each > 0 ? static_cast<uint64_t>(count * each * times) : 0;
}

int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Bytes a receive delivered: what the program copies back into its buffer.
int64_t received(const MPI_Status& s) {
  int n = 0;
  if (MPI_Get_count(&s, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED) return 0;
  return n;
}

void put_status(m2x_reply& rep, const MPI_Status& s) { std::memcpy(rep.status, &s, sizeof s); }

int64_t double_bits(double d) {
  int64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

int i(int64_t v) { return static_cast<int>(v); }

Outcome run(ExecCall& c) {
  static_assert(sizeof(MPI_Status) == M2X_STATUS_INTS * sizeof(int), "MPI_Status is five ints in the MPICH ABI");
  const int64_t* a = c.req.a;
  m2x_reply& r = c.rep;
  MPI_Status st{};
  try {
    switch (c.req.fn) {
      case M2X_MPI_INIT:
        r.ret = MPI_Init(nullptr, nullptr);
        return r.ret == MPI_SUCCESS ? Outcome::Initialized : Outcome::Done;
      case M2X_MPI_INIT_THREAD: {
        int provided = 0;
        r.ret = MPI_Init_thread(nullptr, nullptr, i(a[0]), &provided);
        r.out[0] = provided;
        return r.ret == MPI_SUCCESS ? Outcome::Initialized : Outcome::Done;
      }
      case M2X_MPI_INITIALIZED: {
        int flag = 0;
        r.ret = MPI_Initialized(&flag);
        r.out[0] = flag;
        return Outcome::Done;
      }
      case M2X_MPI_FINALIZE:
        r.ret = MPI_Finalize();
        return r.ret == MPI_SUCCESS ? Outcome::Finalized : Outcome::Done;
      case M2X_MPI_FINALIZED: {
        int flag = 0;
        r.ret = MPI_Finalized(&flag);
        r.out[0] = flag;
        return Outcome::Done;
      }
      case M2X_MPI_ABORT:
        // The program asks to end the whole run: that is the run's end here.
        c.error = "called MPI_Abort(" + std::string(a[0] == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "comm") + ", " +
                  std::to_string(a[1]) + ")";
        return Outcome::Aborted;
      case M2X_MPI_COMM_RANK:
      case M2X_MPI_COMM_SIZE: {
        int v = 0;
        r.ret = c.req.fn == M2X_MPI_COMM_RANK ? MPI_Comm_rank(i(a[0]), &v) : MPI_Comm_size(i(a[0]), &v);
        r.out[0] = v;
        return Outcome::Done;
      }
      case M2X_MPI_GET_PROCESSOR_NAME: {
        int len = 0;
        r.ret = MPI_Get_processor_name(static_cast<char*>(at(c, a[0], M2X_PROCESSOR_NAME)), &len);
        r.out[0] = len;
        return Outcome::Done;
      }
      case M2X_MPI_GET_VERSION: {
        int v = 0, s = 0;
        r.ret = MPI_Get_version(&v, &s);
        r.out[0] = v, r.out[1] = s;
        return Outcome::Done;
      }
      case M2X_MPI_TYPE_SIZE: {
        int s = 0;
        r.ret = MPI_Type_size(i(a[0]), &s);
        r.out[0] = s;
        return Outcome::Done;
      }
      case M2X_MPI_ERROR_STRING: {
        int len = 0;
        r.ret = MPI_Error_string(i(a[0]), static_cast<char*>(at(c, a[1], M2X_ERROR_STRING)), &len);
        r.out[0] = len;
        return Outcome::Done;
      }
      case M2X_MPI_WTIME:
        r.out[0] = double_bits(MPI_Wtime());
        return Outcome::Done;
      case M2X_MPI_WTICK:
        r.out[0] = double_bits(MPI_Wtick());
        return Outcome::Done;
      case M2X_MPI_BARRIER:
        r.ret = MPI_Barrier(i(a[0]));
        return Outcome::Done;
      case M2X_MPI_COMM_SET_ERRHANDLER:
        r.ret = MPI_Comm_set_errhandler(i(a[0]), i(a[1]));
        return Outcome::Done;
      case M2X_MPI_BCAST:
        r.ret = MPI_Bcast(at(c, a[0], bytes_of(a[1], a[2])), i(a[1]), i(a[2]), i(a[3]), i(a[4]));
        return Outcome::Done;
      case M2X_MPI_REDUCE:
      case M2X_MPI_ALLREDUCE: {
        const uint64_t n = bytes_of(a[2], a[3]);
        const void* send = a[0] == -1 ? MPI_IN_PLACE : at(c, a[0], n);
        void* recv = at(c, a[1], n);
        r.ret = c.req.fn == M2X_MPI_REDUCE ? MPI_Reduce(send, recv, i(a[2]), i(a[3]), i(a[4]), i(a[5]), i(a[6]))
                                           : MPI_Allreduce(send, recv, i(a[2]), i(a[3]), i(a[4]), i(a[5]));
        return Outcome::Done;
      }
      case M2X_MPI_GATHER: {
        const void* send = a[0] == -1 ? MPI_IN_PLACE : at(c, a[0], bytes_of(a[1], a[2]));
        void* recv = at(c, a[3], bytes_of(a[4], a[5], a[7] == MPI_COMM_SELF ? 1 : world_size()));
        r.ret = MPI_Gather(send, i(a[1]), i(a[2]), recv, i(a[4]), i(a[5]), i(a[6]), i(a[7]));
        return Outcome::Done;
      }
      case M2X_MPI_ALLTOALL: {
        const int n = a[6] == MPI_COMM_SELF ? 1 : world_size();
        const void* send = a[0] == -1 ? MPI_IN_PLACE : at(c, a[0], bytes_of(a[1], a[2], n));
        void* recv = at(c, a[3], bytes_of(a[4], a[5], n));
        r.ret = MPI_Alltoall(send, i(a[1]), i(a[2]), recv, i(a[4]), i(a[5]), i(a[6]));
        return Outcome::Done;
      }
      case M2X_MPI_SEND:
      case M2X_MPI_SSEND:
      case M2X_MPI_ISEND: {
        const void* buf = at(c, a[0], bytes_of(a[1], a[2]));
        if (c.req.fn == M2X_MPI_ISEND) {
          MPI_Request req = MPI_REQUEST_NULL;
          r.ret = MPI_Isend(buf, i(a[1]), i(a[2]), i(a[3]), i(a[4]), i(a[5]), &req);
          r.out[0] = req;
        } else {
          r.ret = (c.req.fn == M2X_MPI_SEND ? MPI_Send : MPI_Ssend)(buf, i(a[1]), i(a[2]), i(a[3]), i(a[4]), i(a[5]));
        }
        return Outcome::Done;
      }
      case M2X_MPI_RECV:
        r.ret = MPI_Recv(at(c, a[0], bytes_of(a[1], a[2])), i(a[1]), i(a[2]), i(a[3]), i(a[4]), i(a[5]), &st);
        put_status(r, st);
        r.out[1] = received(st);
        return Outcome::Done;
      case M2X_MPI_IRECV: {
        MPI_Request req = MPI_REQUEST_NULL;
        r.ret = MPI_Irecv(at(c, a[0], bytes_of(a[1], a[2])), i(a[1]), i(a[2]), i(a[3]), i(a[4]), i(a[5]), &req);
        r.out[0] = req;
        return Outcome::Done;
      }
      case M2X_MPI_WAIT:
      case M2X_MPI_TEST: {
        MPI_Request req = i(a[0]);
        int flag = 1;
        r.ret = c.req.fn == M2X_MPI_WAIT ? MPI_Wait(&req, &st) : MPI_Test(&req, &flag, &st);
        r.out[0] = req, r.out[2] = flag;
        if (flag) {
          put_status(r, st);
          r.out[1] = received(st);
        }
        return Outcome::Done;
      }
      case M2X_MPI_WAITALL: {
        const int64_t n = a[0] > 0 ? a[0] : 0;
        auto* reqs = static_cast<MPI_Request*>(at(c, a[1], n * sizeof(MPI_Request)));
        auto* sts = static_cast<MPI_Status*>(at(c, a[2], n * sizeof(MPI_Status)));
        auto* got = static_cast<int64_t*>(at(c, a[3], n * sizeof(int64_t)));
        r.ret = MPI_Waitall(i(n), reqs, sts);
        for (int64_t k = 0; k < n; ++k) got[k] = received(sts[k]);
        return Outcome::Done;
      }
      case M2X_MPI_SENDRECV:
        r.ret = MPI_Sendrecv(at(c, a[0], bytes_of(a[1], a[2])), i(a[1]), i(a[2]), i(a[3]), i(a[4]),
                             at(c, a[5], bytes_of(a[6], a[7])), i(a[6]), i(a[7]), i(a[8]), i(a[9]), i(a[10]), &st);
        put_status(r, st);
        r.out[1] = received(st);
        return Outcome::Done;
      case M2X_MPI_PROBE:
        r.ret = MPI_Probe(i(a[0]), i(a[1]), i(a[2]), &st);
        put_status(r, st);
        return Outcome::Done;
      case M2X_MPI_IPROBE: {
        int flag = 0;
        r.ret = MPI_Iprobe(i(a[0]), i(a[1]), i(a[2]), &flag, &st);
        r.out[2] = flag;
        if (flag) put_status(r, st);
        return Outcome::Done;
      }
      case M2X_MPI_GET_COUNT: {
        int s[M2X_STATUS_INTS], n = 0;
        for (int k = 0; k < M2X_STATUS_INTS; ++k) s[k] = i(a[k]);
        std::memcpy(&st, s, sizeof st);
        r.ret = MPI_Get_count(&st, i(a[5]), &n);
        r.out[0] = n;
        return Outcome::Done;
      }
      default:
        c.error = "unknown MPI function number " + std::to_string(c.req.fn);
        return Outcome::Failed;
    }
  } catch (const BadRequest& e) {
    c.error = e.what();
    return Outcome::Failed;
  }
}

std::string name_of(uint32_t fn) {
  switch (fn) {
#define M2X_NAME(name, n) \
  case n:                 \
    return #name;
    M2X_MPI_FUNCTIONS(M2X_NAME)
#undef M2X_NAME
    default:
      return "?";
  }
}

std::string comm_name(int64_t c) {
  return c == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : c == MPI_COMM_SELF ? "MPI_COMM_SELF" : "comm " + std::to_string(c);
}
std::string rank_name(int64_t r) { return r == MPI_ANY_SOURCE ? "MPI_ANY_SOURCE" : std::to_string(r); }
std::string tag_name(int64_t t) { return t == MPI_ANY_TAG ? "MPI_ANY_TAG" : std::to_string(t); }

// "MPI_Recv(source 1, tag 7, 4096 bytes, MPI_COMM_WORLD)"
std::string describe(const m2x_request& q) {
  // "GET_PROCESSOR_NAME" -> "MPI_Get_processor_name"
  std::string n = name_of(q.fn);
  for (size_t k = 1; k < n.size(); ++k) n[k] = static_cast<char>(std::tolower(static_cast<unsigned char>(n[k])));
  n = "MPI_" + n;
  const int64_t* a = q.a;
  const std::string bytes = std::to_string(bytes_of(a[1], a[2])) + " bytes";
  switch (q.fn) {
    case M2X_MPI_SEND:
    case M2X_MPI_SSEND:
    case M2X_MPI_ISEND:
      return n + "(dest " + std::to_string(a[3]) + ", tag " + tag_name(a[4]) + ", " + bytes + ", " + comm_name(a[5]) +
             ")";
    case M2X_MPI_RECV:
    case M2X_MPI_IRECV:
      return n + "(source " + rank_name(a[3]) + ", tag " + tag_name(a[4]) + ", up to " + bytes + ", " +
             comm_name(a[5]) + ")";
    case M2X_MPI_PROBE:
    case M2X_MPI_IPROBE:
      return n + "(source " + rank_name(a[0]) + ", tag " + tag_name(a[1]) + ", " + comm_name(a[2]) + ")";
    case M2X_MPI_WAIT:
    case M2X_MPI_TEST:
      return n + "(request " + std::to_string(a[0]) + ")";
    case M2X_MPI_WAITALL:
      return n + "(" + std::to_string(a[0]) + " requests)";
    case M2X_MPI_SENDRECV:
      return n + "(dest " + std::to_string(a[3]) + ", source " + rank_name(a[8]) + ", " + comm_name(a[10]) + ")";
    case M2X_MPI_BARRIER:
      return n + "(" + comm_name(a[0]) + ")";
    case M2X_MPI_BCAST:
      return n + "(root " + std::to_string(a[3]) + ", " + bytes + ", " + comm_name(a[4]) + ")";
    default:
      return n;
  }
}

__attribute__((constructor)) void register_mpi_calls() {
  m2::ExecCallHandler h;
  h.run = run;
  h.describe = describe;
  m2::register_exec_handler(M2X_CALL, h);
}

}  // namespace
