// Helpers of the GDB integration tests (test_gdb.cpp, test_gdb_platform.cpp):
// free ports, gdb-multiarch in batch mode, and a minimal RSP client written
// from the protocol documentation.
#pragma once

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <regex>

#include "run_sim.h"

namespace m2it {

inline const std::string kFirmwareDir = M2VP_TEST_FIRMWARE_DIR;
inline constexpr int EXIT_CONFIG = 64, EXIT_KILLED = 67;

// A port nobody listens on right now (the kernel's choice for port 0).
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(fd);
  return ntohs(a.sin_port);
}

// gdb-multiarch from PATH; the test fails with a clear message without it.
inline std::string gdb_path() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path p = fs::path(dir.empty() ? "." : dir) / "gdb-multiarch";
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  FAIL(
      "gdb-multiarch is not installed (not found in PATH): install the Debian package gdb-multiarch "
      "(./m2vp installs it)");
  return "";
}

inline std::string firmware_elf(const std::string& name) { return (fs::path(kFirmwareDir) / (name + ".elf")).string(); }

// Runs gdb-multiarch in batch mode on `elf`, connected to `port`, with the
// commands in `cmds`; stdout and stderr together in out.
inline SimResult run_gdb(Sandbox& sb, int port, const std::string& elf, const std::vector<std::string>& cmds) {
  std::vector<std::string> argv{gdb_path(),
                                "-batch",
                                "-nx",
                                "-ex",
                                "set architecture powerpc:603",
                                "-ex",
                                "target remote :" + std::to_string(port)};
  for (const std::string& c : cmds) {
    argv.push_back("-ex");
    argv.push_back(c);
  }
  argv.push_back(elf);
  SimResult r = sb.start_program(argv).wait(60);
  r.out += r.err;  // GDB prints target output and errors on both
  return r;
}

// ---- a minimal RSP client, written from the protocol documentation --------

class RspClient {
 public:
  ~RspClient() {
    if (m_fd >= 0) ::close(m_fd);
  }
  // Connects, retrying while the simulator starts up.
  bool connect(int port, double timeout_s = 20) {
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < timeout_s * kWallScale) {
      m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<uint16_t>(port));
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return true;
      ::close(m_fd);
      m_fd = -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  void close() {
    ::close(m_fd);
    m_fd = -1;
  }
  void send_raw(const std::string& bytes) {
    REQUIRE(::send(m_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == ssize_t(bytes.size()));
  }
  static std::string frame(const std::string& payload) {
    unsigned sum = 0;
    for (unsigned char c : payload) sum += c;
    char cs[3];
    std::snprintf(cs, sizeof cs, "%02x", sum & 0xFF);
    return "$" + payload + "#" + cs;
  }
  void send(const std::string& payload) { send_raw(frame(payload)); }

  // The next packet other than console output ('O', collected in console()).
  // nullopt on timeout or when the server hung up.
  std::optional<std::string> receive(double timeout_s = 10) {
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
      while (!m_buf.empty() && (m_buf[0] == '+' || m_buf[0] == '-')) {
        if (m_buf[0] == '-') ++m_naks;
        m_buf.erase(0, 1);
      }
      const size_t hash = m_buf.find('#');
      if (!m_buf.empty() && m_buf[0] == '$' && hash != std::string::npos && m_buf.size() >= hash + 3) {
        const std::string payload = m_buf.substr(1, hash - 1);
        m_buf.erase(0, hash + 3);
        send_raw("+");
        if (payload.size() > 1 && payload[0] == 'O' && payload != "OK") {
          for (size_t i = 1; i + 1 < payload.size(); i += 2)
            m_console += static_cast<char>(std::stoi(payload.substr(i, 2), nullptr, 16));
          continue;
        }
        return payload;
      }
      const double left =
          timeout_s * kWallScale - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (left <= 0) return std::nullopt;
      pollfd p{m_fd, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left * 1000) + 1) <= 0) continue;
      char b[4096];
      const ssize_t n = ::recv(m_fd, b, sizeof b, 0);
      if (n <= 0) return std::nullopt;
      m_buf.append(b, size_t(n));
    }
  }
  std::string command(const std::string& payload, double timeout_s = 10) {
    send(payload);
    return receive(timeout_s).value_or("<no reply>");
  }
  // "monitor CMD" output.
  std::string monitor(const std::string& cmd) {
    std::string hex;
    char b[3];
    for (unsigned char c : cmd) {
      std::snprintf(b, sizeof b, "%02x", c);
      hex += b;
    }
    const std::string r = command("qRcmd," + hex);
    std::string text;
    for (size_t i = 0; i + 1 < r.size(); i += 2) text += static_cast<char>(std::stoi(r.substr(i, 2), nullptr, 16));
    return text;
  }
  const std::string& console() const { return m_console; }
  int naks() const { return m_naks; }

 private:
  int m_fd = -1;
  std::string m_buf, m_console;
  int m_naks = 0;
};

// The value of register `index` (32-bit) from a 'g' reply of the 603e:
// r0-r31 (4 bytes), f0-f31 (8 bytes), then pc, msr, cr, lr, ctr, xer, fpscr.
inline uint32_t reg32(const std::string& g, unsigned index) {
  const size_t off = index < 32 ? 8 * index : 8 * 32 + 16 * 32 + 8 * (index - 64);
  return static_cast<uint32_t>(std::stoul(g.substr(off, 8), nullptr, 16));
}

// "ni0.cpu: simulated time N ps ..." from monitor time.
inline uint64_t monitor_ps(const std::string& text) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(R"(simulated time (\d+) ps)"))) return 0;
  return std::stoull(m[1]);
}

inline std::string gdb_set(int port) { return "ni0.cpu=" + std::to_string(port); }

// A socket listening on 127.0.0.1: its port is in use. Returns the descriptor.
inline int listening_socket(int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::listen(fd, 1) == 0);
  socklen_t len = sizeof a;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  port = ntohs(a.sin_port);
  return fd;
}

}  // namespace m2it
