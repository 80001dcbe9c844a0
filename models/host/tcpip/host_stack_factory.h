// Makes a simulated host's TCP/IP stack (docs/tcpip.md, "Wiring a host"):
// the one place that knows which implementation serves HostSockets. Call it
// during elaboration (the stack has a SystemC thread), after the host's
// driver (its IpPacketPort) and CPU exist, as a child of the host's module.
#pragma once

#include <memory>
#include <string>

#include "host/tcpip/host_sockets.h"
#include "host/tcpip/ip_packet_port.h"
#include "host/tcpip/lwip_host_sockets.h"

namespace m2 {

class HostCpu;

// `name`: the stack's module name (its parameters are NAME.segment_us, ...);
// `node`/`nodes`: this host's number and how many hosts there are;
// `output_dir`: the run's output folder (the stack's library copy is made
// there for a moment, when the simulation starts); `copy`: the host CPU's
// memcpy figures.
std::unique_ptr<HostSockets> make_host_sockets(const char* name, IpPacketPort& port, int node, int nodes,
                                               const std::string& output_dir, HostCopyCost copy);
// The same for the host of `cpu`: its node number and count, its memcpy
// figures (memcpy_mbyte_per_s, memcpy_setup_ns), and the run's output folder
// (HostCpu::output_dir(), read when the simulation starts).
std::unique_ptr<HostSockets> make_host_sockets(const char* name, IpPacketPort& port, const HostCpu& cpu);

}  // namespace m2
