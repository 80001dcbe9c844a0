#include "host/tcpip/host_stack_factory.h"

#include "host/host_cpu.h"

namespace m2 {

std::unique_ptr<HostSockets> make_host_sockets(const char* name, IpPacketPort& port, int node, int nodes,
                                               const std::string& output_dir, HostCopyCost copy) {
  return std::make_unique<LwipHostSockets>(
      name, port, node, nodes, [output_dir] { return output_dir; }, copy);
}

std::unique_ptr<HostSockets> make_host_sockets(const char* name, IpPacketPort& port, const HostCpu& cpu) {
  // The run's output folder is set after the platform is built: asked when
  // the simulation starts.
  return std::make_unique<LwipHostSockets>(
      name, port, cpu.id(), cpu.count(), [] { return HostCpu::output_dir(); },
      HostCopyCost{cpu.memcpy_mbyte_per_s.get(), cpu.memcpy_setup_ns.get()});
}

}  // namespace m2
