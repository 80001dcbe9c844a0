// The host environment's TCP/IP calls (host_env.h, m2host_tcp_*) on the
// host's stack (host/tcpip/host_sockets.h): one system call each, then the
// stack's own work, which may wait in simulated time.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <string>

#include "host/host_cpu.h"
#include "host/host_env.h"
#include "host/tcpip/host_sockets.h"
#include "host/tcpip/ip_node_address.h"

using m2::HostCpu;
using m2::HostSockets;

namespace {

// The calling host's stack, after the system call's cost; ends the run when
// the host has none.
HostSockets& enter(const char* call) {
  HostCpu& h = HostCpu::current();
  h.charge_ns(h.syscall_ns.get());
  if (!h.sockets())
    h.abort_run(1, std::string(call) + ": " + h.name() +
                       " has no TCP/IP stack (its NI must run the Ethernet-emulation firmware: "
                       "node*.ni.firmware: eth; docs/tcpip.md)");
  h.sync_time();
  return *h.sockets();
}

// Runs one call of the stack for the current host.
template <class F>
auto call(const char* name, F&& f) {
  HostCpu& h = HostCpu::current();
  HostSockets& s = enter(name);
  auto r = f(s);
  h.after_blocking();
  return r;
}

}  // namespace

extern "C" {

int m2host_tcp_socket(void) {
  return call("m2host_tcp_socket", [](HostSockets& s) { return s.socket(AF_INET, SOCK_STREAM, 0); });
}

int m2host_tcp_listen(int sd, uint16_t port, int backlog) {
  return call("m2host_tcp_listen", [&](HostSockets& s) {
    const int rc = s.bind(sd, 0, port);
    return rc < 0 ? rc : s.listen(sd, backlog);
  });
}

int m2host_tcp_accept(int sd, int* peer_node) {
  return call("m2host_tcp_accept", [&](HostSockets& s) {
    uint32_t ip = 0;
    uint16_t port = 0;
    const int rc = s.accept(sd, &ip, &port, false);
    if (rc >= 0 && peer_node) {
      const auto node = m2::ip_node(ip, HostCpu::current().count());
      *peer_node = node ? *node : -1;
    }
    return rc;
  });
}

int m2host_tcp_connect(int sd, int node, uint16_t port) {
  return call("m2host_tcp_connect", [&](HostSockets& s) { return s.connect(sd, m2::node_ip(node), port); });
}

long m2host_tcp_send(int sd, const void* data, size_t bytes, int nonblocking) {
  return call("m2host_tcp_send",
              [&](HostSockets& s) { return s.send(sd, static_cast<const uint8_t*>(data), bytes, nonblocking != 0); });
}

long m2host_tcp_recv(int sd, void* data, size_t bytes, int nonblocking) {
  return call("m2host_tcp_recv",
              [&](HostSockets& s) { return s.recv(sd, static_cast<uint8_t*>(data), bytes, nonblocking != 0, false); });
}

int m2host_tcp_setopt(int sd, int level, int name, int value) {
  return call("m2host_tcp_setopt", [&](HostSockets& s) { return s.setsockopt(sd, level, name, value); });
}

int m2host_tcp_close(int sd) {
  return call("m2host_tcp_close", [&](HostSockets& s) { return s.close(sd); });
}

int m2host_tcp_poll(const int* sds, const short* events, short* revents, int n, double timeout_us) {
  HostCpu& h = HostCpu::current();
  HostSockets& s = enter("m2host_tcp_poll");
  h.after_blocking();
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  for (;;) {
    int ready = 0;
    for (int i = 0; i < n; i++) {
      revents[i] = static_cast<short>(s.ready(sds[i]) & (events[i] | POLLERR | POLLHUP));
      if (revents[i]) ready++;
    }
    if (ready || timeout_us == 0) return ready;
    double left = -1;
    if (timeout_us > 0) {
      left = timeout_us - (sc_core::sc_time_stamp() - start).to_seconds() * 1e6;
      if (left <= 0) return 0;
    }
    h.wait_event(s.readiness_changed(), left, "waiting in poll for its TCP connections");
  }
}

}  // extern "C"
