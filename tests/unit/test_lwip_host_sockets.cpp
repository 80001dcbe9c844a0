// Unit tests for the simulated hosts' TCP/IP stack (models/host/tcpip/
// lwip_host_sockets.*, lwip_library.*): lwIP copies per host, and sockets
// between hosts joined by a test double of the NI drivers
// (ip_link_double.h: 10 us delay, 100 MB/s) in simulated time.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

#include "host/tcpip/host_stack_factory.h"
#include "host/tcpip/ip_node_address.h"
#include "host/tcpip/lwip_host_sockets.h"
#include "host/tcpip/lwip_library.h"

#include "ip_link_double.h"
#include "temp_dir.h"
#include "test_thread.h"

using m2::LwipHostSockets;
using m2::LwipLibrary;
using m2::node_ip;
using m2test::IpLinkDouble;
using m2test::IpPacketRecord;
using sc_core::SC_MS;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {

constexpr size_t kMss = 64960;
constexpr size_t kHalfWindow = 65535 / 2;

// N hosts' stacks on one test link, and a thread per host body.
struct Hosts {
  TempDir out{"m2vp-tcpip"};
  IpLinkDouble link;
  std::vector<std::unique_ptr<LwipHostSockets>> stacks;
  std::vector<std::unique_ptr<m2test::TestThread>> threads;

  explicit Hosts(int n) : link(n, sc_time(10, SC_US), 100.0) {
    for (int i = 0; i < n; ++i)
      stacks.push_back(std::make_unique<LwipHostSockets>(("tcpip" + std::to_string(i)).c_str(), link.port(i), i, n,
                                                         [dir = out.path.string()] { return dir; },
                                                         m2::HostCopyCost{300.0, 40.0}));
  }
  LwipHostSockets& operator[](int i) { return *stacks.at(i); }
  void on(int node, std::function<void()> body) {
    threads.push_back(std::make_unique<m2test::TestThread>(
        ("body" + std::to_string(node) + "_" + std::to_string(threads.size())).c_str(), std::move(body)));
  }
  // Runs until nothing is left to do; every body must have ended.
  void run() {
    sc_core::sc_start();
    for (const auto& t : threads) REQUIRE(t->finished);
  }
};

uint8_t pattern(size_t i, int salt) { return static_cast<uint8_t>((i * 131u + (i >> 11) + salt * 7u) & 0xFF); }

std::vector<uint8_t> make_data(size_t n, int salt) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = pattern(i, salt);
  return v;
}

// Reads exactly n bytes (fewer at end of file or on an error).
std::vector<uint8_t> recv_all(LwipHostSockets& h, int sd, size_t n) {
  std::vector<uint8_t> got(n);
  size_t have = 0;
  while (have < n) {
    const long r = h.recv(sd, got.data() + have, n - have, false, false);
    if (r <= 0) break;
    have += static_cast<size_t>(r);
  }
  got.resize(have);
  return got;
}

uint16_t tcp_dst_port(const IpPacketRecord& r) {
  const size_t ihl = (r.bytes[0] & 0x0F) * 4u;
  return static_cast<uint16_t>((r.bytes[ihl + 2] << 8) | r.bytes[ihl + 3]);
}

std::vector<IpPacketRecord> data_to_port(const IpLinkDouble& link, int src, int dst, uint16_t port) {
  std::vector<IpPacketRecord> v;
  for (const auto& p : link.data(src, dst))
    if (tcp_dst_port(p) == port) v.push_back(p);
  return v;
}

// ---- lwIP copies without SystemC: hooks that record ------------------------
struct FakeHost {
  uint32_t now = 0;
  std::vector<std::vector<uint8_t>> out;
};
uint32_t fake_now(void* h) { return static_cast<FakeHost*>(h)->now; }
void fake_output(void* h, uint32_t, const uint8_t* p, size_t n) {
  static_cast<FakeHost*>(h)->out.emplace_back(p, p + n);
}
uint32_t source_ip(const std::vector<uint8_t>& packet) {
  return (uint32_t{packet[12]} << 24) | (uint32_t{packet[13]} << 16) | (uint32_t{packet[14]} << 8) | packet[15];
}

}  // namespace

