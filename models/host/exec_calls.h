// Who carries out an outside program's library calls on its simulated host
// (M2X_CALL requests, models/host/exec_protocol.h). The host model only
// moves requests; the library that runs them registers itself here (the MPI
// calls: sw/host/exec/mpi_calls.cpp), so that the model does not depend on
// the software it runs.
#pragma once

#include <cstdint>
#include <string>

#include "host/exec_protocol.h"

namespace m2 {

struct ExecCall {
  const m2x_request& req;
  m2x_reply& rep;
  uint8_t* arena;  // the shared arena, as the simulator maps it
  uint64_t arena_bytes;
  std::string error;  // set with Outcome::Failed: what was wrong with the request
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

void register_exec_handler(const ExecCallHandler& handler);
// The registered handler; nullptr when the build has none.
const ExecCallHandler* exec_handler();

}  // namespace m2
