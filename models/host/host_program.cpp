#include "host/host_program.h"

#include <algorithm>

#include <cstring>
#include <filesystem>

#include "core/log.h"
#include "host/exec_calls.h"
#include "host/host_cpu.h"
#include "host/netpipe_table.h"
#include "host/tcpip/host_sockets.h"

namespace m2 {
namespace {

// Simulated time 0 reads as 2001-01-01 00:00:00 UTC on the program's
// wall clocks (gettimeofday, time, CLOCK_REALTIME): a fixed instant, so that
// runs repeat exactly; the year of the Maestro2 papers.
constexpr uint64_t kEpochSeconds = 978307200;

uint64_t to_ns(const sc_core::sc_time& t) { return static_cast<uint64_t>(t.to_seconds() * 1e9 + 0.5); }

}  // namespace

HostProgram::HostProgram(HostCpu& host, RunControl& run, Options options)
    : m_host(host), m_run(run), m_opt(std::move(options)) {
  m_name = std::filesystem::path(m_opt.program).filename().string();
}

HostProgram::~HostProgram() = default;  // the process' destructor stops it

void HostProgram::fail(const std::string& what) {
  std::string who = "program " + m_name + " (" + m_opt.program;
  if (m_proc) who += ", pid " + std::to_string(m_proc->pid());
  who += ")";
  m_phase = "failed";
  m_run.fault(m_host.name(), std::string(m_host.name()) + ": " + who + " " + what, "program");
  if (m_proc) m_proc->stop();
}

std::string HostProgram::workdir() const {
  const std::string out = HostCpu::output_dir();
  return (std::filesystem::path(out.empty() ? "." : out) / m_opt.node).string();
}

void HostProgram::start() {
  HostProcess::Spec spec;
  spec.program = m_opt.program;
  spec.argv.push_back(m_opt.program);
  spec.argv.insert(spec.argv.end(), m_opt.args.begin(), m_opt.args.end());
  spec.workdir = workdir();
  spec.node = m_opt.node;
  spec.env.push_back(std::string(M2X_ENV_SOCKET) + "=3");  // where HostProcess puts them
  spec.env.push_back(std::string(M2X_ENV_ARENA) + "=4");
  spec.env.push_back(std::string(M2X_ENV_ARENA_BYTES) + "=" + std::to_string(m_opt.arena_bytes));
  spec.env.push_back(std::string(M2X_ENV_ARENA_OFFSET) + "=" + std::to_string(m_opt.arena_offset));
  spec.env.insert(spec.env.begin(), m_opt.env.begin(), m_opt.env.end());
  spec.arena_fd = m_opt.arena_fd;
  spec.arena_offset = m_opt.arena_offset;
  spec.arena_bytes = m_opt.arena_bytes;
  spec.arena_view = m_opt.arena_view;
  try {
    m_proc = std::make_unique<HostProcess>(spec, m_host.console);
    m_phase = "starting";
  } catch (const std::exception& e) {
    m_start_error = e.what();
  }
}

bool HostProgram::greet(m2x_request& req, m2x_reply& rep) {
  // The library's first message, at the program's first call that needs its
  // host: the protocol version, whether it is an MPI program, its pid.
  req.name[M2X_NAME_BYTES - 1] = '\0';
  if (m_hello) {
    close_sockets();
    fail("has a second process (pid " + std::to_string(req.a[1]) +
         ") that called its simulated host: one process per host makes the MPI, socket and clock calls (the "
         "first one that does)");
    return false;
  }
  if (std::strcmp(req.name, std::to_string(M2X_VERSION).c_str()) != 0) {
    fail(std::string("loaded a library of another protocol version (") + req.name + ", expected " +
         std::to_string(M2X_VERSION) + "): rebuild the project");
    return false;
  }
  rep.clock_read_ns = static_cast<uint64_t>(m_host.syscall_ns.get());
  rep.epoch_s = kEpochSeconds;
  rep.cpu_scale = m_opt.cpu_scale;
  m_hello = true;
  m_mpi = req.a[0] != 0;
  return true;
}

int HostProgram::run() {
  if (!m_proc) {
    fail("could not be started: " + (m_start_error.empty() ? std::string("not started") : m_start_error));
    return -1;
  }
  if (!m_start_error.empty()) {
    fail(m_start_error);
    return -1;
  }
  return serve();
}

int HostProgram::serve() {
  m2x_request req;
  for (;;) {
    m_phase = "running its own code";
    // The run may have ended (another host failed) while this thread was
    // not running: never wait for a program then.
    if (m_run.finished()) {
      m_proc->stop();
      return -1;
    }
    if (!m_proc->next(req)) break;
    // Its own computation since the last call, and what its clocks charged
    // (a sleep(UINT_MAX) asks for 136 years): no more than the longest run
    // (sim.max_time_ms at most 1e9 ms) could reach, so that simulated time
    // stays far inside SystemC's range and the time limit ends the run.
    constexpr double kLongestRunNs = 1e15;
    const double ns = static_cast<double>(req.compute_ns) * m_opt.cpu_scale + static_cast<double>(req.local_ns);
    m_host.charge_ns(std::min(ns, kLongestRunNs));
    m2x_reply rep{};
    if (!carry_out(req, rep)) return -1;
    rep.now_ns = to_ns(m_host.now());
    m_proc->reply(rep);  // a program gone meanwhile shows at the next wait
  }
  return finish_program();
}

bool HostProgram::carry_out(m2x_request& req, m2x_reply& rep) {
  switch (req.kind) {
    case M2X_HELLO:
      return greet(req, rep);
    case M2X_UNSUPPORTED:
      req.name[M2X_NAME_BYTES - 1] = '\0';
      close_sockets();
      if (req.a[0] == M2X_LAYER_SOCKETS)
        fail(std::string("called ") + req.name + ", which the platform's socket layer does not support");
      else fail(std::string("called ") + req.name + ", which the platform's MPI library does not implement");
      return false;
    case M2X_WRONG_THREAD:
      close_sockets();
      fail(wrong_thread(req));
      return false;
    case M2X_CALL:
    case M2X_SOCKET: {
      const ExecCallHandler* handler = exec_handler(req.kind);
      if (!handler) {
        close_sockets();
        fail(req.kind == M2X_CALL ? "made a library call but this simulator has no library for outside programs"
                                  : "made a socket call but this simulator has no socket layer for outside programs");
        return false;
      }
      m_pending = handler->describe(req);
      m_phase = "in " + m_pending;
      ExecCall call{req, rep, m_proc->arena(), m_proc->arena_bytes(), {}};
      call.sockets = m_host.sockets();
      call.open_sockets = &m_sockets;
      const ExecCallHandler::Outcome o = handler->run(call);
      const std::string done = m_pending;
      m_pending.clear();
      if (m_run.finished()) {  // the run ended meanwhile (another host's failure)
        m_proc->stop();
        return false;
      }
      switch (o) {
        case ExecCallHandler::Outcome::Initialized:
          m_initialized = true;
          break;
        case ExecCallHandler::Outcome::Finalized:
          m_finalized = true;
          break;
        case ExecCallHandler::Outcome::Aborted:
          close_sockets();
          fail(call.error);
          return false;
        case ExecCallHandler::Outcome::Failed:
          close_sockets();
          fail("made a call the " + std::string(req.kind == M2X_CALL ? "library" : "socket layer") +
               " cannot carry out: " + done + ": " + call.error);
          return false;
        case ExecCallHandler::Outcome::Done:
          break;
      }
      return true;
    }
    default:
      close_sockets();
      fail("sent a request the simulator does not know (kind " + std::to_string(req.kind) + ")");
      return false;
  }
}

void HostProgram::close_sockets() {
  HostSockets* s = m_host.sockets();
  if (!s || m_sockets.empty() || m_run.finished()) return;
  m_phase = "ended: closing the sockets it left open";
  m_host.sync_time();
  const std::set<int> open = std::move(m_sockets);
  m_sockets.clear();
  for (int sd : open) s->close(sd);
}

int HostProgram::finish_program() {
  // The program ended (or broke the protocol: then it was stopped).
  const size_t left_open = m_sockets.size();
  close_sockets();
  const std::string closed =
      left_open ? " (the " + std::to_string(left_open) + " socket(s) it left open were closed)" : std::string();
  if (!m_proc->protocol_error().empty()) {
    fail("sent " + m_proc->protocol_error() + "; it was stopped (" + m_proc->end() + ")" + closed);
    return -1;
  }
  const std::string how = m_proc->end();
  if (!m_hello) {
    fail(how + " without a call to its simulated host (no MPI, socket or clock call through the platform's " M2X_PRELOAD
               "; a statically linked program cannot load it: the platform runs dynamically linked programs, MPI "
               "programs built against the MPICH ABI)");
    return -1;
  }
  if (m_mpi && !m_initialized) {
    fail(how + " before " + std::string(M2X_INIT_NAME) + closed);
    return -1;
  }
  if (m_mpi && !m_finalized) {
    fail(how + " before " + std::string(M2X_FINALIZE_NAME) + closed);
    return -1;
  }
  if (m_proc->exit_status() < 0) {
    fail(how + (m_mpi ? " after " + std::string(M2X_FINALIZE_NAME) : std::string()) + closed);
    return -1;
  }
  m_phase = how;
  if (!m_opt.np_out.empty()) {
    const std::string file = (std::filesystem::path(workdir()) / m_opt.np_out).string();
    if (std::filesystem::exists(file)) {
      const std::string err = load_netpipe_table(file, m_host.name());
      if (!err.empty()) {
        fail("ended, but its output cannot be read (" + std::string(m_host.name()) + ".exec_np_out): " + err);
        return -1;
      }
    }
  }
  return m_proc->exit_status();
}

std::string HostProgram::wrong_thread(m2x_request& req) const {
  req.name[M2X_NAME_BYTES - 1] = '\0';
  return std::string("called ") + req.name + " from thread " + std::to_string(req.a[0]) + ", not from thread " +
         std::to_string(req.a[1]) + ", which called " + M2X_INIT_NAME +
         ": the platform's MPI library provides MPI_THREAD_SINGLE (only the thread that called " M2X_INIT_NAME
         " may call MPI)";
}

std::string HostProgram::state() const {
  std::string s = m_name;
  if (m_proc) s += " (pid " + std::to_string(m_proc->pid()) + ")";
  s += " " + m_phase;
  // A second thread's call waits behind the one in flight (which may never
  // end: that thread was to do what it waits for); say so where it shows.
  m2x_request req;
  if (m_proc && m_proc->peek(req) && req.kind == M2X_WRONG_THREAD) s += "; meanwhile it " + wrong_thread(req);
  return s;
}

}  // namespace m2