TEST_CASE("tcpip: 64 lwIP copies load, each with its own state, clock and output") {
  TempDir out("m2vp-lwip-copies");
  constexpr int kCopies = 64;
  std::vector<FakeHost> hosts(kCopies);
  std::vector<std::unique_ptr<LwipLibrary>> libs;
  for (int i = 0; i < kCopies; ++i) {
    libs.push_back(std::make_unique<LwipLibrary>(LwipLibrary::default_path(), out.path.string(), i));
    libs.back()->api().init(node_ip(i), 65000, &hosts[i], fake_now, fake_output);
  }
  // The copies were made inside the output folder and are gone from it.
  REQUIRE(std::filesystem::is_empty(out.path));
  for (int i = 0; i < kCopies; ++i) {
    const m2lwip_api& api = libs[i]->api();
    // The same port in every copy: one shared stack would refuse all but one.
    struct tcp_pcb* a = api.tcp_new();
    REQUIRE(api.tcp_bind(a, 0, 7000) == M2LWIP_OK);
    struct tcp_pcb* b = api.tcp_new();
    REQUIRE(api.tcp_bind(b, 0, 7000) == M2LWIP_ERR_USE);
    api.tcp_close(b);
    struct tcp_pcb* c = api.tcp_new();
    REQUIRE(api.tcp_connect(c, node_ip(100), 80, nullptr) == M2LWIP_OK);
  }
  // Each copy's SYN went to its own host, from its own address.
  for (int i = 0; i < kCopies; ++i) {
    REQUIRE(hosts[i].out.size() == 1);
    CHECK(source_ip(hosts[i].out[0]) == node_ip(i));
  }
  // Each copy reads its own host's clock: its TCP timer is due 40 ms after 0.
  hosts[5].now = 30;
  CHECK(libs[5]->api().sleep_ms() == 10);
  CHECK(libs[6]->api().sleep_ms() == 40);
  for (auto& l : libs) l->api().abandon_all();
}

TEST_CASE("tcpip: a missing lwIP library or output folder is named") {
  TempDir out("m2vp-lwip-missing");
  const std::string missing = (out.path / "libnothing.so").string();
  REQUIRE_THROWS_WITH(LwipLibrary(missing, out.path.string(), 0), Catch::Contains(missing));
  const std::string no_folder = (out.path / "no" / "such").string();
  REQUIRE_THROWS_WITH(LwipLibrary(LwipLibrary::default_path(), no_folder, 3),
                      Catch::Contains(no_folder) && Catch::Contains("node3"));
}

