#include "host/host_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "core/log.h"
#include "host/process_tree.h"

extern char** environ;

namespace m2 {
namespace {

// ---- safety net: every running program's process group ------------------
// Read by signal handlers: a fixed array of atomics, no allocation.
constexpr int kMaxPrograms = 1024;
volatile sig_atomic_t g_groups[kMaxPrograms];
std::vector<HostProcess*> g_live;  // for draining every program's output while one is awaited

void kill_all_groups() {
  for (int i = 0; i < kMaxPrograms; ++i)
    if (g_groups[i] > 0) ::kill(-static_cast<pid_t>(g_groups[i]), SIGKILL);
}

void on_fatal_signal(int sig) {
  kill_all_groups();
  kill_all_descendants();  // what left its program's group (setsid, a new group)
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// At exit: every program and everything below the simulator, named.
void end_everything() {
  kill_all_groups();
  for (const Leftover& l : kill_leftovers({}))
    Log::instance().warning((l.node.empty() ? std::string("a program") : l.node + ".host") + ": killed process " +
                            l.name + " (pid " + std::to_string(l.pid) + ") still running at the simulator's exit");
}

void install_safety_net() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  adopt_orphans();
  std::atexit(end_everything);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (old.sa_handler != SIG_DFL) continue;  // someone else handles it
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    ::sigaction(sig, &sa, nullptr);
  }
}

void remember_group(pid_t pgid) {
  for (int i = 0; i < kMaxPrograms; ++i)
    if (g_groups[i] == 0) {
      g_groups[i] = pgid;
      return;
    }
}

void forget_group(pid_t pgid) {
  for (int i = 0; i < kMaxPrograms; ++i)
    if (g_groups[i] == pgid) g_groups[i] = 0;
}

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

// The simulator's environment with `extra` NAME=VALUE entries replacing or added.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  auto name_of = [](const std::string& s) { return s.substr(0, s.find('=')); };
  for (char** e = environ; e && *e; ++e) {
    const std::string s = *e;
    const bool replaced =
        std::any_of(extra.begin(), extra.end(), [&](const std::string& x) { return name_of(x) == name_of(s); });
    if (!replaced) env.push_back(s);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

// Why execve(program) failed, in words that fit the case: ENOENT for a file
// that exists means its interpreter (#!) or dynamic loader is missing.
std::string exec_error_text(const std::string& program, int err) {
  std::string text = std::strerror(err);
  if (err == ENOENT && ::access(program.c_str(), F_OK) == 0) {
    std::ifstream f(program, std::ios::binary);
    std::string first;
    std::getline(f, first);
    if (first.rfind("#!", 0) == 0)
      return text + " (the interpreter its first line names, '" + first.substr(2) + "', is missing)";
    return text + " (the program exists: a dynamic loader or interpreter it needs is missing)";
  }
  if (err == ELOOP) return text + " (a symbolic link loop)";
  return text;
}

// Moves `fd` to a number >= 100 so that dup2 onto 0..4 never overwrites a source.
int lift(int fd) { return ::fcntl(fd, F_DUPFD, 100); }

}  // namespace

HostProcess::HostProcess(const Spec& spec, TextOutput& output)
    : m_output(output), m_node(spec.node), m_name(std::filesystem::path(spec.program).filename().string()) {
  install_safety_net();
  std::error_code ec;
  // The working folder is one in the run's output folder (node<N>/): a link
  // left there (a folder written into with --out-force) would run the
  // program, and what it writes, elsewhere.
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(spec.workdir, ec)))
    throw std::runtime_error("the working folder " + spec.workdir +
                             " is a symbolic link: expected a folder of its own in the run's output folder (remove the "
                             "link)");
  std::filesystem::create_directories(spec.workdir, ec);
  if (ec) throw std::runtime_error("cannot create the working folder " + spec.workdir + ": " + ec.message());

  if (spec.arena_fd < 0 || !spec.arena_view) throw std::runtime_error("no shared arena for the program");
  int sv[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  // What is open so far goes when setting up fails.
  auto fail = [&](const std::string& what) {
    const std::runtime_error e(errno_text(what.c_str()));  // before close() can change errno
    for (int fd : {sv[0], sv[1], out[0], out[1], err[0], err[1]})
      if (fd >= 0) ::close(fd);
    return e;
  };
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) throw fail("socketpair");
  if (::pipe2(out, O_CLOEXEC) != 0) throw fail("pipe");
  if (::pipe2(err, O_CLOEXEC) != 0) throw fail("pipe");
  const int arena_fd = spec.arena_fd;
  m_arena = spec.arena_view;
  m_arena_bytes = spec.arena_bytes;

  // Everything the child needs, prepared before fork (only async-signal-safe calls after it).
  std::vector<std::string> env = child_environment(spec.env);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string workdir = spec.workdir, program = spec.program;
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid < 0) throw fail("fork");
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // Orphans of its descendants stay below it while it runs (the setting
    // survives exec), so that another program's end never takes them for
    // leftovers; once it ends they come to the simulator (adopt_orphans).
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (::getppid() != parent) ::_exit(127);  // the simulator is already gone
    const int in = ::open("/dev/null", O_RDONLY);
    const int s = lift(sv[1]), o = lift(out[1]), a = lift(arena_fd), e = lift(err[1]);
    if (in < 0 || s < 0 || o < 0 || a < 0 || e < 0 || ::dup2(in, 0) < 0 || ::dup2(o, 1) < 0 || ::dup2(o, 2) < 0 ||
        ::dup2(s, 3) < 0 || ::dup2(a, 4) < 0 || ::fcntl(e, F_SETFD, FD_CLOEXEC) < 0) {
      const int x = errno;
      (void)!::write(e, &x, sizeof x);
      ::_exit(127);
    }
    // Nothing else of the simulator's leaks into the program (its error pipe
    // closes itself at exec).
    ::close_range(5, static_cast<unsigned>(e) - 1, 0);
    ::close_range(static_cast<unsigned>(e) + 1, ~0u, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (::chdir(workdir.c_str()) == 0) ::execve(program.c_str(), argv.data(), envp.data());
    const int x = errno;
    (void)!::write(e, &x, sizeof x);
    ::_exit(127);
  }
  m_pid = pid;
  ::setpgid(pid, pid);  // also here: no race with an early kill of the group
  remember_group(pid);
  // Its end, seen even while a child it left behind holds the socket open.
  m_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (m_pidfd >= 0) ::fcntl(m_pidfd, F_SETFD, FD_CLOEXEC);
  ::close(sv[1]);
  ::close(out[1]);
  ::close(err[1]);
  m_sock = sv[0];
  m_out = out[0];
  ::fcntl(m_out, F_SETFL, O_NONBLOCK);
  int child_errno = 0;
  ssize_t n;
  while ((n = ::read(err[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  ::close(err[0]);
  if (n > 0) {
    reap(true);
    close_fds();
    throw std::runtime_error("cannot start " + program + ": " + exec_error_text(program, child_errno));
  }
  // Listed only once it runs: a throw above leaves no dangling entry.
  g_live.push_back(this);
}

HostProcess::~HostProcess() {
  stop();
  close_fds();
  g_live.erase(std::remove(g_live.begin(), g_live.end(), this), g_live.end());
}

void HostProcess::close_fds() {
  if (m_sock >= 0) ::close(m_sock);
  if (m_out >= 0) ::close(m_out);
  if (m_pidfd >= 0) ::close(m_pidfd);
  m_sock = m_out = m_pidfd = -1;
  m_arena = nullptr;  // the host's memory: not ours to unmap
}

bool HostProcess::next(m2x_request& req) {
  if (m_sock < 0) return false;
  for (;;) {
    // Every program's output pipe too: a program that fills its pipe while
    // this one is awaited would otherwise never get to its next call.
    // And the program's own end (pidfd): a child it left behind (a shell
    // script's `cmd &`) may hold the socket open long after it exited.
    std::vector<pollfd> fds{{m_sock, POLLIN, 0}, {m_pidfd, POLLIN, 0}};
    for (HostProcess* p : g_live)
      if (p->m_out >= 0) fds.push_back({p->m_out, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(errno_text("poll"));
    }
    for (HostProcess* p : g_live)
      if (p != this) p->read_output(false);
    ssize_t n = 0;  // the program ended: as a closed socket
    if (fds[0].revents != 0) {
      n = ::recv(m_sock, &req, sizeof req, MSG_TRUNC);
      if (n < 0 && errno == EINTR) continue;
    } else if (fds[1].revents == 0) {
      read_output(true);
      continue;
    }
    read_output(true);  // what it wrote before the call comes before the call's effects
    if (n == static_cast<ssize_t>(sizeof req)) return true;
    if (n > 0) {
      // Not a request of the platform's library (MSG_TRUNC: its real size).
      m_malformed = "a message of " + std::to_string(n) +
                    " bytes on its request socket (fd 3), where the "
                    "platform's libm2vp_exec.so sends requests of " +
                    std::to_string(sizeof req) + " bytes";
    }
    // Closed (or a malformed message): the program is ending.
    ::close(m_sock);
    m_sock = -1;
    // It normally closes the socket by exiting; wait a little for that.
    for (int i = 0; i < 400 && !m_reaped; ++i) {
      reap(false);
      if (!m_reaped) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!m_reaped) stop();
    read_output(true);
    m_output.flush();
    return false;
  }
}

bool HostProcess::peek(m2x_request& req) const {
  if (m_sock < 0) return false;
  return ::recv(m_sock, &req, sizeof req, MSG_PEEK | MSG_DONTWAIT) == static_cast<ssize_t>(sizeof req);
}

bool HostProcess::reply(const m2x_reply& rep) {
  if (m_sock < 0) return false;
  return ::send(m_sock, &rep, sizeof rep, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof rep);
}

void HostProcess::read_output(bool emit) {
  if (m_out >= 0) {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(m_out, buf, sizeof buf);
      if (n > 0) {
        take_output(buf, static_cast<size_t>(n));
        // Held for a program not awaited: past this much it goes out now,
        // a little early in the log, rather than growing without bound.
        if (!emit && m_pending.size() >= kMaxHeldOutputBytes) emit_output();
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) {  // every writer is gone
        ::close(m_out);
        m_out = -1;
      }
      break;
    }
  }
  if (emit) emit_output();
}

void HostProcess::take_output(const char* p, size_t n) {
  while (n > 0) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', n));
    const size_t piece = nl ? static_cast<size_t>(nl - p) : n;  // up to the newline, without it
    if (m_dropping) {                                           // the rest of a line that was cut
      if (!nl) return;
      m_dropping = false;
      m_line_bytes = 0;
      p += piece + 1;
      n -= piece + 1;
      continue;
    }
    const size_t room = kMaxLineBytes - m_line_bytes;
    if (piece > room) {
      m_pending.append(p, room);
      m_pending += '\n';
      m_dropping = true;
      m_cut = true;
      p += room;
      n -= room;
      continue;
    }
    m_pending.append(p, piece);
    m_line_bytes += piece;
    p += piece;
    n -= piece;
    if (nl) {
      m_pending += '\n';
      m_line_bytes = 0;
      ++p;
      --n;
    }
  }
}

void HostProcess::emit_output() {
  if (!m_pending.empty()) {
    m_output.write(m_pending);
    m_pending.clear();
  }
  if (m_cut && !m_cut_noted) {
    m_cut_noted = true;
    Log::instance().warning(m_node + ".host: program " + m_name + " wrote a line longer than " +
                            std::to_string(kMaxLineBytes) +
                            " bytes: its lines are cut there in the log (the rest "
                            "of such a line is dropped; noted once)");
  }
}

void HostProcess::reap(bool block) {
  if (m_pid <= 0 || m_reaped) return;
  int status = 0;
  pid_t w;
  while ((w = ::waitpid(m_pid, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  if (w != m_pid) return;
  m_reaped = true;
  if (WIFEXITED(status)) m_exit_status = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) m_signal = WTERMSIG(status);
  // Whatever it left running goes with it, in its group or not (its orphans
  // came to the simulator, a subreaper), and is gone before we go on; each
  // such process is named in the log.
  std::vector<pid_t> others;
  for (HostProcess* p : g_live)
    if (p != this && p->running()) others.push_back(p->m_pid);
  for (const Leftover& l : kill_leftovers(others)) {
    const std::string node = l.node.empty() ? m_node : l.node;
    Log::instance().warning(node + ".host: killed process " + l.name + " (pid " + std::to_string(l.pid) +
                            ") that its program " + (node == m_node ? m_name + " " : std::string()) + "left running");
  }
  ::kill(-m_pid, SIGKILL);  // a last word to its group
  forget_group(m_pid);
}

void HostProcess::stop(int grace_ms) {
  if (m_pid <= 0) return;
  if (!m_reaped) {
    ::kill(-m_pid, SIGTERM);
    for (int waited = 0; waited < grace_ms && !m_reaped; waited += 5) {
      reap(false);
      if (!m_reaped) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!m_reaped) {
      ::kill(-m_pid, SIGKILL);
      reap(true);
    }
  }
  if (m_out >= 0) read_output(true);
}

std::string HostProcess::end() const {
  if (!m_reaped) return "";
  if (m_signal) return "was killed by signal " + std::to_string(m_signal) + " (" + strsignal(m_signal) + ")";
  return "exited with status " + std::to_string(m_exit_status);
}

}  // namespace m2
