// The switch box (SB): MLX ports with their network buffers, message
// analyzers (one per two ports) filling the header buffer, the SB manager (a
// PowerPC 603e with 32 MB SDRAM running the routing firmware, which turns
// headers into switching requests) and the switch controller (request fetch
// unit, reservation stations, transfer unit on the switching bus).
//
// Each port's NetBuf is the link's side of the switch: the port's link layer
// (MlxEngine, bound by the platform) pushes what arrives into its RX channels
// and sends what the switch puts into its TX channels. A message arriving on
// port P channel c leaves on the destination port(s) on channel c.
//
// The SB firmware runs forever and is not a run participant: the run ends
// when the nodes are done. See docs/models/switchbox.md.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/memory.h"
#include "core/ip_variant.h"
#include "core/params.h"
#include "core/signals.h"
#include "core/state_views.h"
#include "core/stats.h"
#include "core/router.h"
#include "core/run_control.h"
#include "core/timing_style.h"
#include "cpu/processor.h"
#include "devices/console.h"
#include "devices/simctrl.h"
#include "ni/netbuf.h"
#include "switchbox/bounded_fifo.h"
#include "switchbox/message_analyzer.h"
#include "switchbox/route_table.h"
#include "switchbox/switch_controller.h"
#include "switchbox/switch_regs.h"
#include "switchbox/switching_bus.h"

namespace m2 {

// One MLX port of the switch box: its network buffer ("sb0.port3.buffer").
struct SbPort : sc_core::sc_module {
  NetBuf buffer;
  explicit SbPort(sc_core::sc_module_name name) : sc_module(name), buffer("buffer") {}
};

class SwitchBox : public sc_core::sc_module {
 public:
  VariantParam variant;  // first: its values (ip/sb_variants.h) preset the others

 public:
  Param<uint64_t> ports;
  Param<uint64_t> stations;
  Param<std::string> mode;
  Param<uint64_t> bus_width_bits;
  Param<double> bus_clock_mhz;
  Param<uint64_t> bus_setup_cycles;
  Param<uint64_t> burst_bytes;
  Param<double> analyzer_latency_ns;
  Param<double> fetch_latency_ns;
  Param<uint64_t> header_buffer_depth;
  Param<uint64_t> request_buffer_depth;
  Param<double> register_access_ns;
  Param<std::string> firmware;

  // The SB manager.
  Router bus;
  Memory sdram;
  Processor cpu;
  Console console;
  std::unique_ptr<SimCtrl> simctrl;

  // `config_dir` resolves a relative firmware path. Throws ConfigError on bad
  // parameters, a missing firmware or one that is not a PowerPC executable.
  SwitchBox(sc_core::sc_module_name name, RunControl& run, TimingStyle timing, const std::string& config_dir);

  unsigned port_count() const { return static_cast<unsigned>(m_ports.size()); }
  // Port p's network buffer: the link layer takes RX input and TX output here.
  NetBuf& port_buffer(unsigned p) { return m_ports.at(p)->buffer; }
  // Port p itself ("sb0.port3"): the platform builds the port's MLX engine
  // and the link it is cabled to under it (core/module_scope.h).
  SbPort& port(unsigned p) { return *m_ports.at(p); }

  // Routing tables for the firmware. Before the simulation starts they are
  // written into SDRAM at its start; later calls rewrite them at once.
  // Without a call: broadcast to every other port, no unicast or multicast
  // routes. Throws ConfigError on an entry out of range.
  void set_routes(const SbRoutes& routes);
  const SbRoutes& routes() const { return m_routes; }

  // Message tracing (docs/models/message-breakdown.md): the analyzers and
  // the switch controller report what they do with traced messages.
  void set_message_probe(MessageProbe probe);

  // Statistics and state.
  const SwitchController& controller() const { return *m_controller; }
  const SwitchingBus& switching_bus() const { return *m_switching_bus; }
  SwitchingBus& switching_bus() { return *m_switching_bus; }
  const SwitchRegs& registers() const { return *m_regs; }
  uint64_t headers_extracted() const;
  // Every port buffer's levels, the analyzers, the header buffer, the request
  // buffer and each station's request with what it waits for (for a watchdog).
  std::string describe_state() const;

 private:
  void check_parameters() const;
  void start_of_simulation() override;
  void write_routes();

  std::vector<std::unique_ptr<SbPort>> m_ports;
  std::unique_ptr<SwitchingBus> m_switching_bus;
  std::unique_ptr<BoundedFifo<SbHeader>> m_headers;
  std::unique_ptr<BoundedFifo<SbRequest>> m_requests;
  std::unique_ptr<SwitchController> m_controller;
  std::vector<std::unique_ptr<MessageAnalyzer>> m_analyzers;
  std::unique_ptr<SwitchRegs> m_regs;
  tlm_utils::simple_initiator_socket<SwitchBox> m_loader;  // writes the routing tables
  SbRoutes m_routes;
  bool m_started = false;
  // What the run reports of the switch controller and the switching bus (core/stats.h).
  StatProbe m_stat_messages{this, "messages", "count", "messages switched to every destination",
                            [this] { return double(m_controller->stats().messages); }};
  StatProbe m_stat_bytes_out{this, "bytes_out", "bytes", "bytes written to destination channels (once per destination)",
                             [this] { return double(m_controller->stats().bytes_out); }};
  StatProbe m_stat_stalls{this, "stalls", "count", "times a started request could not move a packet",
                          [this] { return double(m_controller->stats().stalls); }};
  StatProbe m_stat_bus_busy{this, "bus_busy_us", "us", "time the switching bus carried transfers",
                            [this] { return in_us(m_switching_bus->busy_time()); }};
  // The controller's and the switching bus's lines in the VCD (declared once
  // both exist, core/signals.h), and the state of a stall report (core/state_views.h).
  std::deque<Signal> m_signals;
  StateView m_view_state{this, "switchbox", "port buffers, analyzers, header and request buffers, stations",
                         [this] { return describe_state(); }};
};

}  // namespace m2