TEST_CASE("tcpip: connect, accept and 1 MB each way intact in segments of up to 64960 bytes") {
  Hosts h(2);
  constexpr size_t kBytes = 1 << 20;
  const auto up = make_data(kBytes, 1), down = make_data(kBytes, 2);
  std::vector<uint8_t> got_up, got_down;
  int accepted = -1, connected = -1;
  uint32_t peer_ip = 0;
  long sent_up = 0, sent_down = 0, eof = -1;
  h.on(1, [&] {
    const int s = h[1].socket(AF_INET, SOCK_STREAM, 0);
    h[1].bind(s, 0, 5001);
    h[1].listen(s, 4);
    uint16_t peer_port = 0;
    accepted = h[1].accept(s, &peer_ip, &peer_port, false);
    got_up = recv_all(h[1], accepted, kBytes);
    sent_down = h[1].send(accepted, down.data(), down.size(), false);
    h[1].close(accepted);
    h[1].close(s);
  });
  h.on(0, [&] {
    const int s = h[0].socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    connected = h[0].connect(s, node_ip(1), 5001);
    sent_up = h[0].send(s, up.data(), up.size(), false);
    got_down = recv_all(h[0], s, kBytes);
    uint8_t byte;
    eof = h[0].recv(s, &byte, 1, false, false);
    h[0].close(s);
  });
  h.run();
  REQUIRE(connected == 0);
  REQUIRE(accepted >= 0);
  CHECK(peer_ip == node_ip(0));
  CHECK(sent_up == static_cast<long>(kBytes));
  CHECK(sent_down == static_cast<long>(kBytes));
  CHECK(got_up == up);
  CHECK(got_down == down);
  CHECK(eof == 0);
  for (const auto& [src, dst] : {std::pair{0, 1}, std::pair{1, 0}}) {
    const auto segs = h.link.data(src, dst);
    size_t total = 0, largest = 0;
    for (const auto& p : segs) {
      total += p.payload;
      largest = std::max(largest, p.payload);
      CHECK(p.length <= m2::IpPacketPort::kMtu);
    }
    CHECK(total == kBytes);
    // Linux 2.4 and lwIP both bound a segment to half the largest window
    // the peer announced (tcp_sync_mss; tcp_write): 32767 with a 64 KB one.
    CHECK(largest == kHalfWindow);
    CHECK(segs.size() >= (kBytes + kHalfWindow - 1) / kHalfWindow);
    for (const auto& p : segs) CHECK(p.payload <= kMss);
    CHECK(h.stacks[src]->counters().packets_out >= segs.size());
  }
}

TEST_CASE("tcpip: connecting where nothing listens is ECONNREFUSED, elsewhere ENETUNREACH") {
  Hosts h(2);
  int refused = 0, unreachable = 0, bad_family = 0, bad_type = 0, bad_option = 0;
  h.on(0, [&] {
    const int s = h[0].socket(AF_INET, SOCK_STREAM, 0);
    refused = h[0].connect(s, node_ip(1), 6000);
    h[0].close(s);
    const int t = h[0].socket(AF_INET, SOCK_STREAM, 0);
    unreachable = h[0].connect(t, node_ip(7), 80);  // no node 7 on a 2-node platform
    bad_option = h[0].setsockopt(t, SOL_SOCKET, SO_BROADCAST, 1);
    h[0].close(t);
    bad_family = h[0].socket(AF_INET6, SOCK_STREAM, 0);
    bad_type = h[0].socket(AF_INET, SOCK_DGRAM, 0);
  });
  h.run();
  CHECK(refused == -ECONNREFUSED);
  CHECK(unreachable == -ENETUNREACH);
  CHECK(bad_option == -ENOPROTOOPT);
  CHECK(bad_family == -EAFNOSUPPORT);
  CHECK(bad_type == -EPROTONOSUPPORT);
  // The refusal is node1's reset.
  const auto& p = h.link.packets();
  CHECK(std::any_of(p.begin(), p.end(), [](const IpPacketRecord& r) {
    return r.src == 1 && r.dst == 0 && (r.flags & IpLinkDouble::kRst);
  }));
}

TEST_CASE("tcpip: a port in use is EADDRINUSE on its host only") {
  Hosts h(2);
  int first = 1, second = 0, other_host = 1, after_close = 1, foreign = 0;
  h.on(0, [&] {
    const int a = h[0].socket(AF_INET, SOCK_STREAM, 0);
    first = h[0].bind(a, 0, 5002);
    h[0].listen(a, 1);
    const int b = h[0].socket(AF_INET, SOCK_STREAM, 0);
    second = h[0].bind(b, node_ip(0), 5002);
    h[0].close(a);
    after_close = h[0].bind(b, 0, 5002);
    const int c = h[0].socket(AF_INET, SOCK_STREAM, 0);
    foreign = h[0].bind(c, node_ip(1), 5003);
  });
  h.on(1, [&] {
    const int a = h[1].socket(AF_INET, SOCK_STREAM, 0);
    other_host = h[1].bind(a, 0, 5002);
    h[1].listen(a, 1);
  });
  h.run();
  CHECK(first == 0);
  CHECK(second == -EADDRINUSE);
  CHECK(other_host == 0);
  CHECK(after_close == 0);
  CHECK(foreign == -EADDRNOTAVAIL);
}

