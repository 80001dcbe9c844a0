#include "switchbox/switch_box.h"

#include <algorithm>
#include <cstdio>

#include <ip/ni_netbuf.h>
#include <ip/sb_memory_map.h>
#include <ip/sb_regs.h>
#include <ip/sb_routes.h>
#include <ip/sb_variants.h>

#include "core/ip_variant.h"
#include "devices/node_firmware.h"

namespace m2 {

using sc_core::SC_NS;
using sc_core::sc_time;

SwitchBox::SwitchBox(sc_core::sc_module_name name, RunControl& run, TimingStyle timing, const std::string& config_dir)
    : sc_module(name),
      variant(this->name(), "variant", "maestro2",
              "switch box generation: maestro2 (8 ports, out-of-order, 8 stations), inorder, ooo1/ooo2/ooo4/ooo8, "
              "maestro1 (4 ports, in-order, 1 station)",
              sb_variants()),
      ports(this->name(), "ports", 8, "ports", "MLX ports, each with its network buffer (spec: 8; Maestro: 4)",
            Range<uint64_t>{1, SB_MAX_PORTS}),
      stations(this->name(), "stations", 8, "stations", "reservation stations of the switch controller: 1, 2, 4 or 8",
               Range<uint64_t>{1, 8}),
      mode(this->name(), "mode", "out-of-order",
           "switching: in-order (a stalled request holds the transfer unit) or out-of-order (it returns to its "
           "station and another ready request runs)",
           {"in-order", "out-of-order"}),
      bus_width_bits(this->name(), "bus_width_bits", 128, "bit",
                     "switching bus width, a multiple of 8 (assumption: 128)", Range<uint64_t>{8, 1024}),
      bus_clock_mhz(this->name(), "bus_clock_mhz", 100.0, "MHz", "switching bus clock (assumption: 100)",
                    Range<double>{1, 1000}),
      bus_setup_cycles(this->name(), "bus_setup_cycles", 2, "cycles",
                       "clocks per bus transfer before its first data word (select source and destinations)",
                       Range<uint64_t>{0, 64}),
      burst_bytes(this->name(), "burst_bytes", 256, "B",
                  "most bytes the transfer unit moves per bus transfer, a multiple of 32 (assumption: 8 packets)",
                  Range<uint64_t>{32, 65536}),
      analyzer_latency_ns(this->name(), "analyzer_latency_ns", 40.0, "ns",
                          "from a header's last byte in the channel to its extraction (assumption: 4 clocks)",
                          Range<double>{0, 1e6}),
      fetch_latency_ns(this->name(), "fetch_latency_ns", 20.0, "ns",
                       "request fetch unit: request buffer to a free station (assumption: 2 clocks)",
                       Range<double>{0, 1e6}),
      header_buffer_depth(this->name(), "header_buffer_depth", 16, "entries",
                          "headers the header buffer holds (assumption)", Range<uint64_t>{1, 4096}),
      request_buffer_depth(this->name(), "request_buffer_depth", 16, "entries",
                           "requests the request buffer holds (assumption)", Range<uint64_t>{1, 4096}),
      register_access_ns(this->name(), "register_access_ns", 10.0, "ns",
                         "time of one switch-controller register access (assumption: 1 clock)", Range<double>{0, 1e6}),
      firmware(this->name(), "firmware", "sb_router", "",
               "routing firmware ELF: a built firmware's name or a path relative to the config file; empty = "
               "none (no routing)"),
      bus("bus"),
      sdram("sdram", SB_SDRAM_SIZE),
      cpu("cpu", run, [this] { return bus.memory_map(); }),
      console("console", cpu.name()),
      m_loader("loader") {
  check_parameters();
  simctrl = std::make_unique<SimCtrl>("simctrl", run, cpu.name(), static_cast<uint32_t>(cpu.timebase_hz.get()),
                                      static_cast<uint32_t>(cpu.clock_mhz.get() * 1e6));
  cpu.socket.bind(bus.target);
  m_loader.bind(bus.target);
  bus.attach(sdram.socket, SB_SDRAM_BASE, sdram.size(), sdram.name());
  bus.attach(console.regs, SB_CONSOLE_BASE, SB_DEVICE_SIZE, console.name());
  bus.attach(simctrl->regs, SB_SIMCTRL_BASE, SB_DEVICE_SIZE, simctrl->name());
  console.on_line([this](const std::string& line) { cpu.console_output(line); });

  // Data path.
  const unsigned n = static_cast<unsigned>(ports.get());
  std::vector<NetBuf*> buffers;
  for (unsigned p = 0; p < n; ++p) {
    m_ports.push_back(std::make_unique<SbPort>(("port" + std::to_string(p)).c_str()));
    NetBuf& nb = m_ports.back()->buffer;
    // The transfer unit moves whole packets: a smaller channel would stall forever.
    if (nb.capacity() < MLX_PACKET_BYTES)
      throw ConfigError(nb.channel_bytes.origin().where + ": key '" + nb.channel_bytes.name() +
                        "': a switch-box port channel must hold a packet (32 bytes), got " +
                        nb.channel_bytes.value_string());
    buffers.push_back(&nb);
    // The manager sees every port buffer (diagnostics, tests).
    bus.attach(nb.regs, SB_PORT_NETBUF_BASE(p), SB_DEVICE_SIZE, nb.name());
    bus.attach(nb.data, SB_PORT_DATA_BASE(p), NI_NETBUF_DATA_SIZE, std::string(nb.name()) + " data");
  }
  m_switching_bus = std::make_unique<SwitchingBus>("switching_bus", timing, bus_width_bits.get(), bus_clock_mhz.get(),
                                                   bus_setup_cycles.get());
  m_headers =
      std::make_unique<BoundedFifo<SbHeader>>(std::string(this->name()) + ".header_buffer", header_buffer_depth.get());
  m_requests = std::make_unique<BoundedFifo<SbRequest>>(std::string(this->name()) + ".request_buffer",
                                                        request_buffer_depth.get());
  SwitchController::Config cc;
  cc.stations = static_cast<unsigned>(stations.get());
  cc.mode = mode.get() == "in-order" ? SwitchController::Mode::InOrder : SwitchController::Mode::OutOfOrder;
  cc.burst_bytes = burst_bytes.get();
  cc.fetch_latency = sc_time(fetch_latency_ns.get(), SC_NS);
  m_controller = std::make_unique<SwitchController>("controller", cc, buffers, *m_requests, *m_switching_bus);
  m_signals.emplace_back(this, "controller.stations_occupied", 8,
                         [this] { return uint64_t(m_controller->occupied()); });
  m_signals.emplace_back(this, "switching_bus.busy", m_switching_bus->busy_log());
  for (unsigned a = 0; a * 2 < n; ++a) {
    std::vector<MessageAnalyzer::Port> served;
    for (unsigned p = 2 * a; p < std::min(n, 2 * a + 2); ++p) served.push_back({buffers[p], p});
    m_analyzers.push_back(std::make_unique<MessageAnalyzer>(
        ("analyzer" + std::to_string(a)).c_str(), served, *m_headers, *m_switching_bus,
        sc_time(analyzer_latency_ns.get(), SC_NS), [this](const SbHeader& h) { m_controller->message_seen(h); }));
  }
  const uint32_t config = static_cast<uint32_t>(n) | static_cast<uint32_t>(cc.stations) << 8 |
                          (cc.mode == SwitchController::Mode::OutOfOrder ? SB_CONFIG_OOO : 0u);
  m_regs = std::make_unique<SwitchRegs>("regs", config, *m_headers, *m_requests, *m_controller,
                                        sc_time(register_access_ns.get(), SC_NS));
  bus.attach(m_regs->socket, SB_SWITCH_BASE, SB_DEVICE_SIZE, m_regs->name());
  m_regs->irq.connect([this](bool level) { cpu.set_irq(0, level); });

  // Not a run participant: the routing firmware never exits.
  load_node_firmware(firmware, config_dir, cpu, *simctrl);
}

void SwitchBox::check_parameters() const {
  const uint64_t s = stations.get();
  if (s != 1 && s != 2 && s != 4 && s != 8)
    throw ConfigError(stations.origin().where + ": key '" + stations.name() + "': expected 1, 2, 4 or 8, got " +
                      stations.value_string());
  if (bus_width_bits.get() % 8 != 0)
    throw ConfigError(bus_width_bits.origin().where + ": key '" + bus_width_bits.name() +
                      "': expected a multiple of 8, got " + bus_width_bits.value_string());
  if (burst_bytes.get() % MLX_PACKET_BYTES != 0)
    throw ConfigError(burst_bytes.origin().where + ": key '" + burst_bytes.name() +
                      "': expected a multiple of 32 (whole packets), got " + burst_bytes.value_string());
}

void SwitchBox::set_routes(const SbRoutes& routes) {
  encode_routes(routes, port_count(), name());  // throws before anything changes
  m_routes = routes;
  if (m_started) write_routes();
}

void SwitchBox::set_message_probe(MessageProbe probe) {
  for (auto& a : m_analyzers) a->set_message_probe(probe);
  m_controller->set_message_probe(probe);
}

void SwitchBox::start_of_simulation() {
  m_started = true;
  write_routes();
}

void SwitchBox::write_routes() {
  std::vector<uint8_t> image = encode_routes(m_routes, port_count(), name());
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_WRITE_COMMAND);
  t.set_address(SB_ROUTES_BASE);
  t.set_data_ptr(image.data());
  t.set_data_length(static_cast<unsigned>(image.size()));
  if (m_loader->transport_dbg(t) != image.size())
    throw ConfigError(std::string(name()) + ": routing tables do not fit in " + sdram.name());
}

