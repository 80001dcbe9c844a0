// A GDB remote serial protocol server for one CPU (all-stop, one thread).
//
// The server does not run anything itself: the CPU's run loop calls it.
//  - halted (breakpoint, step done, Ctrl-C, waiting for GDB): serve_halted()
//    answers packets with blocking reads until GDB resumes the CPU, so a
//    SystemC thread calling it stops the whole simulation meanwhile;
//  - running: poll() checks the socket without blocking (at most every few
//    milliseconds of wall time) for Ctrl-C or a new connection.
// handle() is the protocol without I/O. Nothing here depends on SystemC.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "debug/gdb_packet.h"
#include "debug/gdb_socket.h"

namespace m2 {

// Data watchpoints by their Z packet type: GDB's watch, rwatch and awatch.
enum class GdbWatch { Write = 2, Read = 3, Access = 4 };

// The debugged CPU as the server sees it; called only while it is halted.
class GdbTarget {
 public:
  virtual ~GdbTarget() = default;
  // Target description XML (qXfer:features:read); "" offers none.
  virtual std::string target_xml() = 0;
  // Registers in GDB's numbering, in target byte order on the wire.
  virtual size_t register_count() = 0;
  virtual unsigned register_bytes(size_t index) = 0;
  virtual uint64_t read_register(size_t index) = 0;
  virtual void write_register(size_t index, uint64_t value) = 0;
  virtual size_t pc_register() = 0;
  virtual bool big_endian() = 0;
  // Access [addr, addr+len); returns how many bytes from addr succeeded.
  virtual size_t read_memory(uint64_t addr, uint8_t* data, size_t len) = 0;
  virtual size_t write_memory(uint64_t addr, const uint8_t* data, size_t len) = 0;
  // Software breakpoints; false when none can be placed at addr.
  virtual bool insert_breakpoint(uint64_t addr) = 0;
  virtual void remove_breakpoint(uint64_t addr) = 0;
  // Data watchpoints on [addr, addr+len); false when none can be set there.
  virtual bool insert_watchpoint(GdbWatch, uint64_t /*addr*/, uint64_t /*len*/) { return false; }
  virtual void remove_watchpoint(GdbWatch, uint64_t /*addr*/, uint64_t /*len*/) {}
  // Output of "monitor <command>"; "" when the command is unknown.
  virtual std::string monitor(const std::string& command) = 0;
};

class GdbServer {
 public:
  enum class Resume { Continue, Step, Kill };

  // GDB's signal numbers (the protocol's, not the host's).
  static constexpr int SIG_INT = 2, SIG_ILL = 4, SIG_TRAP = 5, SIG_FPE = 8, SIG_KILL = 9, SIG_BUS = 10, SIG_SEGV = 11;

  // `name` ("ni0.cpu") appears in messages and as the thread's name.
  GdbServer(std::string name, GdbTarget& target);
  virtual ~GdbServer();

  // Listens on 127.0.0.1:port; throws std::runtime_error saying why not.
  void listen(uint16_t port);
  uint16_t port() const { return m_listener.port(); }
  // Takes an already connected socket (tests: one end of a socketpair).
  void use_connection(int fd);
  bool connected() const { return m_conn != nullptr; }
  bool active() const { return m_conn || m_listener.listening(); }
  // Blocks until GDB connects (returns at once when connected).
  void wait_for_connection();

  // While the CPU runs. A signal to halt with when GDB has just connected
  // (SIG_TRAP) or sent Ctrl-C (SIG_INT); then call serve_halted(). Looks at
  // the socket only every POLL_INTERVAL of wall time: cheap to call often.
  std::optional<int> poll() {
    if (!active()) return std::nullopt;
    const auto now = std::chrono::steady_clock::now();
    if (now < m_next_poll) return std::nullopt;
    m_next_poll = now + POLL_INTERVAL;
    return poll_socket();
  }
  static constexpr std::chrono::milliseconds POLL_INTERVAL{10};