TEST_CASE("tcpip: the peer's close is end of file after the data") {
  Hosts h(2);
  long first = -1, eof = -1;
  short ready_at_eof = 0;
  std::vector<uint8_t> got;
  h.on(1, [&] {
    const int s = h[1].socket(AF_INET, SOCK_STREAM, 0);
    h[1].bind(s, 0, 5003);
    h[1].listen(s, 1);
    const int c = h[1].accept(s, nullptr, nullptr, false);
    got = recv_all(h[1], c, 1000);
    uint8_t byte;
    first = static_cast<long>(got.size());
    eof = h[1].recv(c, &byte, 1, false, false);
    ready_at_eof = h[1].ready(c);
    h[1].close(c);
    h[1].close(s);
  });
  h.on(0, [&] {
    const int s = h[0].socket(AF_INET, SOCK_STREAM, 0);
    h[0].connect(s, node_ip(1), 5003);
    const auto data = make_data(1000, 3);
    h[0].send(s, data.data(), data.size(), false);
    h[0].close(s);
  });
  h.run();
  CHECK(first == 1000);
  CHECK(got == make_data(1000, 3));
  CHECK(eof == 0);
  CHECK((ready_at_eof & POLLIN) != 0);
}

TEST_CASE("tcpip: closing with unread data resets, and the peer gets ECONNRESET") {
  Hosts h(2);
  long reset = 0;
  short ready_after = 0;
  h.on(1, [&] {
    const int s = h[1].socket(AF_INET, SOCK_STREAM, 0);
    h[1].bind(s, 0, 5004);
    h[1].listen(s, 1);
    const int c = h[1].accept(s, nullptr, nullptr, false);
    const auto data = make_data(5000, 4);
    h[1].send(c, data.data(), data.size(), false);
    uint8_t buf[16];
    reset = h[1].recv(c, buf, sizeof buf, false, false);
    ready_after = h[1].ready(c);
    h[1].close(c);
    h[1].close(s);
  });
  h.on(0, [&] {
    const int s = h[0].socket(AF_INET, SOCK_STREAM, 0);
    h[0].connect(s, node_ip(1), 5004);
    sc_core::wait(sc_time(5, SC_MS));  // the 5000 bytes are in, unread
    h[0].close(s);
  });
  h.run();
  CHECK(reset == -ECONNRESET);
  CHECK((ready_after & POLLHUP) != 0);
  const auto& p = h.link.packets();
  CHECK(std::any_of(p.begin(), p.end(), [](const IpPacketRecord& r) {
    return r.src == 0 && r.dst == 1 && (r.flags & IpLinkDouble::kRst);
  }));
}

