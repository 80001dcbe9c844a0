// Self-test of the NI's Ethernet emulation (firmware eth) and the host's
// driver model, through the host's IpPacketPort as a TCP/IP stack would use
// it, without a stack: each sending node sends a schedule of packets to the
// next node (node i to node (i + 1) % nodes), each receiving node checks every
// byte, the sizes and the order of what its predecessor sent.
//
//   eth_selftest [--sizes LIST] [--stream BYTES --size S] [--repeat R]
//                [--one-way] [--rx-delay-us US]
// LIST: comma-separated sizes or ranges A-B (every size from A to B), each
// 1..65000; --stream: BYTES cut into S-byte packets (the last one shorter).
// --one-way: only node 0 sends (to node 1). --rx-delay-us: the receiver
// holds the driver's thread that long per packet (a slow stack: the rings
// fill). Results per host: packets_sent, packets_received, bytes_received,
// payload_errors, size_errors, last_rx_ns.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include <systemc>

#include "host/host_cpu.h"
#include "host/host_env.h"
#include "host/tcpip/ip_packet_port.h"

namespace {

// Byte i of packet k (of `size` bytes) from node `src`: a packet from the
// wrong place, order or size shows.
uint8_t pattern(size_t i, size_t k, size_t size, int src) {
  return static_cast<uint8_t>(i * 7u + k * 13u + size * 3u + static_cast<unsigned>(src) * 101u + 1u);
}

bool parse_long(const char* s, long* v) {
  char* e = nullptr;
  *v = std::strtol(s, &e, 10);
  return e != s && *e == '\0';
}

// A byte count with an optional k or M (1024-based) suffix.
bool parse_bytes(const char* s, long* v) {
  char* e = nullptr;
  *v = std::strtol(s, &e, 10);
  if (e == s || *v < 0 || *v > (1L << 30)) return false;
  if (*e == 'k' || *e == 'K') *v *= 1024, ++e;
  else if (*e == 'm' || *e == 'M') *v *= 1024 * 1024, ++e;
  return *e == '\0';
}

// "1-300,2016,65000" into sizes; false with a message when malformed.
bool parse_sizes(const std::string& list, std::vector<size_t>* out, std::string* why) {
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t dash = item.find('-');
    long a = 0, b = 0;
    const bool ok = dash == std::string::npos
                        ? parse_long(item.c_str(), &a) && (b = a, true)
                        : parse_long(item.substr(0, dash).c_str(), &a) && parse_long(item.substr(dash + 1).c_str(), &b);
    if (!ok || a < 1 || b < a || b > static_cast<long>(m2::IpPacketPort::kMtu)) {
      *why = "'" + item + "' is not a size or range A-B within 1.." + std::to_string(m2::IpPacketPort::kMtu);
      return false;
    }
    for (long s = a; s <= b; ++s) out->push_back(static_cast<size_t>(s));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

int eth_selftest(int argc, char** argv) {
  std::vector<size_t> sizes;
  long stream = 0, size = static_cast<long>(m2::IpPacketPort::kMtu), repeat = 1;
  bool one_way = false;
  double rx_delay_us = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    std::string why;
    if (a == "--sizes" && has) {
      if (!parse_sizes(argv[++i], &sizes, &why)) m2host_abort(2, "eth_selftest: --sizes: %s", why.c_str());
    } else if (a == "--stream" && has && parse_bytes(argv[i + 1], &stream) && stream > 0) {
      ++i;
    } else if (a == "--size" && has && parse_long(argv[i + 1], &size) && size >= 1 &&
               size <= static_cast<long>(m2::IpPacketPort::kMtu)) {
      ++i;
    } else if (a == "--repeat" && has && parse_long(argv[i + 1], &repeat) && repeat >= 1) {
      ++i;
    } else if (a == "--rx-delay-us" && has) {
      rx_delay_us = std::atof(argv[++i]);
    } else if (a == "--one-way") {
      one_way = true;
    } else {
      m2host_abort(2,
                   "eth_selftest: unknown or malformed argument '%s' (expected --sizes LIST, --stream BYTES, --size "
                   "1..65000, --repeat N, --one-way, --rx-delay-us US)",
                   a.c_str());
    }
  }
  for (long left = stream; left > 0; left -= size) sizes.push_back(static_cast<size_t>(left < size ? left : size));
  if (sizes.empty()) sizes.push_back(1);
  std::vector<size_t> schedule;
  for (long r = 0; r < repeat; ++r) schedule.insert(schedule.end(), sizes.begin(), sizes.end());

  m2::HostCpu& host = m2::HostCpu::current();
  m2::IpPacketPort* port = host.ip_port();
  if (!port) m2host_abort(2, "eth_selftest: this host has no network device (set its ni.firmware to eth)");
  const int me = host.id(), nodes = host.count();
  if (nodes < 2) m2host_abort(2, "eth_selftest: needs two nodes at least");
  const bool sends = !one_way || me == 0;
  const bool receives = !one_way || me == 1;
  const int dst = (me + 1) % nodes, src = (me + nodes - 1) % nodes;

  // The driver's thread hands packets over; this thread checks them.
  std::deque<std::vector<uint8_t>> inbox;
  sc_core::sc_event arrived;
  const sc_core::sc_time rx_delay(rx_delay_us, sc_core::SC_US);
  port->set_receiver([&](std::vector<uint8_t> packet) {
    if (rx_delay > sc_core::SC_ZERO_TIME) sc_core::wait(rx_delay);
    inbox.push_back(std::move(packet));
    arrived.notify(sc_core::SC_ZERO_TIME);
  });

  int64_t sent = 0;
  if (sends) {
    std::vector<uint8_t> buf;
    for (size_t k = 0; k < schedule.size(); ++k) {
      buf.resize(schedule[k]);
      for (size_t i = 0; i < buf.size(); ++i) buf[i] = pattern(i, k, buf.size(), me);
      port->transmit(dst, buf.data(), buf.size());
      ++sent;
    }
  }
  int64_t received = 0, bytes = 0, payload_errors = 0, size_errors = 0;
  if (receives) {
    for (size_t k = 0; k < schedule.size(); ++k) {
      host.wait_until([&] { return !inbox.empty(); }, arrived);
      const std::vector<uint8_t> p = std::move(inbox.front());
      inbox.pop_front();
      ++received;
      bytes += static_cast<int64_t>(p.size());
      if (p.size() != schedule[k]) {
        if (size_errors++ < 5) m2host_printf("FAIL packet %zu: %zu bytes, expected %zu\n", k, p.size(), schedule[k]);
        continue;
      }
      size_t bad = 0;
      for (size_t i = 0; i < p.size(); ++i) bad += p[i] != pattern(i, k, p.size(), src);
      if (bad && payload_errors < 5) m2host_printf("FAIL packet %zu (%zu bytes): %zu wrong bytes\n", k, p.size(), bad);
      payload_errors += static_cast<int64_t>(bad);
    }
  }
  m2host_result("packets_sent", sent);
  m2host_result("packets_received", received);
  m2host_result("bytes_received", bytes);
  m2host_result("payload_errors", payload_errors);
  m2host_result("size_errors", size_errors);
  m2host_result("last_rx_ns", static_cast<int64_t>(m2host_now_us() * 1e3));
  m2host_printf("eth_selftest: sent %lld packets to node %d, received %lld (%lld bytes) from node %d, %lld errors\n",
                static_cast<long long>(sent), dst, static_cast<long long>(received), static_cast<long long>(bytes), src,
                static_cast<long long>(payload_errors + size_errors));
  port->set_receiver(nullptr);
  return payload_errors + size_errors == 0 ? 0 : 1;
}

__attribute__((constructor)) void register_eth_selftest() {
  m2host_register_app("eth_selftest", eth_selftest,
                      "self-test of the Ethernet emulation (firmware eth) and the host's driver: packets to the next "
                      "node, every byte, size and the order checked");
}

}  // namespace
