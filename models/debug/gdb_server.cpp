#include "debug/gdb_server.h"

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "core/log.h"

namespace m2 {
namespace {

// Error replies (the numbers are ours; GDB only shows them).
const char* const E_SYNTAX = "E01";    // malformed packet
const char* const E_REGISTER = "E02";  // no such register
const char* const E_MEMORY = "E03";    // address outside any memory (or not accessible)
const char* const E_BREAK = "E04";     // no breakpoint possible there
const char* const E_WATCH = "E05";     // no watchpoint possible there

// The largest memory block per 'm' reply (hex doubles it; PacketSize=4000).
constexpr size_t MAX_MEMORY_READ = gdb::MAX_PACKET / 2 - 32;

std::optional<std::pair<uint64_t, uint64_t>> parse_addr_len(std::string_view s) {
  const size_t comma = s.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  const auto addr = gdb::parse_hex(s.substr(0, comma));
  const auto len = gdb::parse_hex(s.substr(comma + 1));
  if (!addr || !len) return std::nullopt;
  return std::make_pair(*addr, *len);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Thread ids in packets: "1", "-1", "0", "p1.1", "p1.-1"... This target has
// one process with one thread, id 1.
bool our_thread(std::string_view tid) {
  if (!tid.empty() && tid[0] == 'p') {
    const size_t dot = tid.find('.');
    tid = dot == std::string_view::npos ? std::string_view("-1") : tid.substr(dot + 1);
  }
  return tid.empty() || tid == "-1" || tid == "0" || tid == "1";
}

}  // namespace

GdbServer::GdbServer(std::string name, GdbTarget& target) : m_name(std::move(name)), m_target(target) {}

GdbServer::~GdbServer() = default;

void GdbServer::listen(uint16_t port) { m_listener.listen(port); }

void GdbServer::use_connection(int fd) { accepted(fd); }

void GdbServer::wait_for_connection() {
  if (m_conn || !m_listener.listening()) return;
  const int fd = m_listener.accept(true);
  if (fd >= 0) accepted(fd);
}

void GdbServer::accepted(int fd) {
  m_conn = std::make_unique<gdb::Connection>(fd);
  m_reader = gdb::PacketReader();
  m_waiting = false;
  m_last_sent.clear();
  // One client at a time: a second GDB would otherwise sit in the listen
  // queue with no answer at all; with the port closed it is refused at once.
  m_reopen_port = m_listener.listening();
  m_listener.close();
  Log::instance().out(m_name + ": GDB connected" +
                      (m_reopen_port ? " (port closed to other clients until it detaches)" : ""));
}

void GdbServer::drop_connection(const std::string& why) {
  remove_all_points();            // GDB is gone: its breakpoints must not stop the CPU any more
  m_conn->close_gracefully(500);  // GDB still has to read our last reply
  m_conn.reset();
  m_waiting = false;
  std::string reopened;
  if (m_reopen_port) {
    m_reopen_port = false;
    try {
      m_listener.listen(m_listener.port());
      reopened = ", GDB may connect again";
    } catch (const std::runtime_error& e) {
      Log::instance().warning(m_name + ": cannot reopen the GDB port: " + e.what());
    }
  }
  Log::instance().out(m_name + ": " + why + "; the CPU runs on" + reopened);
}

std::optional<int> GdbServer::poll_socket() {
  if (!m_conn) {
    const int fd = m_listener.accept(false);
    if (fd < 0) return std::nullopt;
    accepted(fd);
    return SIG_TRAP;  // GDB expects a halted target when it attaches
  }
  std::string in;
  if (m_conn->receive(in, false) == gdb::Connection::Read::Closed) {
    drop_connection("GDB closed the connection");
    return std::nullopt;
  }
  // Also what came with the resuming packet (a quick Ctrl-C).
  m_reader.feed(in);
  bool interrupt = false;
  while (auto e = m_reader.next()) {
    if (e->kind == gdb::PacketReader::Event::Interrupt) interrupt = true;
    else if (e->kind == gdb::PacketReader::Event::Nak && !m_last_sent.empty()) m_conn->send(m_last_sent);
    // In all-stop mode GDB sends nothing else while the CPU runs.
  }
  return interrupt ? std::optional<int>(SIG_INT) : std::nullopt;
}

void GdbServer::remove_all_points() {
  for (uint64_t a : m_breakpoints) m_target.remove_breakpoint(a);
  m_breakpoints.clear();
  for (const auto& [type, addr, len] : m_watchpoints) m_target.remove_watchpoint(type, addr, len);
  m_watchpoints.clear();
}

GdbServer::Resume GdbServer::serve_halted(int signal, std::optional<WatchStop> watch) {
  m_last_signal = signal;
  m_last_watch = watch;
  if (!m_conn) return Resume::Continue;
  if (m_waiting) {
    m_waiting = false;
    send_packet(stop_reply(signal, watch));
  }
  for (;;) {
    while (auto e = m_reader.next()) {
      if (auto r = on_event(*e)) return *r;
      if (!m_conn) return Resume::Continue;  // detached
    }
    std::string in;
    if (m_conn->receive(in, true) == gdb::Connection::Read::Closed) {
      drop_connection("GDB closed the connection");
      return Resume::Continue;
    }
    m_reader.feed(in);
  }
}

std::optional<GdbServer::Resume> GdbServer::on_event(const gdb::PacketReader::Event& e) {
  using Ev = gdb::PacketReader::Event;
  switch (e.kind) {
    case Ev::Packet: {
      m_conn->send("+");
      const Reply r = handle(e.payload);
      if (r.packet) send_packet(*r.packet);
      if (r.detach) {
        drop_connection("GDB detached");
        return Resume::Continue;
      }
      if (r.resume == Resume::Kill) {
        m_breakpoints.clear();  // the run ends: nothing to clean up in the CPU
        m_watchpoints.clear();
        m_conn->close_gracefully(500);
        m_conn.reset();
        Log::instance().out(m_name + ": killed by GDB");
      } else if (r.resume) {
        m_waiting = true;
      }
      return r.resume;
    }
    case Ev::BadPacket:
      m_conn->send("-");
      return std::nullopt;
    case Ev::Nak:
      if (!m_last_sent.empty()) m_conn->send(m_last_sent);
      return std::nullopt;
    case Ev::Ack:        // we do not wait for acknowledgements
    case Ev::Interrupt:  // already halted
      return std::nullopt;
  }
  return std::nullopt;
}

void GdbServer::send_packet(const std::string& payload) {
  if (!m_conn) return;
  m_last_sent = gdb::frame(payload);
  m_conn->send(m_last_sent);  // a failure shows as a closed connection on the next read
}

void GdbServer::output(std::string_view text) {
  if (m_conn && m_waiting && !text.empty()) send_packet("O" + gdb::to_hex(text));
}

void GdbServer::exited(int code) {
  char b[8];
  std::snprintf(b, sizeof b, "W%02x", code & 0xFF);
  finish(b);
}

void GdbServer::terminated(int signal) {
  char b[8];
  std::snprintf(b, sizeof b, "X%02x", signal & 0xFF);
  finish(b);
}

void GdbServer::finish(const std::string& packet) {
  m_listener.close();
  m_reopen_port = false;
  if (!m_conn) return;
  send_packet(packet);
  m_conn->close_gracefully(2000);  // GDB acks and hangs up at once
  m_conn.reset();
}

std::string GdbServer::stop_reply(int signal, const std::optional<WatchStop>& watch) const {
  char b[64];
  int n = std::snprintf(b, sizeof b, "T%02xthread:%s;", signal & 0xFF, stop_thread().c_str());
  if (watch) {
    // GDB reads the data address to find which watchpoint triggered.
    const char* kind = watch->type == GdbWatch::Write ? "watch" : watch->type == GdbWatch::Read ? "rwatch" : "awatch";
    std::snprintf(b + n, sizeof b - n, "%s:%llx;", kind, static_cast<unsigned long long>(watch->addr));
  }
  return b;
}

// ---- packets ----------------------------------------------------------------

GdbServer::Reply GdbServer::handle(const std::string& p) {
  if (p.empty()) return {std::string()};
  const std::string_view args = std::string_view(p).substr(1);
  switch (p[0]) {
    case '?':
      return {stop_reply(m_last_signal, m_last_watch)};
    case 'g':
      return {read_registers()};
    case 'G':
      return {write_registers(args)};
    case 'p':
      return {read_register(args)};
    case 'P':
      return {write_register(args)};
    case 'm':
      return {read_memory(args)};
    case 'M':
      return {write_memory(args, false)};
    case 'X':
      return {write_memory(args, true)};
    case 'Z':
      return {breakpoint(p, true)};
    case 'z':
      return {breakpoint(p, false)};
    case 'c':
    case 'C':
    case 's':
    case 'S':
      return resume(p[0], args);
    case 'k':
      return {std::nullopt, Resume::Kill};
    case 'D':
      return {std::string("OK"), std::nullopt, true};
    case 'H':
      return {std::string(our_thread(args.substr(args.empty() ? 0 : 1)) ? "OK" : E_SYNTAX)};
    case 'T':
      return {std::string(our_thread(args) ? "OK" : E_SYNTAX)};
    case 'q':
      return {query(p)};
    case 'v':
      if (starts_with(p, "vCont")) return vcont(std::string_view(p).substr(5));
      if (starts_with(p, "vKill")) return {std::string("OK"), Resume::Kill};
      return {std::string()};  // vMustReplyEmpty and everything else
  }
  return {std::string()};  // unsupported
}

std::string GdbServer::encode_register(size_t index) {
  const unsigned n = m_target.register_bytes(index);
  const uint64_t v = m_target.read_register(index);
  uint8_t b[8] = {};
  for (unsigned i = 0; i < n && i < 8; ++i) {
    const unsigned shift = 8 * (m_target.big_endian() ? n - 1 - i : i);
    b[i] = static_cast<uint8_t>(v >> shift);
  }
  return gdb::to_hex(b, n);
}

namespace {

uint64_t decode_register(const uint8_t* b, unsigned n, bool big_endian) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= uint64_t(b[i]) << (8 * (big_endian ? n - 1 - i : i));
  return v;
}

}  // namespace

std::string GdbServer::read_registers() {
  std::string s;
  for (size_t i = 0; i < m_target.register_count(); ++i) s += encode_register(i);
  return s;
}

std::string GdbServer::write_registers(std::string_view hex) {
  std::vector<uint8_t> bytes;
  if (!gdb::from_hex(hex, bytes)) return E_SYNTAX;
  size_t total = 0;
  for (size_t i = 0; i < m_target.register_count(); ++i) total += m_target.register_bytes(i);
  if (bytes.size() != total) return E_SYNTAX;
  size_t off = 0;
  for (size_t i = 0; i < m_target.register_count(); ++i) {
    const unsigned n = m_target.register_bytes(i);
    m_target.write_register(i, decode_register(&bytes[off], n, m_target.big_endian()));
    off += n;
  }
  return "OK";
}

std::string GdbServer::read_register(std::string_view args) {
  const auto index = gdb::parse_hex(args);
  if (!index) return E_SYNTAX;
  if (*index >= m_target.register_count()) return E_REGISTER;
  return encode_register(*index);
}

std::string GdbServer::write_register(std::string_view args) {
  const size_t eq = args.find('=');
  if (eq == std::string_view::npos) return E_SYNTAX;
  const auto index = gdb::parse_hex(args.substr(0, eq));
  std::vector<uint8_t> bytes;
  if (!index || !gdb::from_hex(args.substr(eq + 1), bytes)) return E_SYNTAX;
  if (*index >= m_target.register_count()) return E_REGISTER;
  const unsigned n = m_target.register_bytes(*index);
  if (bytes.size() != n) return E_SYNTAX;
  m_target.write_register(*index, decode_register(bytes.data(), n, m_target.big_endian()));
  return "OK";
}

std::string GdbServer::read_memory(std::string_view args) {
  const auto al = parse_addr_len(args);
  if (!al || al->second == 0) return E_SYNTAX;
  const size_t len = static_cast<size_t>(std::min<uint64_t>(al->second, MAX_MEMORY_READ));  // GDB takes a short reply
  std::vector<uint8_t> buf(len);
  const size_t n = m_target.read_memory(al->first, buf.data(), len);
  if (n == 0) return E_MEMORY;
  return gdb::to_hex(buf.data(), n);
}

std::string GdbServer::write_memory(std::string_view args, bool binary) {
  const size_t colon = args.find(':');
  if (colon == std::string_view::npos) return E_SYNTAX;
  const auto al = parse_addr_len(args.substr(0, colon));
  if (!al) return E_SYNTAX;
  std::vector<uint8_t> data;
  const std::string_view body = args.substr(colon + 1);
  if (binary) {
    const auto raw = gdb::unescape(body);
    if (!raw) return E_SYNTAX;
    data.assign(raw->begin(), raw->end());
  } else if (!gdb::from_hex(body, data)) {
    return E_SYNTAX;
  }
  if (data.size() != al->second) return E_SYNTAX;
  if (data.empty()) return "OK";  // GDB probes 'X' support this way
  return m_target.write_memory(al->first, data.data(), data.size()) == data.size() ? "OK" : E_MEMORY;
}

std::string GdbServer::breakpoint(const std::string& p, bool insert) {
  // Z<type>,<addr>,<kind>[;cond...]: 0 software, 1 hardware (both are
  // patched into memory here); 2-4 watchpoints, <kind> their length.
  if (p.size() < 3 || p[2] != ',') return E_SYNTAX;
  if (p[1] < '0' || p[1] > '4') return E_SYNTAX;
  if (p[1] >= '2') return watchpoint(static_cast<GdbWatch>(p[1] - '0'), std::string_view(p).substr(3), insert);
  std::string_view rest = std::string_view(p).substr(3);
  rest = rest.substr(0, rest.find(';'));
  const auto al = parse_addr_len(rest);  // addr,kind
  if (!al) return E_SYNTAX;
  const uint64_t addr = al->first;
  if (insert) {
    if (!m_target.insert_breakpoint(addr)) return E_BREAK;
    m_breakpoints.insert(addr);
  } else {
    m_target.remove_breakpoint(addr);
    m_breakpoints.erase(addr);
  }
  return "OK";
}

std::string GdbServer::watchpoint(GdbWatch type, std::string_view args, bool insert) {
  const auto al = parse_addr_len(args);  // addr,length
  if (!al || al->second == 0) return E_SYNTAX;
  const Watchpoint w{type, al->first, al->second};
  if (insert) {
    if (!m_target.insert_watchpoint(type, al->first, al->second)) return E_WATCH;
    m_watchpoints.insert(w);
  } else if (auto it = m_watchpoints.find(w); it != m_watchpoints.end()) {
    m_target.remove_watchpoint(type, al->first, al->second);
    m_watchpoints.erase(it);
  }
  return "OK";
}

GdbServer::Reply GdbServer::resume(char action, std::string_view args) {
  if (action == 'C' || action == 'S') {
    // The signal is dropped: a bare CPU has no signals to deliver.
    const size_t semi = args.find(';');
    if (!gdb::parse_hex(args.substr(0, semi))) return {std::string(E_SYNTAX)};
    args = semi == std::string_view::npos ? std::string_view() : args.substr(semi + 1);
  }
  if (!args.empty()) {  // resume at an address
    const auto addr = gdb::parse_hex(args);
    if (!addr) return {std::string(E_SYNTAX)};
    m_target.write_register(m_target.pc_register(), *addr);
  }
  m_step_range.reset();
  return {std::nullopt, action == 'c' || action == 'C' ? Resume::Continue : Resume::Step};
}

GdbServer::Reply GdbServer::vcont(std::string_view actions) {
  if (actions == "?") return {std::string("vCont;c;C;s;S;r")};
  if (actions.empty() || actions[0] != ';') return {std::string(E_SYNTAX)};
  const auto parsed = gdb::parse_vcont(actions.substr(1));  // 't' and unknown actions: error
  if (!parsed) return {std::string(E_SYNTAX)};
  // The first action that applies to our thread decides.
  for (const gdb::VContAction& a : *parsed)
    if (!a.thread || our_thread(*a.thread)) {
      m_step_range = a.range;
      return {std::nullopt, a.step ? Resume::Step : Resume::Continue};
    }
  return {std::string(E_SYNTAX)};
}

std::string GdbServer::query(const std::string& p) {
  if (starts_with(p, "qSupported")) {
    std::string s = "PacketSize=" + std::string("4000");
    if (!m_target.target_xml().empty()) s += ";qXfer:features:read+";
    return s;
  }
  if (p == "qAttached" || starts_with(p, "qAttached:")) return "1";  // quitting GDB detaches, it does not kill
  if (p == "qC") return "QC1";
  if (p == "qfThreadInfo") return "m1";
  if (p == "qsThreadInfo") return "l";
  if (starts_with(p, "qThreadExtraInfo,")) return gdb::to_hex(m_name);
  if (starts_with(p, "qSymbol:")) return "OK";
  if (starts_with(p, "qXfer:features:read:")) {
    const std::string_view rest = std::string_view(p).substr(20);
    const size_t colon = rest.find(':');
    if (colon == std::string_view::npos) return E_SYNTAX;
    const auto al = parse_addr_len(rest.substr(colon + 1));
    if (!al) return E_SYNTAX;
    const std::string xml = m_target.target_xml();
    if (rest.substr(0, colon) != "target.xml" || xml.empty()) return "E00";  // no such annex
    if (al->first >= xml.size()) return "l";
    const std::string chunk = xml.substr(al->first, std::min<uint64_t>(al->second, MAX_MEMORY_READ));
    return (al->first + chunk.size() < xml.size() ? "m" : "l") + gdb::escape(chunk);
  }
  if (starts_with(p, "qRcmd,")) {
    std::vector<uint8_t> cmd;
    if (!gdb::from_hex(std::string_view(p).substr(6), cmd)) return E_SYNTAX;
    std::string command(cmd.begin(), cmd.end());
    if (command.find_first_not_of(" \t") == std::string::npos) command = "help";  // a bare `monitor`
    std::string out = m_target.monitor(command);
    if (out.empty()) out = "unknown monitor command '" + command + "' (try 'monitor help')\n";
    return gdb::to_hex(out);
  }
  return "";  // unsupported (qOffsets, qTStatus, ...): GDB falls back
}

}  // namespace m2