uint64_t SwitchBox::headers_extracted() const {
  uint64_t n = 0;
  for (const auto& a : m_analyzers) n += a->headers();
  return n;
}

std::string SwitchBox::describe_state() const {
  std::string s = std::string(name()) + " at " + sc_core::sc_time_stamp().to_string() + "\n";
  for (unsigned p = 0; p < m_ports.size(); ++p) {
    const NetBuf& nb = m_ports[p]->buffer;
    s += "  port " + std::to_string(p) + ":";
    for (unsigned ch = 0; ch < NetBuf::kChannels; ++ch)
      s += " RX" + std::to_string(ch) + " " + std::to_string(nb.rx_available(ch)) + "/" +
           std::to_string(nb.capacity()) + " TX" + std::to_string(ch) + " " + std::to_string(nb.tx_available(ch)) +
           "/" + std::to_string(nb.capacity());
    s += "\n";
  }
  for (const auto& a : m_analyzers) s += a->describe();
  s += "  header buffer: " + std::to_string(m_headers->size()) + "/" + std::to_string(m_headers->depth()) +
       (m_regs->irq_enable() & SB_IRQ_HEADER ? ", interrupt enabled" : "") + "\n";
  for (size_t i = 0; i < m_headers->size(); ++i) {
    const SbHeader& h = m_headers->at(i);
    char b[128];
    std::snprintf(b, sizeof b, "    port %u ch %u: %08x %08x (%u bytes)\n", h.port, h.channel, h.word0, h.word1,
                  h.bytes());
    s += b;
  }
  s += m_controller->describe();
  s += "  manager: " + std::string(cpu.name()) + (firmware.get().empty() ? " without firmware" : "") + ", " +
       std::to_string(cpu.instructions()) + " instructions";
  if (cpu.firmware()) {
    const iss::Core& core = cpu.core();
    char b[64];
    std::snprintf(b, sizeof b, ", pc 0x%08llx", static_cast<unsigned long long>(core.pc()));
    s += b + (" " + cpu.describe(core.pc())) + (core.idle() ? ", dozing" : "");
  }
  s += ", irq " + std::to_string(m_regs->irq.level()) + " enable " + std::to_string(m_regs->irq_enable()) + "\n";
  return s;
}

}  // namespace m2
