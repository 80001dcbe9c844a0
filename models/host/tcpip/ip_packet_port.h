// The seam between a host's TCP/IP stack and its Maestro2 NI driver: IP
// packets of up to the MTU go out to a node and come in from the network.
// The Ethernet-emulation driver and NI firmware (eth) implement it; the
// stack uses it. Addresses map statically to nodes (no ARP, no broadcast):
// 10.0.0.(N+1) is nodeN (docs/tcpip.md), see ip_node_address.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace m2 {

class IpPacketPort {
 public:
  // The Linux driver's MTU on Maestro2 (spec/maestro2.md, Software).
  static constexpr size_t kMtu = 65000;
  using Receiver = std::function<void(std::vector<uint8_t> packet)>;

  virtual ~IpPacketPort() = default;
  // Called from an SC_THREAD of this host: hands one IP packet (1..kMtu bytes)
  // for node `dst_node` to the driver, which copies it. The driver's transmit
  // costs are waited in the caller's thread before it returns.
  virtual void transmit(int dst_node, const uint8_t* packet, size_t len) = 0;
  // Packets for this host, in arrival order; called from the host's
  // receive-interrupt SC_THREAD after the driver's costs, so the receiver may
  // wait() for its own processing costs.
  virtual void set_receiver(Receiver receiver) = 0;
  // This host's node number.
  virtual int node() const = 0;
};

}  // namespace m2
