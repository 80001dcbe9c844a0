// A TEST DOUBLE of a host's TCP sockets (models/host/tcpip/host_sockets.h),
// for the tests of the socket layer of outside programs only: no TCP, no IP,
// no stack. The hosts' socket tables are joined in memory; a connection
// attempt and each block of sent bytes reach the peer a fixed simulated
// delay later (the sender waits it). It keeps the Linux behaviour the socket
// layer must carry through: ECONNREFUSED when nothing listens, EADDRINUSE for
// a bound port, end of file after the peer's close or SHUT_WR, ECONNRESET
// after a peer closed with data unread, EAGAIN when nonblocking, poll bits.
// Never a stand-in for the real stack: the lead wires that into the host node.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include <systemc>

#include "host/tcpip/host_sockets.h"
#include "host/tcpip/ip_node_address.h"

namespace m2test {

class LoopbackSocketsDouble;

// The hosts the double joins, and the delay of everything that crosses.
struct LoopbackNetwork {
  sc_core::sc_time delay{10, sc_core::SC_US};
  std::vector<LoopbackSocketsDouble*> hosts;  // by node number
};

class LoopbackSocketsDouble : public m2::HostSockets {
 public:
  LoopbackSocketsDouble(LoopbackNetwork& net, int node) : m_net(net), m_node(node) {
    if (static_cast<int>(net.hosts.size()) <= node) net.hosts.resize(node + 1, nullptr);
    net.hosts[node] = this;
  }

  int closes = 0;  // close() calls, for the tests

  int socket(int domain, int type, int) override {
    if (domain != AF_INET) return -EAFNOSUPPORT;
    if (type != SOCK_STREAM) return -EPROTONOSUPPORT;
    const int sd = m_next++;
    m_socks[sd] = std::make_unique<Sock>();
    return sd;
  }
  int bind(int sd, uint32_t ip, uint16_t port) override {
    Sock* s = find(sd);
    if (!s) return -EBADF;
    if (ip != 0 && ip != m2::node_ip(m_node)) return -EADDRNOTAVAIL;
    for (auto& [other, o] : m_socks)
      if (other != sd && o->port == port && port != 0) return -EADDRINUSE;
    s->port = port ? port : ephemeral();
    return 0;
  }
  int listen(int sd, int) override {
    Sock* s = find(sd);
    if (!s) return -EBADF;
    if (!s->port) s->port = ephemeral();
    s->listening = true;
    return 0;
  }
  int accept(int sd, uint32_t* ip, uint16_t* port, bool nonblocking) override {
    Sock* s = find(sd);
    if (!s || !s->listening) return -EINVAL;
    while (s->pending.empty()) {
      if (nonblocking) return -EAGAIN;
      sc_core::wait(m_changed);
      if (!(s = find(sd))) return -EBADF;
    }
    const int n = s->pending.front();
    s->pending.pop_front();
    Sock* c = find(n);
    *ip = m2::node_ip(c->peer_node);
    *port = c->peer_port;
    return n;
  }
  int connect(int sd, uint32_t ip, uint16_t port) override {
    Sock* s = find(sd);
    if (!s) return -EBADF;
    if (s->peer_node >= 0) return -EISCONN;
    const auto node = m2::ip_node(ip, static_cast<int>(m_net.hosts.size()));
    if (!node || !m_net.hosts[*node]) return -ENETUNREACH;
    sc_core::wait(m_net.delay);
    LoopbackSocketsDouble& far = *m_net.hosts[*node];
    int lsd = -1;
    for (auto& [n, o] : far.m_socks)
      if (o->listening && o->port == port) lsd = n;
    if (lsd < 0) return -ECONNREFUSED;
    if (!s->port) s->port = ephemeral();
    const int fsd = far.m_next++;
    auto f = std::make_unique<Sock>();
    f->port = port;
    f->peer_node = m_node, f->peer_sd = sd, f->peer_port = s->port;
    s->peer_node = *node, s->peer_sd = fsd, s->peer_port = port;
    far.m_socks[fsd] = std::move(f);
    far.m_socks[lsd]->pending.push_back(fsd);
    far.m_changed.notify(sc_core::SC_ZERO_TIME);
    return 0;
  }
  long send(int sd, const uint8_t* data, size_t len, bool) override {
    Sock* s = find(sd);
    if (!s) return -EBADF;
    if (s->reset) return -ECONNRESET;
    if (s->peer_node < 0 || s->shut_wr) return -EPIPE;
    const int node = s->peer_node, psd = s->peer_sd;
    std::vector<uint8_t> bytes(data, data + len);
    sc_core::wait(m_net.delay);
    LoopbackSocketsDouble& far = *m_net.hosts[node];
    if (Sock* p = far.find(psd)) {
      p->rx.insert(p->rx.end(), bytes.begin(), bytes.end());
      far.m_changed.notify(sc_core::SC_ZERO_TIME);
    }
    return static_cast<long>(len);
  }
  long recv(int sd, uint8_t* data, size_t len, bool nonblocking, bool peek) override {
    Sock* s = find(sd);
    if (!s) return -EBADF;
    while (s->rx.empty() && !s->eof && !s->reset) {
      if (s->peer_node < 0) return -ENOTCONN;
      if (nonblocking) return -EAGAIN;
      sc_core::wait(m_changed);
      if (!(s = find(sd))) return -EBADF;
    }
    if (s->reset) return -ECONNRESET;
    const size_t n = std::min(len, s->rx.size());
    std::copy(s->rx.begin(), s->rx.begin() + static_cast<long>(n), data);
    if (!peek) s->rx.erase(s->rx.begin(), s->rx.begin() + static_cast<long>(n));
    return static_cast<long>(n);
  }
  int shutdown(int sd, int how) override {
    Sock* s = find(sd);
    if (!s) return -EBADF;
    if (how == SHUT_WR || how == SHUT_RDWR) {
      s->shut_wr = true;
      tell_peer(*s, false);
    }
    return 0;
  }
  int close(int sd) override {
    ++closes;
    Sock* s = find(sd);
    if (!s) return -EBADF;
    // As Linux: closing with data unread resets the connection.
    if (!s->shut_wr || !s->rx.empty()) tell_peer(*s, !s->rx.empty());
    for (int p : s->pending) m_socks.erase(p);
    m_socks.erase(sd);
    m_changed.notify(sc_core::SC_ZERO_TIME);
    return 0;
  }
  int setsockopt(int sd, int level, int name, int value) override {
    Sock* s = find(sd);
    if (!s) return -EBADF;
    if (!known(level, name)) return -ENOPROTOOPT;
    s->options[{level, name}] = value;
    return 0;
  }
  int getsockopt(int sd, int level, int name, int* value) override {
    Sock* s = find(sd);
    if (!s) return -EBADF;
    if (level == SOL_SOCKET && name == SO_ERROR) return *value = 0, 0;
    if (!known(level, name)) return -ENOPROTOOPT;
    *value = s->options[{level, name}];
    return 0;
  }
  int getsockname(int sd, uint32_t* ip, uint16_t* port) override {
    Sock* s = find(sd);
    if (!s) return -EBADF;
    *ip = m2::node_ip(m_node), *port = s->port;
    return 0;
  }
  int getpeername(int sd, uint32_t* ip, uint16_t* port) override {
    Sock* s = find(sd);
    if (!s) return -EBADF;
    if (s->peer_node < 0) return -ENOTCONN;
    *ip = m2::node_ip(s->peer_node), *port = s->peer_port;
    return 0;
  }
  short ready(int sd) override {
    Sock* s = find(sd);
    if (!s) return POLLNVAL;
    if (s->listening) return s->pending.empty() ? 0 : POLLIN;
    short r = 0;
    if (!s->rx.empty() || s->eof || s->reset) r |= POLLIN;
    if (s->peer_node >= 0 && !s->reset && !s->shut_wr) r |= POLLOUT;
    if (s->reset) r |= POLLERR;
    if (s->eof && s->shut_wr) r |= POLLHUP;
    return r;
  }
  const sc_core::sc_event& readiness_changed() const override { return m_changed; }

