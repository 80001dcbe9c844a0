#include "host/host_program.h"

#include <algorithm>

#include <cstring>
#include <filesystem>

#include "core/log.h"
#include "host/exec_calls.h"
#include "host/host_cpu.h"
#include "host/netpipe_table.h"

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
    return;
  }
  handshake();
}

void HostProgram::handshake() {
  // The library's first message comes from its constructor, before the
  // program's main. Answered here, before the simulation runs, so that every
  // program gets to its main at once: a program's start never waits for
  // another host's thread (the simulation serves one program at a time).
  m2x_request req;
  if (!m_proc->next(req)) return;  // it ended without loading the library: run() says so
  if (req.kind != M2X_HELLO) {
    m_start_error = "sent request kind " + std::to_string(req.kind) + " before the library's greeting";
    return;
  }
  req.name[M2X_NAME_BYTES - 1] = '\0';
  if (std::strcmp(req.name, std::to_string(M2X_VERSION).c_str()) != 0) {
    m_start_error = std::string("loaded a library of another protocol version (") + req.name + ", expected " +
                    std::to_string(M2X_VERSION) + "): rebuild the project";
    return;
  }
  m2x_reply rep{};
  rep.clock_read_ns = static_cast<uint64_t>(m_host.syscall_ns.get());
  rep.epoch_s = kEpochSeconds;
  rep.cpu_scale = m_opt.cpu_scale;
  rep.now_ns = 0;
  m_hello = true;
  m_proc->reply(rep);
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
  const ExecCallHandler* handler = exec_handler();
  const char* init = M2X_INIT_NAME;
  const char* finalize = M2X_FINALIZE_NAME;
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
    switch (req.kind) {
      case M2X_UNSUPPORTED:
        req.name[M2X_NAME_BYTES - 1] = '\0';
        fail(std::string("called ") + req.name + ", which the platform's MPI library does not implement");
        return -1;
      case M2X_WRONG_THREAD:
        fail(wrong_thread(req));
        return -1;
      case M2X_CALL: {
        if (!handler) {
          fail("made a library call but this simulator has no library for outside programs");
          return -1;
        }
        m_pending = handler->describe(req);
        m_phase = "in " + m_pending;
        ExecCall call{req, rep, m_proc->arena(), m_proc->arena_bytes(), {}};
        const ExecCallHandler::Outcome o = handler->run(call);
        const std::string done = m_pending;
        m_pending.clear();
        if (m_run.finished()) {  // the run ended meanwhile (another host's failure)
          m_proc->stop();
          return -1;
        }
        switch (o) {
          case ExecCallHandler::Outcome::Initialized:
            m_initialized = true;
            break;
          case ExecCallHandler::Outcome::Finalized:
            m_finalized = true;
            break;
          case ExecCallHandler::Outcome::Aborted:
            fail(call.error);
            return -1;
          case ExecCallHandler::Outcome::Failed:
            fail("made a call the library cannot carry out: " + done + ": " + call.error);
            return -1;
          case ExecCallHandler::Outcome::Done:
            break;
        }
        break;
      }
      default:
        fail("sent a request the simulator does not know (kind " + std::to_string(req.kind) + ")");
        return -1;
    }
    rep.now_ns = to_ns(m_host.now());
    m_proc->reply(rep);  // a program gone meanwhile shows at the next wait
  }
  // The program ended (or broke the protocol: then it was stopped).
  if (!m_proc->protocol_error().empty()) {
    fail("sent " + m_proc->protocol_error() + "; it was stopped (" + m_proc->end() + ")");
    return -1;
  }
  const std::string how = m_proc->end();
  if (!m_hello) {
    fail(how + " without loading the platform's " M2X_LIBRARY
               " (is it a dynamically linked MPI program? the platform runs programs built against the MPICH ABI)");
    return -1;
  }
  if (!m_initialized) {
    fail(how + " before " + init);
    return -1;
  }
  if (!m_finalized) {
    fail(how + " before " + finalize);
    return -1;
  }
  if (m_proc->exit_status() < 0) {
    fail(how + " after " + finalize);
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
