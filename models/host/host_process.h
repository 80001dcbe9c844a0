// The life of one outside program that stands for a simulated host
// (hostN.exec): started in its own process group with a request socket, a
// shared arena and its output on a pipe; waited for request by request;
// stopped (SIGTERM, then SIGKILL, whole group) when it is no longer wanted;
// whatever it leaves running when it ends, in its group or not, is killed
// and named in the log (process_tree.h).
// A process-wide safety net kills every program still running, and all
// below the simulator, when the simulator exits or is ended by a signal
// (SIGINT, SIGTERM, SIGHUP, a crash),
// and each program dies with the simulator (PR_SET_PDEATHSIG) if even that
// is skipped (SIGKILL). docs/models/host-process.md.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/text_output.h"
#include "host/exec_protocol.h"

namespace m2 {

class HostProcess {
 public:
  struct Spec {
    std::string program;            // path of the executable (resolved)
    std::vector<std::string> argv;  // argv[0] included
    std::string workdir;            // created if missing
    std::string node;               // "node0": for messages about what it left running
    std::vector<std::string> env;   // NAME=VALUE added to (or replacing in) the simulator's environment
    // The arena: [arena_offset, +arena_bytes) of the memory file arena_fd
    // (the host's physical memory, Memory::share_as_file), which the
    // simulator sees at arena_view. The program maps it at start-up.
    int arena_fd = -1;
    uint64_t arena_offset = 0;
    uint64_t arena_bytes = 0;
    uint8_t* arena_view = nullptr;
  };

  // Starts the program; throws std::runtime_error saying why it could not
  // (the folder, the arena, fork, or exec and its errno).
  // The program's stdout and stderr go, line by line, to `output`.
  HostProcess(const Spec& spec, TextOutput& output);
  ~HostProcess();  // stop()
  HostProcess(const HostProcess&) = delete;
  HostProcess& operator=(const HostProcess&) = delete;

  // Blocks the calling thread (and so the whole simulation) until the
  // program's next request. false when the program ended instead (its
  // connection closed): end() then says how.
  bool next(m2x_request& req);
  // The program's next request if one is waiting, left in place (for state
  // reports while a call is in flight); false when none is.
  bool peek(m2x_request& req) const;
  // Answers the request next() returned; false when the program is gone.
  bool reply(const m2x_reply& rep);

  uint8_t* arena() const { return m_arena; }
  uint64_t arena_bytes() const { return m_arena_bytes; }
  pid_t pid() const { return m_pid; }
  bool running() const { return m_pid > 0 && !m_reaped; }

  // How the program ended: "exited with status 3", "was killed by signal 11
  // (Segmentation fault)"; "" while it runs.
  std::string end() const;
  int exit_status() const { return m_exit_status; }  // -1 unless it exited
  // What it sent that is not a request of the platform's library ("" if
  // nothing): next() then returned false and the program was stopped.
  const std::string& protocol_error() const { return m_malformed; }

  // Ends the program and everything in its process group: SIGTERM, up to
  // `grace_ms` of wall time to go, then SIGKILL; reaps it. Idempotent.
  void stop(int grace_ms = 500);

 private:
  // A line of the program's output is cut after this many bytes (the rest
  // of it up to the newline is dropped, and the log says so once): one
  // endless line would otherwise be held in memory whole (a 200 MB line took
  // the simulator from 29 MB to 858 MB). 64 KiB keeps any real text whole.
  static constexpr size_t kMaxLineBytes = 64 * 1024;
  // Output read from a program while another one is awaited is held (so
  // that it reaches the log at its program's turn) up to this much.
  static constexpr size_t kMaxHeldOutputBytes = 1024 * 1024;

  void read_output(bool emit);                // takes what the pipe holds; emits it when `emit`
  void take_output(const char* p, size_t n);  // into m_pending, lines cut at kMaxLineBytes
  void emit_output();                         // m_pending to the log; the note on cut lines, once
  void reap(bool block);
  void close_fds();

  TextOutput& m_output;
  std::string m_node, m_name;  // "node0", the program's file name
  std::string m_pending;       // output not yet emitted (read while another program was awaited)
  size_t m_line_bytes = 0;     // of the line being read, so far (emitted or not)
  bool m_dropping = false;     // the line being read was cut: skipping to its newline
  bool m_cut = false, m_cut_noted = false;
  pid_t m_pid = -1;
  bool m_reaped = false;
  int m_exit_status = -1, m_signal = 0;
  int m_sock = -1, m_out = -1, m_pidfd = -1;  // pidfd: readable once the program has exited
  std::string m_malformed;                    // what broke the protocol, when something did
  uint8_t* m_arena = nullptr;
  uint64_t m_arena_bytes = 0;
};

}  // namespace m2
