#include "debug/gdb_packet.h"

namespace m2::gdb {
namespace {

const char HEX[] = "0123456789abcdef";

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

uint8_t checksum(std::string_view data) {
  uint8_t sum = 0;
  for (char c : data) sum = static_cast<uint8_t>(sum + static_cast<uint8_t>(c));
  return sum;
}

std::string frame(std::string_view payload) {
  const uint8_t sum = checksum(payload);
  std::string s;
  s.reserve(payload.size() + 4);
  s += '$';
  s += payload;
  s += '#';
  s += HEX[sum >> 4];
  s += HEX[sum & 15];
  return s;
}

std::string escape(std::string_view data) {
  std::string s;
  s.reserve(data.size());
  for (char c : data) {
    if (c == '#' || c == '$' || c == '}' || c == '*') {
      s += '}';
      s += static_cast<char>(c ^ 0x20);
    } else {
      s += c;
    }
  }
  return s;
}

std::optional<std::string> unescape(std::string_view data) {
  std::string s;
  s.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] != '}') {
      s += data[i];
      continue;
    }
    if (++i == data.size()) return std::nullopt;
    s += static_cast<char>(data[i] ^ 0x20);
  }
  return s;
}

std::string to_hex(const uint8_t* data, size_t len) {
  std::string s;
  s.reserve(2 * len);
  for (size_t i = 0; i < len; ++i) {
    s += HEX[data[i] >> 4];
    s += HEX[data[i] & 15];
  }
  return s;
}

std::string to_hex(std::string_view text) { return to_hex(reinterpret_cast<const uint8_t*>(text.data()), text.size()); }

bool from_hex(std::string_view hex, std::vector<uint8_t>& out) {
  if (hex.size() % 2) return false;
  out.clear();
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<uint8_t>(hi << 4 | lo));
  }
  return true;
}

std::optional<std::vector<VContAction>> parse_vcont(std::string_view actions) {
  std::vector<VContAction> out;
  while (!actions.empty()) {
    const size_t semi = actions.find(';');
    const std::string_view item = actions.substr(0, semi);
    actions = semi == std::string_view::npos ? std::string_view() : actions.substr(semi + 1);
    const size_t colon = item.find(':');
    const std::string_view act = item.substr(0, colon);
    const bool with_signal = act.size() == 3 && parse_hex(act.substr(1)).has_value();
    std::optional<std::pair<uint64_t, uint64_t>> range;
    if (!act.empty() && act[0] == 'r') {
      const size_t comma = act.find(',');
      if (comma == std::string_view::npos) return std::nullopt;
      const auto start = parse_hex(act.substr(1, comma - 1)), end = parse_hex(act.substr(comma + 1));
      if (!start || !end || *end < *start) return std::nullopt;
      range = std::make_pair(*start, *end);
    } else if (act != "c" && act != "s" && !(with_signal && (act[0] == 'C' || act[0] == 'S'))) {
      return std::nullopt;
    }
    VContAction a{act[0] == 's' || act[0] == 'S' || act[0] == 'r', std::nullopt, range};
    if (colon != std::string_view::npos) a.thread = item.substr(colon + 1);
    out.push_back(a);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<uint64_t> parse_hex(std::string_view text) {
  if (text.empty() || text.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    const int d = hex_digit(c);
    if (d < 0) return std::nullopt;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

void PacketReader::feed(const char* data, size_t len) {
  for (size_t i = 0; i < len; ++i) {
    const char c = data[i];
    switch (m_state) {
      case State::Idle:
        if (c == '$') {
          m_state = State::Payload;
          m_payload.clear();
          m_overflow = false;
        } else if (c == '+') {
          m_events.push_back({Event::Ack, {}});
        } else if (c == '-') {
          m_events.push_back({Event::Nak, {}});
        } else if (c == '\x03') {
          m_events.push_back({Event::Interrupt, {}});
        }
        break;  // anything else between packets is noise
      case State::Payload:
        if (c == '#') {
          m_state = State::Check1;
        } else if (c == '$') {
          // A new start: the previous packet was cut off; GDB resends it.
          m_events.push_back({Event::BadPacket, {}});
          m_payload.clear();
          m_overflow = false;
        } else if (m_payload.size() < MAX_PACKET) {
          m_payload += c;
        } else {
          m_overflow = true;
        }
        break;
      case State::Check1:
        m_check_hi = hex_digit(c);
        m_state = State::Check2;
        break;
      case State::Check2: {
        const int lo = hex_digit(c);
        const bool ok = !m_overflow && m_check_hi >= 0 && lo >= 0 && checksum(m_payload) == (m_check_hi << 4 | lo);
        if (ok) m_events.push_back({Event::Packet, std::move(m_payload)});
        else m_events.push_back({Event::BadPacket, {}});
        m_payload.clear();
        m_state = State::Idle;
        break;
      }
    }
  }
}

std::optional<PacketReader::Event> PacketReader::next() {
  if (m_events.empty()) return std::nullopt;
  Event e = std::move(m_events.front());
  m_events.pop_front();
  return e;
}

}  // namespace m2::gdb
