// Who carries out an outside program's library calls on its simulated host
// (M2X_CALL and M2X_SOCKET requests, models/host/exec_protocol.h). The host
// model only moves requests; the software that runs them registers itself
// here, one handler per request kind (the MPI calls:
// sw/host/exec/mpi_calls.cpp; the socket calls: sw/host/exec/socket_calls.cpp),
// so that the model does not depend on the software it runs.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "host/exec_protocol.h"

namespace m2 {

class HostSockets;

struct ExecCall {
  const m2x_request& req;
  m2x_reply& rep;
  uint8_t* arena;  // the shared arena, as the simulator maps it
  uint64_t arena_bytes;
  std::string error;  // set with Outcome::Failed: what was wrong with the request
  // Socket calls: the host's TCP sockets (nullptr: the host has no TCP/IP),
  // and the stack sockets the program holds open, which the handler keeps up
  // to date (the host closes them when the program ends, however it ends).
  HostSockets* sockets = nullptr;
  std::set<int>* open_sockets = nullptr;
};

struct ExecCallHandler {
  enum class Outcome {
    Done,
    Initialized,  // the library is up (MPI_Init)
    Finalized,    // the library is finished (MPI_Finalize): the program may exit now
    Aborted,      // the program asked to end the run (MPI_Abort); error says how
    Failed        // a request the library cannot carry out; error says why
  };
  // Runs the call on the calling host's thread (host_env.h applies).
  Outcome (*run)(ExecCall& call) = nullptr;
  // "MPI_Recv(source 1, tag 7, 4096 bytes)": for state and stall reports.
  std::string (*describe)(const m2x_request& req) = nullptr;
};

// `kind`: the requests it serves (M2X_CALL, M2X_SOCKET).
void register_exec_handler(uint32_t kind, const ExecCallHandler& handler);
// The handler registered for `kind`; nullptr when the build has none.
const ExecCallHandler* exec_handler(uint32_t kind);

}  // namespace m2
