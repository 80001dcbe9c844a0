#include "host/process_tree.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>

#include "host/exec_protocol.h"

namespace m2 {
namespace {

// One process as /proc/PID/stat shows it.
struct ProcRow {
  pid_t pid, ppid;
  char state;  // 'Z', 'X': gone but not reaped
};

// Room for every process of a busy machine; a static array, so that the
// signal handlers need no allocation.
constexpr int kMaxRows = 32768;
ProcRow g_rows[kMaxRows];

// The layout getdents64 fills in (glibc declares no wrapper for it).
struct DirEntry64 {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

// Async-signal-safe: plain system calls on fixed buffers. Fills `rows` with
// every process of the machine (up to `cap`); returns how many.
int scan_processes(ProcRow* rows, int cap) noexcept {
  const int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  int n = 0;
  char entries[8192];
  long got;
  while (n < cap && (got = ::syscall(SYS_getdents64, dir, entries, sizeof entries)) > 0) {
    for (long at = 0; at < got && n < cap;) {
      const auto* d = reinterpret_cast<const DirEntry64*>(entries + at);
      at += d->reclen;
      pid_t pid = 0;
      const char* c = d->name;
      for (; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
      if (*c != '\0' || pid <= 0) continue;  // not a process
      char path[32] = "";
      // "<pid>/stat", relative to /proc
      char digits[16];
      int k = 0;
      for (pid_t p = pid; p > 0; p /= 10) digits[k++] = static_cast<char>('0' + p % 10);
      int len = 0;
      while (k > 0) path[len++] = digits[--k];
      std::memcpy(path + len, "/stat", 6);
      const int fd = ::openat(dir, path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;  // gone meanwhile
      char stat[512];
      const ssize_t r = ::read(fd, stat, sizeof stat - 1);
      ::close(fd);
      if (r <= 0) continue;
      stat[r] = '\0';
      // "pid (comm) S ppid ...": the command may hold spaces and ')'.
      const char* paren = std::strrchr(stat, ')');
      if (!paren || paren[1] != ' ' || paren[2] == '\0' || paren[3] != ' ') continue;
      pid_t ppid = 0;
      for (const char* q = paren + 4; *q >= '0' && *q <= '9'; ++q) ppid = ppid * 10 + (*q - '0');
      rows[n++] = {pid, ppid, paren[2]};
    }
  }
  ::close(dir);
  // By pid, for below()'s binary search (/proc lists them so already;
  // std::sort allocates nothing).
  std::sort(rows, rows + n, [](const ProcRow& a, const ProcRow& b) { return a.pid < b.pid; });
  return n;
}

// Whether rows[i] runs below process `root` without passing through a
// process of `keep` (nkeep entries). `rows` sorted by pid. Async-signal-safe.
bool below(const ProcRow* rows, int n, int i, pid_t root, const pid_t* keep, size_t nkeep) noexcept {
  pid_t p = rows[i].pid;
  for (int depth = 0; depth < 4096; ++depth) {
    for (size_t k = 0; k < nkeep; ++k)
      if (keep[k] == p) return false;
    const ProcRow* r = std::lower_bound(rows, rows + n, p, [](const ProcRow& a, pid_t b) { return a.pid < b; });
    const pid_t parent = r != rows + n && r->pid == p ? r->ppid : -1;
    if (parent == root) return true;
    if (parent <= 1) return false;
    p = parent;
  }
  return false;
}

bool gone(char state) { return state == 'Z' || state == 'X'; }

std::string read_first_line(const std::string& file) {
  std::ifstream f(file);
  std::string s;
  std::getline(f, s);
  return s;
}

// The M2VP_NODE of the process' environment as it was started ("" if none).
std::string node_of(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  const std::string env((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::string key = std::string(M2X_ENV_NODE) + "=";
  for (size_t at = 0; at < env.size();) {
    const size_t end = env.find('\0', at);
    const std::string entry = env.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (entry.rfind(key, 0) == 0) return entry.substr(key.size());
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

}  // namespace

void adopt_orphans() {
  static const bool done = ::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
  (void)done;
}

std::vector<Leftover> kill_leftovers(const std::vector<pid_t>& keep) {
  const pid_t self = ::getpid();
  std::map<pid_t, Leftover> killed;
  std::vector<ProcRow> rows(kMaxRows);
  // 400 passes of 5 ms: SIGKILL takes effect when the kernel next schedules
  // each process; a parent killed lets its zombies come to us for reaping.
  // Done after two empty passes: a process whose parent ended between the
  // reads of their stat files shows no chain to us in one pass.
  int empty_passes = 0;
  for (int pass = 0; pass < 400 && empty_passes < 2; ++pass) {
    const int n = scan_processes(rows.data(), kMaxRows);
    bool any = false;
    for (int i = 0; i < n; ++i) {
      if (!below(rows.data(), n, i, self, keep.data(), keep.size())) continue;
      const ProcRow& r = rows[i];
      any = true;
      if (!gone(r.state)) {
        if (!killed.count(r.pid)) {
          Leftover l;
          l.pid = r.pid;
          l.name = read_first_line("/proc/" + std::to_string(r.pid) + "/comm");
          l.node = node_of(r.pid);
          killed[r.pid] = l;
        }
        ::kill(r.pid, SIGKILL);
      }
      if (r.ppid == self) ::waitpid(r.pid, nullptr, WNOHANG);  // only this pid: other waiters keep theirs
    }
    empty_passes = any ? 0 : empty_passes + 1;
    if (any) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::vector<Leftover> out;
  for (auto& [pid, l] : killed) out.push_back(l);
  return out;
}

void kill_all_descendants() noexcept {
  const pid_t self = ::getpid();
  for (int pass = 0; pass < 3; ++pass) {
    const int n = scan_processes(g_rows, kMaxRows);
    bool any = false;
    for (int i = 0; i < n; ++i)
      if (!gone(g_rows[i].state) && below(g_rows, n, i, self, nullptr, 0)) {
        ::kill(g_rows[i].pid, SIGKILL);
        any = true;
      }
    if (!any) return;
  }
}

}  // namespace m2
