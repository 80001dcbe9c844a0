// A test double of the NI drivers under TCP/IP stacks (tests only, not the
// Maestro2 eth driver): a link that joins the IpPacketPorts of N hosts with a
// fixed bandwidth (the sender waits the packet's wire time) and a fixed delay
// (the packet reaches the destination's receiver that long after), and
// records every packet it carries with the TCP fields tests look at.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "host/tcpip/ip_packet_port.h"

namespace m2test {

struct IpPacketRecord {
  int src = 0, dst = 0;
  sc_core::sc_time sent;     // handed to the link
  sc_core::sc_time arrived;  // handed to the receiver
  size_t length = 0;         // IP packet
  size_t payload = 0;        // TCP data bytes
  uint8_t flags = 0;         // TCP flags (FIN 1, SYN 2, RST 4, PSH 8, ACK 16)
  std::vector<uint8_t> bytes;
};

class IpLinkDouble {
 public:
  static constexpr uint8_t kFin = 1, kSyn = 2, kRst = 4, kAck = 16;

  IpLinkDouble(int hosts, sc_core::sc_time delay, double mbyte_per_s) : m_delay(delay), m_mbyte_per_s(mbyte_per_s) {
    for (int i = 0; i < hosts; ++i)
      m_ports.push_back(std::make_unique<Port>(("link_port" + std::to_string(i)).c_str(), *this, i));
  }
  m2::IpPacketPort& port(int node) { return *m_ports.at(node); }
  const std::vector<IpPacketRecord>& packets() const { return m_packets; }

  // Data-carrying packets from `src` to `dst`.
  std::vector<IpPacketRecord> data(int src, int dst) const {
    std::vector<IpPacketRecord> v;
    for (const auto& p : m_packets)
      if (p.src == src && p.dst == dst && p.payload > 0) v.push_back(p);
    return v;
  }

 private:
  struct Port : sc_core::sc_module, m2::IpPacketPort {
    SC_HAS_PROCESS(Port);
    Port(sc_core::sc_module_name n, IpLinkDouble& link, int node) : sc_module(n), m_link(link), m_node(node) {
      SC_THREAD(deliver);
    }
    void transmit(int dst_node, const uint8_t* packet, size_t len) override {
      m_link.carry(m_node, dst_node, packet, len);
    }
    void set_receiver(Receiver r) override { m_receiver = std::move(r); }
    int node() const override { return m_node; }
    // Packets arrive in the order they were sent (one link per pair, FIFO).
    void deliver() {
      for (;;) {
        while (m_queue.empty()) wait(m_arrival);
        const size_t index = m_queue.front();
        m_queue.pop_front();
        // By index: the record vector may grow while this thread waits.
        const sc_core::sc_time due = m_link.m_packets[index].arrived;
        if (due > sc_core::sc_time_stamp()) wait(due - sc_core::sc_time_stamp());
        if (m_receiver) m_receiver(m_link.m_packets[index].bytes);
      }
    }
    IpLinkDouble& m_link;
    int m_node;
    Receiver m_receiver;
    std::deque<size_t> m_queue;
    sc_core::sc_event m_arrival;
  };

  void carry(int src, int dst, const uint8_t* packet, size_t len) {
    // The wire time, in the sender's thread (one packet at a time per sender).
    sc_core::wait(sc_core::sc_time(static_cast<double>(len) * 1e3 / m_mbyte_per_s, sc_core::SC_NS));
    IpPacketRecord r;
    r.src = src;
    r.dst = dst;
    r.sent = sc_core::sc_time_stamp();
    r.arrived = r.sent + m_delay;
    r.length = len;
    r.bytes.assign(packet, packet + len);
    const size_t ihl = (packet[0] & 0x0F) * 4u;
    const size_t total = (size_t{packet[2]} << 8) | packet[3];
    const size_t doff = (packet[ihl + 12] >> 4) * 4u;
    r.payload = total - ihl - doff;
    r.flags = packet[ihl + 13];
    m_packets.push_back(std::move(r));
    Port& to = *m_ports.at(dst);
    to.m_queue.push_back(m_packets.size() - 1);
    to.m_arrival.notify(sc_core::SC_ZERO_TIME);
  }

  sc_core::sc_time m_delay;
  double m_mbyte_per_s;
  std::vector<std::unique_ptr<Port>> m_ports;
  std::vector<IpPacketRecord> m_packets;
};

}  // namespace m2test
