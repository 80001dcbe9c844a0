#include "devices/simctrl.h"

#include <ip/simctrl.h>

#include <sstream>

namespace m2 {

SimCtrl::SimCtrl(sc_core::sc_module_name name, RunControl& run, std::string participant, uint32_t timebase_hz,
                 uint32_t cpu_hz)
    : Peripheral(name,
                 [] {
                   Options o;
                   o.socket_name = "socket";
                   o.debug_reads = false;  // TIME_LO's getter latches TIME_HI
                   return o;
                 }()),
      args(this->name(), "args", "", "",
           "arguments for the firmware: up to 16 unsigned 32-bit numbers, comma-separated (SIMCTRL_ARG(i))"),
      m_run(run),
      m_participant(std::move(participant)) {
  std::string text = args.get();
  for (char& c : text)
    if (c == ',') c = ' ';
  std::istringstream in(text);
  for (std::string w; in >> w;) {
    size_t used = 0;
    unsigned long long v = 0;
    try {
      v = std::stoull(w, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    if (m_args.size() >= SIMCTRL_MAX_ARGS)
      throw ConfigError(args.origin().where + ": key '" + args.name() + "': more than " +
                        std::to_string(SIMCTRL_MAX_ARGS) + " arguments (the firmware reads SIMCTRL_ARG(0.." +
                        std::to_string(SIMCTRL_MAX_ARGS - 1) + "))");
    if (used != w.size() || v > 0xFFFFFFFFull)
      throw ConfigError(args.origin().where + ": key '" + args.name() + "': '" + w +
                        "' is not an unsigned 32-bit number (decimal, or hex with 0x)");
    m_args.push_back(static_cast<uint32_t>(v));
  }
  bank().add(
      SIMCTRL_NUM_ARGS, "NUM_ARGS", [this] { return static_cast<uint32_t>(m_args.size()); }, nullptr);
  for (uint32_t i = 0; i < SIMCTRL_MAX_ARGS; ++i)
    bank().add(
        SIMCTRL_ARG(i), "ARG" + std::to_string(i), [this, i] { return i < m_args.size() ? m_args[i] : 0u; }, nullptr);
  bank().add(SIMCTRL_EXIT, "EXIT", nullptr,
             [this](uint32_t code) { m_run.firmware_exit(m_participant, code, access_time()); });
  // Reading LO latches HI so that a 64-bit value is read consistently.
  bank().add(
      SIMCTRL_TIME_LO, "TIME_LO",
      [this] {
        const uint64_t ns = static_cast<uint64_t>(access_time().to_seconds() * 1e9 + 0.5);
        m_time_hi_latch = static_cast<uint32_t>(ns >> 32);
        return static_cast<uint32_t>(ns);
      },
      nullptr);
  bank().add(
      SIMCTRL_TIME_HI, "TIME_HI", [this] { return m_time_hi_latch; }, nullptr);
  for (unsigned i = 0; i < SIMCTRL_NUM_RESULTS; ++i) {
    bank().add(SIMCTRL_RESULT(i), "RESULT" + std::to_string(i), nullptr, [this, i](uint32_t v) {
      m_run.record_result(m_participant, "fw_result" + std::to_string(i), v,
                          i < m_result_names.size() ? m_result_names[i] : std::string());
    });
  }
  bank().add(SIMCTRL_TRACE_MARK, "TRACE_MARK", nullptr, [this](uint32_t v) { trace_mark(v); });
  bank().add(
      SIMCTRL_TB_HZ, "TB_HZ", [timebase_hz] { return timebase_hz; }, nullptr);
  bank().add(
      SIMCTRL_CPU_HZ, "CPU_HZ", [cpu_hz] { return cpu_hz; }, nullptr);
}

std::vector<std::string> SimCtrl::result_names_of(const ElfImage& image) {
  std::vector<std::string> names;
  const auto addr = image.symbol("fw_result_names");
  const auto text = addr ? image.string_at(*addr) : std::nullopt;
  if (!text) return names;
  std::string name;
  for (char c : *text + ",") {
    if (c != ',') {
      name += c;
      continue;
    }
    names.push_back(name);
    name.clear();
  }
  return names;
}

void SimCtrl::trace_mark(uint32_t v) {
  if (!m_probe) return;
  MessagePoint point;
  switch (SIMCTRL_MARK_EVENT(v)) {
    case SIMCTRL_MARK_SEND_TAKEN:
      point = MessagePoint::SendTaken;
      break;
    default:
      return;  // an event of newer firmware: nothing to record
  }
  m_probe(point, m_probe.observer->resolve(SIMCTRL_MARK_TAG(v)), access_time().value());
}

}  // namespace m2