TEST_CASE("tcpip: Nagle holds small writes back until the ACK, TCP_NODELAY sends each") {
  Hosts h(2);
  int nodelay_set = -1, nodelay_read = -1;
  std::vector<uint8_t> got_nagle, got_nodelay;
  for (const uint16_t port : {5010, 5011}) {
    h.on(1, [&h, port, &got_nagle, &got_nodelay] {
      const int s = h[1].socket(AF_INET, SOCK_STREAM, 0);
      h[1].bind(s, 0, port);
      h[1].listen(s, 1);
      const int c = h[1].accept(s, nullptr, nullptr, false);
      (port == 5010 ? got_nagle : got_nodelay) = recv_all(h[1], c, 1000);
      h[1].close(c);
      h[1].close(s);
    });
    h.on(0, [&h, port, &nodelay_set, &nodelay_read] {
      const int s = h[0].socket(AF_INET, SOCK_STREAM, 0);
      if (port == 5011) {
        nodelay_set = h[0].setsockopt(s, IPPROTO_TCP, TCP_NODELAY, 1);
        h[0].getsockopt(s, IPPROTO_TCP, TCP_NODELAY, &nodelay_read);
      }
      h[0].connect(s, node_ip(1), port);
      const auto data = make_data(1000, 5);
      for (size_t i = 0; i < 10; ++i) h[0].send(s, data.data() + i * 100, 100, false);
      sc_core::wait(sc_time(200, SC_MS));  // a close would send the FIN and what Nagle holds at once
      h[0].close(s);
    });
  }
  h.run();
  CHECK(nodelay_set == 0);
  CHECK(nodelay_read == 1);
  CHECK(got_nagle == make_data(1000, 5));
  CHECK(got_nodelay == make_data(1000, 5));
  // Nagle: the first 100 bytes, then the other 900 once the (delayed) ACK is in.
  const auto nagle = data_to_port(h.link, 0, 1, 5010);
  REQUIRE(nagle.size() == 2);
  CHECK(nagle[0].payload == 100);
  CHECK(nagle[1].payload == 900);
  CHECK(nagle[1].sent - nagle[0].sent > sc_time(1, SC_MS));
  // TCP_NODELAY: ten segments, back to back.
  const auto nodelay = data_to_port(h.link, 0, 1, 5011);
  REQUIRE(nodelay.size() == 10);
  for (const auto& p : nodelay) CHECK(p.payload == 100);
  CHECK(nodelay.back().sent - nodelay.front().sent < sc_time(1, SC_MS));
}

TEST_CASE("tcpip: a lone segment is acknowledged by the delayed-ACK timer within 40 ms") {
  Hosts h(2);
  std::vector<uint8_t> got;
  h.on(1, [&] {
    const int s = h[1].socket(AF_INET, SOCK_STREAM, 0);
    h[1].bind(s, 0, 5005);
    h[1].listen(s, 1);
    const int c = h[1].accept(s, nullptr, nullptr, false);
    got = recv_all(h[1], c, 100);
    sc_core::wait(sc_time(100, SC_MS));  // its FIN would carry the ACK
    h[1].close(c);
    h[1].close(s);
  });
  h.on(0, [&] {
    const int s = h[0].socket(AF_INET, SOCK_STREAM, 0);
    h[0].connect(s, node_ip(1), 5005);
    sc_core::wait(sc_time(100, SC_MS));  // the handshake's ACKs are long done
    const auto data = make_data(100, 6);
    h[0].send(s, data.data(), data.size(), false);
    sc_core::wait(sc_time(100, SC_MS));  // the ACK is in
    h[0].close(s);
  });
  h.run();
  REQUIRE(got == make_data(100, 6));
  const auto seg = h.link.data(0, 1);
  REQUIRE(seg.size() == 1);
  const auto& p = h.link.packets();
  const auto ack = std::find_if(p.begin(), p.end(), [&](const IpPacketRecord& r) {
    return r.src == 1 && r.dst == 0 && r.sent > seg[0].arrived && (r.flags & IpLinkDouble::kAck);
  });
  REQUIRE(ack != p.end());
  const sc_time delay = ack->sent - seg[0].arrived;
  CHECK(delay > sc_time(1, SC_MS));    // not at once: delayed
  CHECK(delay <= sc_time(41, SC_MS));  // one 40 ms tick, plus processing
}

