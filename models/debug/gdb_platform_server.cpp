#include "debug/gdb_platform_server.h"

#include <cstdint>
#include <cstdio>
#include <stdexcept>

namespace m2 {
namespace {

// Our error replies beyond gdb_server.cpp's E01-E05 (GDB only shows them).
const char* const E_SYNTAX = "E01";
const char* const E_THREAD = "E06";   // no such thread (or it has ended)
const char* const E_IN_STEP = "E07";  // the thread is inside a device access: registers read-only

constexpr size_t ALL = SIZE_MAX;

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string hex_id(size_t id) {
  char b[24];
  std::snprintf(b, sizeof b, "%zx", id);
  return b;
}

std::string xml_escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

}  // namespace

GdbPlatformServer::GdbPlatformServer(std::vector<std::string> threads)
    : GdbServer("platform", static_cast<GdbTarget&>(*this)) {
  if (threads.empty()) throw std::invalid_argument("a platform GDB server needs at least one thread");
  for (std::string& n : threads) m_threads.push_back({std::move(n), nullptr, true});
}

void GdbPlatformServer::bind(size_t id, Cpu& cpu) { m_threads.at(id - 1).cpu = &cpu; }

GdbServer::Resume GdbPlatformServer::serve_halted_as(size_t id, int signal, std::optional<WatchStop> watch) {
  // GDB makes the thread of a stop reply its current one (Hg included).
  m_stopped = m_selected = id;
  m_continue = 0;
  m_steps.clear();  // a step GDB asked of another thread ends with this stop
  return serve_halted(signal, watch);
}

void GdbPlatformServer::thread_ended(size_t id) {
  m_threads.at(id - 1).alive = false;
  m_steps.erase(id);
}

std::string GdbPlatformServer::stop_thread() const { return hex_id(m_stopped); }

std::optional<size_t> GdbPlatformServer::parse_thread(std::string_view t) const {
  if (starts_with(t, "p")) {  // multiprocess form: one process, pid ignored
    const size_t dot = t.find('.');
    t = dot == std::string_view::npos ? std::string_view("-1") : t.substr(dot + 1);
  }
  if (t == "-1") return ALL;
  const auto v = gdb::parse_hex(t);
  if (!v) return std::nullopt;
  return static_cast<size_t>(*v);
}

// ---- packets ----------------------------------------------------------------

GdbServer::Reply GdbPlatformServer::handle(const std::string& p) {
  if (p.empty()) return GdbServer::handle(p);
  const std::string_view args = std::string_view(p).substr(1);
  switch (p[0]) {
    case 'H':
      return {select(args.empty() ? '\0' : args[0], args.substr(args.empty() ? 0 : 1))};
    case 'T': {
      const auto id = parse_thread(args);
      if (!id) return {std::string(E_SYNTAX)};
      return {std::string(valid(*id) ? "OK" : E_THREAD)};
    }
    case 'G':
    case 'P':
      // Its SystemC thread waits inside an instruction: the ISS would lose them.
      if (current().in_step()) return {std::string(E_IN_STEP)};
      break;
    case 'c':
    case 'C': {
      Reply r = GdbServer::handle(p);
      if (r.resume) m_steps.clear();
      return r;
    }
    case 's':
    case 'S': {
      const size_t who = m_continue != 0 ? m_continue : m_selected;
      Reply r = GdbServer::handle(p);  // checks the packet, resumes at an address
      if (r.resume == Resume::Step) {
        m_steps.clear();
        request_step(who);
        r.resume = Resume::Continue;  // the halted CPU resumes; `who` steps when it runs
      }
      return r;
    }
    case 'v':
      if (starts_with(p, "vCont")) return resume_vcont(std::string_view(p).substr(5));
      break;
    case 'q': {
      std::string r = thread_query(p);
      if (!r.empty()) return {r};
      if (starts_with(p, "qSupported")) {
        Reply base = GdbServer::handle(p);
        *base.packet += ";qXfer:threads:read+";
        return base;
      }
      break;
    }
  }
  return GdbServer::handle(p);
}

std::string GdbPlatformServer::select(char op, std::string_view id_text) {
  const auto id = parse_thread(id_text);
  if ((op != 'g' && op != 'c') || !id) return E_SYNTAX;
  if (*id == 0 || *id == ALL) {  // any / all: keep the current one
    if (op == 'c') m_continue = 0;
    return "OK";
  }
  if (!valid(*id)) return E_THREAD;
  (op == 'g' ? m_selected : m_continue) = *id;
  return "OK";
}

std::string GdbPlatformServer::thread_query(const std::string& p) {
  if (p == "qC") return "QC" + hex_id(m_stopped);
  if (p == "qfThreadInfo") {
    std::string r = "m";
    for (size_t id = 1; id <= m_threads.size(); ++id)
      if (valid(id)) r += (r.size() > 1 ? "," : "") + hex_id(id);
    return r.size() > 1 ? r : "l";
  }
  if (p == "qsThreadInfo") return "l";
  if (starts_with(p, "qThreadExtraInfo,")) {
    const auto id = parse_thread(std::string_view(p).substr(17));
    if (!id || !valid(*id)) return E_THREAD;
    const std::string state = cpu(*id).state();
    return gdb::to_hex(m_threads[*id - 1].name + (state.empty() ? "" : " (" + state + ")"));
  }
  if (starts_with(p, "qXfer:threads:read::")) {
    const std::string_view range = std::string_view(p).substr(20);
    const size_t comma = range.find(',');
    const auto off = gdb::parse_hex(range.substr(0, comma));
    const auto len = comma == std::string_view::npos ? std::nullopt : gdb::parse_hex(range.substr(comma + 1));
    if (!off || !len) return E_SYNTAX;
    const std::string xml = threads_xml();
    if (*off >= xml.size()) return "l";
    const std::string chunk = xml.substr(*off, std::min<uint64_t>(*len, gdb::MAX_PACKET / 2));
    return (*off + chunk.size() < xml.size() ? "m" : "l") + gdb::escape(chunk);
  }
  return "";
}

std::string GdbPlatformServer::threads_xml() const {
  std::string x = "<?xml version=\"1.0\"?>\n<threads>\n";
  for (size_t id = 1; id <= m_threads.size(); ++id)
    if (valid(id))  // the element's text is what GDB shows in parentheses
      x += "<thread id=\"" + hex_id(id) + "\" name=\"" + xml_escaped(m_threads[id - 1].name) + "\">" +
           xml_escaped(m_threads[id - 1].cpu->state()) + "</thread>\n";
  return x + "</threads>\n";
}

GdbServer::Reply GdbPlatformServer::resume_vcont(std::string_view actions) {
  if (actions == "?") return {std::string("vCont;c;C;s;S;r")};
  if (actions.empty() || actions[0] != ';') return {std::string(E_SYNTAX)};
  const auto parsed = gdb::parse_vcont(actions.substr(1));  // 't' and unknown actions: error
  if (!parsed) return {std::string(E_SYNTAX)};
  // All-stop: every CPU resumes; the threads named in a step action halt
  // after one instruction (the first action naming a thread decides for it).
  std::map<size_t, std::optional<std::pair<uint64_t, uint64_t>>> steps;
  std::set<size_t> seen;
  for (const gdb::VContAction& a : *parsed) {
    size_t id = ALL;
    if (a.thread) {
      const auto t = parse_thread(*a.thread);
      if (!t) return {std::string(E_SYNTAX)};
      id = *t == 0 ? m_selected : *t;
    }
    if (id == ALL) {
      // A step of all threads (GDB does not ask it): the selected one steps.
      if (a.step && !seen.count(m_selected)) steps[m_selected] = a.range;
      break;  // the default action: nothing after it applies
    }
    if (!valid(id)) return {std::string(E_THREAD)};
    if (seen.insert(id).second && a.step) steps[id] = a.range;
  }
  m_steps.clear();
  for (const auto& [id, range] : steps) request_step(id, range);
  return {std::nullopt, Resume::Continue};
}

void GdbPlatformServer::request_step(size_t id, std::optional<std::pair<uint64_t, uint64_t>> range) {
  m_steps[id] = range;
  // Stopped inside a device access: end that ISS step soon rather than after
  // a whole quantum.
  if (cpu(id).in_step()) cpu(id).cut_step();
}

// ---- the selected CPU, breakpoints in every CPU running thread 1's program --

std::string GdbPlatformServer::target_xml() {
  for (size_t id = 1; id <= m_threads.size(); ++id)
    if (m_threads[id - 1].cpu) return cpu(id).target_xml();
  return "";
}

std::string GdbPlatformServer::program() const {
  for (const Thread& t : m_threads)
    if (t.cpu) return t.cpu->program();
  return "";
}

bool GdbPlatformServer::insert_breakpoint(uint64_t addr) {
  const std::string prog = program();
  bool any = false;
  for (Thread& t : m_threads)
    if (t.cpu && t.alive && t.cpu->program() == prog) any = t.cpu->insert_breakpoint(addr) || any;
  return any;
}

void GdbPlatformServer::remove_breakpoint(uint64_t addr) {
  for (Thread& t : m_threads)
    if (t.cpu) t.cpu->remove_breakpoint(addr);
}

bool GdbPlatformServer::insert_watchpoint(GdbWatch type, uint64_t addr, uint64_t len) {
  const std::string prog = program();
  bool any = false;
  for (Thread& t : m_threads)
    if (t.cpu && t.alive && t.cpu->program() == prog) any = t.cpu->insert_watchpoint(type, addr, len) || any;
  return any;
}

void GdbPlatformServer::remove_watchpoint(GdbWatch type, uint64_t addr, uint64_t len) {
  for (Thread& t : m_threads)
    if (t.cpu) t.cpu->remove_watchpoint(type, addr, len);
}

}  // namespace m2
