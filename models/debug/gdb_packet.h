// GDB remote serial protocol framing: "$payload#cs" packets with a modulo-256
// checksum, '}' escapes for binary data, hex helpers, and a byte-stream parser
// that turns what GDB sends into packets, acknowledgements and Ctrl-C.
// No I/O and no SystemC here (see gdb_server.h for the protocol itself).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace m2::gdb {

// Longest payload accepted from GDB (we advertise PacketSize=4000 hex).
constexpr size_t MAX_PACKET = 0x4000;

uint8_t checksum(std::string_view data);
// "$<payload>#<checksum>"; the payload is sent as is (escape binary first).
std::string frame(std::string_view payload);

// Binary data for a packet: '#', '$', '}' and '*' become '}' followed by the
// byte XOR 0x20.
std::string escape(std::string_view data);
// The reverse; nullopt when the data ends in a lone '}'.
std::optional<std::string> unescape(std::string_view data);

std::string to_hex(const uint8_t* data, size_t len);
std::string to_hex(std::string_view text);
// Pairs of hex digits to bytes; false on an odd length or a non-hex digit.
bool from_hex(std::string_view hex, std::vector<uint8_t>& out);
// A hex number of 1..16 digits, nothing else.
std::optional<uint64_t> parse_hex(std::string_view text);

// The actions of a "vCont;..." packet (what follows "vCont;"): c, C<sig>,
// s, S<sig>, r<start>,<end> (range stepping: a step that goes on while the
// pc stays in [start, end)), each with an optional ":thread"; nullopt when an
// action is malformed or not one of those ('t'), or there is none. Signals
// are dropped.
struct VContAction {
  bool step;
  std::optional<std::string_view> thread;              // points into the packet
  std::optional<std::pair<uint64_t, uint64_t>> range;  // 'r': [start, end)
};
std::optional<std::vector<VContAction>> parse_vcont(std::string_view actions);

// Splits a byte stream from GDB into events.
class PacketReader {
 public:
  struct Event {
    enum Kind {
      Packet,     // a well-formed packet; payload holds it (still escaped)
      BadPacket,  // wrong checksum or too long: answer '-' (GDB resends)
      Ack,        // '+'
      Nak,        // '-': resend the last packet
      Interrupt,  // 0x03 outside a packet (Ctrl-C)
    } kind;
    std::string payload;
  };

  void feed(const char* data, size_t len);
  void feed(std::string_view data) { feed(data.data(), data.size()); }
  // The oldest event not taken yet.
  std::optional<Event> next();

 private:
  enum class State { Idle, Payload, Check1, Check2 };
  State m_state = State::Idle;
  std::string m_payload;
  bool m_overflow = false;
  int m_check_hi = 0;
  std::deque<Event> m_events;
};

}  // namespace m2::gdb