namespace {
// Four hosts: nodes 1..3 each send 256 KB to node0, which takes them all on
// one listening socket and answers each with 1 KB. Writes every packet of the
// link and every result to `file`.
void four_hosts_traced(const std::string& file) {
  Hosts h(4);
  constexpr size_t kBytes = 256 * 1024;
  std::vector<std::vector<uint8_t>> got(4), answers(4);
  h.on(0, [&] {
    const int s = h[0].socket(AF_INET, SOCK_STREAM, 0);
    h[0].bind(s, 0, 5020);
    h[0].listen(s, 3);
    for (int i = 0; i < 3; ++i) {
      uint32_t ip = 0;
      const int c = h[0].accept(s, &ip, nullptr, false);
      const int from = *m2::ip_node(ip, 4);
      got[from] = recv_all(h[0], c, kBytes);
      const auto answer = make_data(1024, 10 + from);
      h[0].send(c, answer.data(), answer.size(), false);
      h[0].close(c);
    }
    h[0].close(s);
  });
  for (int n = 1; n < 4; ++n) {
    h.on(n, [&h, n, &answers] {
      sc_core::wait(sc_time(n * 3, SC_US));
      const int s = h[n].socket(AF_INET, SOCK_STREAM, 0);
      h[n].connect(s, node_ip(0), 5020);
      const auto data = make_data(kBytes, n);
      h[n].send(s, data.data(), data.size(), false);
      answers[n] = recv_all(h[n], s, 1024);
      h[n].close(s);
    });
  }
  h.run();
  std::ofstream out(file);
  for (int n = 1; n < 4; ++n)
    out << "node" << n << " sent intact " << (got[n] == make_data(kBytes, n)) << " answered intact "
        << (answers[n] == make_data(1024, 10 + n)) << "\n";
  for (const auto& p : h.link.packets())
    out << p.src << " " << p.dst << " " << p.sent.value() << " " << p.arrived.value() << " " << p.length << " "
        << p.payload << " " << int{p.flags} << "\n";
  out << "end " << sc_core::sc_time_stamp().value() << "\n";
}
}  // namespace

// Run as its own process by the test below (hidden from the suite: "[.]").
TEST_CASE("tcpip: four hosts traced", "[.]") {
  const char* file = std::getenv("M2_TCPIP_TRACE");
  REQUIRE(file);
  four_hosts_traced(file);
}

TEST_CASE("tcpip: the same four-host run twice gives identical packets and times") {
  TempDir dir("m2vp-tcpip-twice");
  std::vector<std::string> traces;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  for (int run = 0; run < 2; ++run) {
    const std::string file = (dir.path / ("trace" + std::to_string(run) + ".txt")).string();
    const std::string cmd =
        "M2_TCPIP_TRACE='" + file + "' '" + exe + "' 'tcpip: four hosts traced' > '" + file + ".log' 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream in(file);
    traces.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  REQUIRE(traces[0].find("node1 sent intact 1 answered intact 1") != std::string::npos);
  REQUIRE(traces[0].find("node2 sent intact 1 answered intact 1") != std::string::npos);
  REQUIRE(traces[0].find("node3 sent intact 1 answered intact 1") != std::string::npos);
  CHECK(std::count(traces[0].begin(), traces[0].end(), '\n') > 20);
  CHECK(traces[0] == traces[1]);
}

TEST_CASE("tcpip: the factory makes a host's stack with its parameters") {
  TempDir out("m2vp-tcpip-factory");
  IpLinkDouble link(2, sc_time(10, SC_US), 100.0);
  auto a = m2::make_host_sockets("stack0", link.port(0), 0, 2, out.path.string(), m2::HostCopyCost{});
  REQUIRE(dynamic_cast<LwipHostSockets*>(a.get()) != nullptr);
  auto* p = m2::ParamRegistry::instance().find("stack0.segment_us");
  REQUIRE(p != nullptr);
  CHECK(p->unit() == "us");
  CHECK(m2::ParamRegistry::instance().find("stack0.checksum_mbyte_per_s") != nullptr);
  CHECK(m2::ParamRegistry::instance().find("stack0.sndbuf_bytes")->value_string() == "65535");
  // The library copy is loaded when the simulation starts, in the folder given.
  sc_core::sc_start(sc_time(1, SC_US));
  CHECK(std::filesystem::is_empty(out.path));
  int sndbuf = 0;
  const int s = a->socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(s >= 0);
  a->getsockopt(s, SOL_SOCKET, SO_SNDBUF, &sndbuf);
  CHECK(sndbuf == 65535);
  a->setsockopt(s, SOL_SOCKET, SO_SNDBUF, 8192);
  a->getsockopt(s, SOL_SOCKET, SO_SNDBUF, &sndbuf);
  CHECK(sndbuf == 16384);  // doubled, as Linux 2.4 does
}
