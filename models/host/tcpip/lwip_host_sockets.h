// A simulated host's TCP/IP stack: lwIP (its own loaded copy, lwip_library.h)
// driven in simulated time, with Linux-like sockets over lwIP's raw API
// (docs/tcpip.md). Packets go out and come in through the host's
// IpPacketPort; addresses map to nodes statically (ip_node_address.h).
//
// lwIP is single-threaded and never waits: every call into it runs to its end
// within one SystemC process step. What it sends is queued and handed to the
// port afterwards by the thread that made the call, which waits the
// per-segment and checksum costs first; received packets cost the same in the
// driver's receive thread before lwIP sees them; a socket call waits for its
// user<->kernel copy. lwIP's timers run in this module's thread, woken at the
// next timeout (sys_timeouts_sleeptime) or when a call may have added one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "core/params.h"
#include "host/tcpip/host_sockets.h"
#include "host/tcpip/ip_packet_port.h"
#include "host/tcpip/lwip_library.h"

namespace m2 {

// The host CPU's copy rate, the same physical quantity as its memcpy
// (host_cpu.h: memcpy_mbyte_per_s, memcpy_setup_ns): the socket layer's
// user<->kernel copies are charged at it.
struct HostCopyCost {
  double mbyte_per_s = 300.0;
  double setup_ns = 40.0;
};

class LwipHostSockets : public sc_core::sc_module, public HostSockets {
 public:
  Param<double> segment_us;
  Param<double> checksum_mbyte_per_s;
  Param<uint64_t> sndbuf_bytes;

  // What went through the port, for statistics and tests.
  struct Counters {
    uint64_t packets_out = 0, bytes_out = 0, packets_in = 0, bytes_in = 0, dropped_out = 0;
  };

  SC_HAS_PROCESS(LwipHostSockets);
  // `nodes`: how many hosts the platform has (addresses beyond are
  // unreachable). `output_dir`: the run's folder, where the library copy is
  // made for a moment, asked when the simulation starts (the platform is
  // built before the folder is chosen). `library`: the built libm2lwip.so
  // ("": the default). The library is loaded when the simulation starts.
  LwipHostSockets(sc_core::sc_module_name name, IpPacketPort& port, int node, int nodes,
                  std::function<std::string()> output_dir, HostCopyCost copy, std::string library = "");
  ~LwipHostSockets() override;

  int socket(int domain, int type, int protocol) override;
  int bind(int sd, uint32_t ip, uint16_t port) override;
  int listen(int sd, int backlog) override;
  int accept(int sd, uint32_t* peer_ip, uint16_t* peer_port, bool nonblocking) override;
  int connect(int sd, uint32_t ip, uint16_t port) override;
  long send(int sd, const uint8_t* data, size_t len, bool nonblocking) override;
  long recv(int sd, uint8_t* data, size_t len, bool nonblocking, bool peek) override;
  int shutdown(int sd, int how) override;
  int close(int sd) override;
  int setsockopt(int sd, int level, int name, int value) override;
  int getsockopt(int sd, int level, int name, int* value) override;
  int getsockname(int sd, uint32_t* ip, uint16_t* port) override;
  int getpeername(int sd, uint32_t* ip, uint16_t* port) override;
  short ready(int sd) override;
  const sc_core::sc_event& readiness_changed() const override { return m_ready; }

  const Counters& counters() const { return m_counters; }
  int node() const { return m_node; }

 private:
  struct Socket;
  struct Packet {
    uint32_t dst_ip;
    std::vector<uint8_t> bytes;
  };

  // lwIP's callbacks (arg: the Socket) and the copy's hooks (host: this).
  static uint32_t now_ms(void* host);
  static void output(void* host, uint32_t dst_ip, const uint8_t* packet, size_t len);
  static int8_t on_recv(void* arg, struct tcp_pcb* pcb, struct pbuf* p, int8_t err);
  static int8_t on_sent(void* arg, struct tcp_pcb* pcb, uint16_t len);
  static void on_err(void* arg, int8_t err);
  static int8_t on_accept(void* arg, struct tcp_pcb* pcb, int8_t err);
  static int8_t on_connected(void* arg, struct tcp_pcb* pcb, int8_t err);

  void start_of_simulation() override;
  void run();                                      // lwIP's timers and looped-back packets
  void input(const std::vector<uint8_t>& packet);  // costs, then lwIP
  void after_call();                               // after lwIP ran: send what it queued, wake the timers
  void flush();                                    // hands queued packets to the port
  void charge_segment(size_t bytes);
  void charge_copy(size_t bytes);
  void changed();
  Socket* find(int sd);
  int add(std::unique_ptr<Socket> s);
  void attach(Socket* s);  // lwIP's callbacks for s->pcb
  void detach(Socket* s);  // none any more (closing)
  size_t send_space(const Socket& s) const;
  void consumed(Socket* s, size_t bytes);  // tcp_recved in 16-bit steps

  IpPacketPort& m_port;
  int m_node, m_nodes;
  HostCopyCost m_copy;
  std::function<std::string()> m_output_dir;
  std::string m_library;
  std::unique_ptr<LwipLibrary> m_lib;
  const m2lwip_api* m_api = nullptr;
  std::map<int, std::unique_ptr<Socket>> m_sockets;
  int m_next_sd = 0;
  std::deque<Packet> m_out;                 // sent by lwIP, not yet handed to the port
  std::deque<std::vector<uint8_t>> m_loop;  // to this host itself
  bool m_flushing = false;
  bool m_closing = false;
  Counters m_counters;
  sc_core::sc_event m_ready, m_wake;
};

}  // namespace m2
