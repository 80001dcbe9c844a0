// An outside Linux program as the software of a simulated host (hostN.exec):
// runs on the host's SystemC thread instead of an in-simulator application.
// It starts the program, then serves its calls one by one: waits for the
// next request (the whole simulation waits with it: the program's time
// between two calls is zero simulated time unless exec_cpu_scale says
// otherwise), charges the program's CPU time, lets the registered library
// (exec_calls.h) carry out the call on this host in simulated time, and
// answers with the results and the host's time. It ends the run with a
// clear error when the program dies, exits before finishing the library or
// calls something the platform lacks. A program that is not an MPI program
// (NPtcp) needs no MPI_Init: it ends when it exits. Its sockets are closed
// when it ends, however it ends. docs/models/host-process.md.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/run_control.h"
#include "host/host_process.h"

namespace m2 {

class HostCpu;

class HostProgram {
 public:
  struct Options {
    std::string program;  // resolved path
    std::vector<std::string> args;
    std::string node;              // "node0": the program works in this folder of the run's output folder
    std::vector<std::string> env;  // launcher variables (rank, size, library path)
    double cpu_scale = 0;          // simulated ns per ns of the program's own CPU time
    // The arena in the host's physical memory (HostProcess::Spec).
    int arena_fd = -1;
    uint64_t arena_offset = 0;
    uint64_t arena_bytes = 0;
    uint8_t* arena_view = nullptr;
    std::string np_out;  // NetPIPE output file to load into the run's table ("" none)
  };

  HostProgram(HostCpu& host, RunControl& run, Options options);
  ~HostProgram();

  // Starts the program (before the simulation runs, so that every host's
  // program is up before any is waited for); a failure is reported by run().
  // The program connects at its first call that needs its host.
  void start();
  // On the host's thread: the program's whole life. Returns its exit status
  // once it finished the library and exited; -1 when it failed (the run is
  // then ended with the error) or the run ended while it ran.
  int run();

  // "NPmpich2 (pid 4711) in MPI_Recv(...)": for state and stall reports.
  std::string state() const;

 private:
  void fail(const std::string& what);
  bool greet(m2x_request& req, m2x_reply& rep);  // the library's first message
  std::string workdir() const;
  std::string wrong_thread(m2x_request& req) const;  // the message for an M2X_WRONG_THREAD report
  int serve();
  // The program's call of `kind` (M2X_CALL, M2X_SOCKET) on this host; false
  // when it ended the program's run (failed or aborted: reported).
  bool carry_out(m2x_request& req, m2x_reply& rep);
  // The stack sockets the program left open are closed (its peers see end
  // of file or a reset), as the kernel does for a process that ends.
  void close_sockets();
  int finish_program();  // after the program's end: its exit status, or -1 (reported)

  HostCpu& m_host;
  RunControl& m_run;
  Options m_opt;
  std::string m_name;  // the program's file name, for messages
  std::string m_start_error;
  std::unique_ptr<HostProcess> m_proc;
  std::string m_pending;  // the call being served ("" between calls)
  std::string m_phase = "not started";
  bool m_hello = false, m_initialized = false, m_finalized = false;
  bool m_mpi = false;       // it loaded the platform's libmpich.so.12 (its greeting says)
  std::set<int> m_sockets;  // the host stack's sockets it holds open
};

}  // namespace m2