  // A stop by a watchpoint: its type and the watched data address accessed.
  struct WatchStop {
    GdbWatch type;
    uint64_t addr;
  };

  // The CPU has halted with `signal` (and `watch` when a watchpoint stopped
  // it): reports it to GDB if GDB waits for a stop, then serves packets until
  // GDB resumes or kills it. Without GDB (or when it goes away) the CPU continues.
  Resume serve_halted(int signal, std::optional<WatchStop> watch = std::nullopt);

  // Text the CPU printed: an 'O' packet while GDB waits for the CPU to stop.
  void output(std::string_view text);
  // The CPU's program has ended: "W<code>" or "X<signal>", then the
  // connection is closed (GDB considers the program gone).
  void exited(int code);
  void terminated(int signal);

  // ---- the protocol without I/O (unit tests) -----------------------------
  struct Reply {
    Reply(std::optional<std::string> p = std::nullopt, std::optional<Resume> r = std::nullopt, bool d = false)
        : packet(std::move(p)), resume(r), detach(d) {}
    std::optional<std::string> packet;  // nothing for k, c, s...
    std::optional<Resume> resume;
    bool detach;  // close the connection after the reply
  };
  // Virtual: a server of several threads (gdb_platform_server.h) answers
  // the thread packets itself and passes the rest on.
  virtual Reply handle(const std::string& payload);
  std::string stop_reply(int signal, const std::optional<WatchStop>& watch = std::nullopt) const;
  // Breakpoints and watchpoints (type, addr, len) GDB has inserted (removed when GDB leaves).
  const std::set<uint64_t>& breakpoints() const { return m_breakpoints; }
  // The range of the last step GDB asked for (vCont;r<start>,<end>): the CPU
  // steps on while its pc stays in [start, end); nullopt for a plain step.
  const std::optional<std::pair<uint64_t, uint64_t>>& step_range() const { return m_step_range; }
  using Watchpoint = std::tuple<GdbWatch, uint64_t, uint64_t>;
  const std::multiset<Watchpoint>& watchpoints() const { return m_watchpoints; }

 protected:
  // The thread named in stop replies ("1": the only one).
  virtual std::string stop_thread() const { return "1"; }

 private:
  std::optional<int> poll_socket();
  // Processes one reader event while halted; a resume ends serving.
  std::optional<Resume> on_event(const gdb::PacketReader::Event& e);
  void send_packet(const std::string& payload);
  void drop_connection(const std::string& why);
  void finish(const std::string& packet);
  void accepted(int fd);

  std::string read_registers();
  std::string write_registers(std::string_view hex);
  std::string read_register(std::string_view args);
  std::string write_register(std::string_view args);
  std::string read_memory(std::string_view args);
  std::string write_memory(std::string_view args, bool binary);
  std::string breakpoint(const std::string& packet, bool insert);
  std::string watchpoint(GdbWatch type, std::string_view args, bool insert);
  void remove_all_points();
  std::string query(const std::string& packet);
  Reply resume(char action, std::string_view args);
  Reply vcont(std::string_view actions);
  std::string encode_register(size_t index);

  std::string m_name;
  GdbTarget& m_target;
  gdb::Listener m_listener;
  bool m_reopen_port = false;  // the listener was closed while a client is attached
  std::unique_ptr<gdb::Connection> m_conn;
  gdb::PacketReader m_reader;
  std::string m_last_sent;  // resent on '-'
  bool m_waiting = false;   // GDB waits for a stop reply
  int m_last_signal = SIG_TRAP;
  std::optional<std::pair<uint64_t, uint64_t>> m_step_range;
  std::set<uint64_t> m_breakpoints;
  std::multiset<Watchpoint> m_watchpoints;
  std::optional<WatchStop> m_last_watch;  // of the last stop
  std::chrono::steady_clock::time_point m_next_poll{};
};

}  // namespace m2
