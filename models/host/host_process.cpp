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
#include <sstream>
#include <stdexcept>
#include <thread>

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
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_safety_net() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  std::atexit(kill_all_groups);
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

// Whether a process of group `pgid` is still alive (zombies do not count:
// they run nothing, and a container's init may never reap them).
bool group_alive(pid_t pgid) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "stat");
    std::string stat;
    if (!std::getline(f, stat)) continue;
    const size_t paren = stat.rfind(')');  // the command may hold spaces and parentheses
    if (paren == std::string::npos) continue;
    std::istringstream rest(stat.substr(paren + 1));
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (rest >> state >> ppid >> pgrp && pgrp == pgid && state != 'Z' && state != 'X') return true;
  }
  return false;
}

// The simulator's environment with `extra` NAME=VALUE entries replacing or added.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  auto name_of = [](const std::string& s) { return s.substr(0, s.find('=')); };
  for (char** e = environ; e && *e; ++e) {
    const std::string s = *e;
    const bool replaced = std::any_of(extra.begin(), extra.end(), [&](const std::string& x) { return name_of(x) == name_of(s); });
    if (!replaced) env.push_back(s);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

// Moves `fd` to a number >= 100 so that dup2 onto 0..4 never overwrites a source.
int lift(int fd) { return ::fcntl(fd, F_DUPFD, 100); }

}  // namespace

HostProcess::HostProcess(const Spec& spec, TextOutput& output) : m_output(output) {
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
    throw std::runtime_error("cannot start " + program + ": " + std::strerror(child_errno));
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
      m_malformed = "a message of " + std::to_string(n) + " bytes on its request socket (fd 3), where the "
                    "platform's libmpich.so.12 sends requests of " + std::to_string(sizeof req) + " bytes";
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
        m_pending.append(buf, static_cast<size_t>(n));
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
  if (emit && !m_pending.empty()) {
    m_output.write(m_pending);
    m_pending.clear();
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
  // Whatever it left in its group goes with it, and is gone before we go
  // on (SIGKILL takes effect when the kernel next schedules each process).
  ::kill(-m_pid, SIGKILL);
  for (int i = 0; i < 400 && group_alive(m_pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
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