 private:
  struct Sock {
    uint16_t port = 0;
    bool listening = false, eof = false, reset = false, shut_wr = false;
    int peer_node = -1, peer_sd = -1;
    uint16_t peer_port = 0;
    std::deque<uint8_t> rx;
    std::deque<int> pending;  // connections waiting for accept
    std::map<std::pair<int, int>, int> options;
  };

  Sock* find(int sd) {
    auto it = m_socks.find(sd);
    return it == m_socks.end() ? nullptr : it->second.get();
  }
  uint16_t ephemeral() { return m_ephemeral++; }
  static bool known(int level, int name) {
    if (level == SOL_SOCKET)
      return name == SO_SNDBUF || name == SO_RCVBUF || name == SO_REUSEADDR || name == SO_KEEPALIVE;
    return level == IPPROTO_TCP && name == TCP_NODELAY;
  }
  // The peer learns of the end at once (a simplification of the double).
  void tell_peer(Sock& s, bool reset) {
    if (s.peer_node < 0) return;
    LoopbackSocketsDouble& far = *m_net.hosts[s.peer_node];
    if (Sock* p = far.find(s.peer_sd)) {
      if (reset) p->reset = true;
      else p->eof = true;
      far.m_changed.notify(sc_core::SC_ZERO_TIME);
    }
  }

  LoopbackNetwork& m_net;
  int m_node;
  int m_next = 1;
  uint16_t m_ephemeral = 32768;
  std::map<int, std::unique_ptr<Sock>> m_socks;
  sc_core::sc_event m_changed;
};

}  // namespace m2test
