#include "host/tcpip/lwip_host_sockets.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "core/leak_roots.h"
#include "host/tcpip/ip_node_address.h"

namespace m2 {

namespace {
// Linux 2.4's limits on SO_SNDBUF / SO_RCVBUF (net/core/sock.c): the value
// asked for, capped at wmem_max/rmem_max (65535), doubled for overhead,
// at least SOCK_MIN_SNDBUF / SOCK_MIN_RCVBUF.
constexpr int kLinuxBufMax = 65535;
constexpr int kLinuxSndBufMin = 2048;
constexpr int kLinuxRcvBufMin = 256;
// Linux 2.4's default receive buffer (tcp_rmem[1]): what SO_RCVBUF reads.
constexpr int kLinuxRcvBufDefault = 87380;
constexpr uint32_t kNoTimeout = 0xFFFFFFFFu;
const sc_core::sc_time kMs(1, sc_core::SC_MS);
}  // namespace

struct LwipHostSockets::Socket {
  enum class State { fresh, listening, connecting, connected, closed };
  int sd = -1;
  LwipHostSockets* host = nullptr;
  struct tcp_pcb* pcb = nullptr;  // null once lwIP has freed it
  State state = State::fresh;
  bool bound = false;
  std::deque<std::vector<uint8_t>> rx;  // received, not yet read
  size_t rx_offset = 0;                 // read from rx.front()
  size_t rx_bytes = 0;
  bool eof = false, rd_shut = false, wr_shut = false;
  int error = 0;                                // pending errno, reported once
  std::deque<std::unique_ptr<Socket>> pending;  // connections accept() has not taken
  int backlog = 0;
  int sndbuf = 0, rcvbuf = kLinuxRcvBufDefault;
  bool reuseaddr = false, nodelay = false, keepalive = false;
  uint32_t peer_ip = 0;
  uint16_t peer_port = 0;
};

LwipHostSockets::LwipHostSockets(sc_core::sc_module_name name, IpPacketPort& port, int node, int nodes,
                                 std::function<std::string()> output_dir, HostCopyCost copy, std::string library)
    : sc_core::sc_module(name),
      segment_us(this->name(), "segment_us", 5.0, "us",
                 "TCP/IP protocol processing per segment, each way, on the host CPU (assumption: Linux 2.4 on a "
                 "1 GHz Pentium III, docs/tcpip.md)",
                 Range<double>{0.0, 1e6}),
      checksum_mbyte_per_s(this->name(), "checksum_mbyte_per_s", 500.0, "MB/s",
                           "Internet checksum rate of the host CPU over a packet, each way (no offload on the NI; "
                           "assumption: Pentium III csum_partial from memory, docs/tcpip.md)",
                           Range<double>{1.0, 1e6}),
      sndbuf_bytes(this->name(), "sndbuf_bytes", 65535, "bytes",
                   "send buffer of a new socket: 64 KB, lwIP's most without window scaling (Linux 2.4's "
                   "wmem_max; docs/tcpip.md, Send buffer)",
                   Range<uint64_t>{kLinuxSndBufMin, kLinuxBufMax}),
      m_port(port),
      m_node(node),
      m_nodes(nodes),
      m_copy(copy),
      m_output_dir(std::move(output_dir)),
      m_library(library.empty() ? LwipLibrary::default_path() : std::move(library)) {
  m_port.set_receiver([this](std::vector<uint8_t> packet) { input(packet); });
  SC_THREAD(run);
}

void LwipHostSockets::start_of_simulation() {
  // The run's output folder is known by now (not yet while the platform is built).
  m_lib = std::make_unique<LwipLibrary>(m_library, m_output_dir(), m_node);
  m_api = &m_lib->api();
  m_api->init(node_ip(m_node), static_cast<uint16_t>(IpPacketPort::kMtu), this, &LwipHostSockets::now_ms,
              &LwipHostSockets::output);
}

LwipHostSockets::~LwipHostSockets() {
  if (!m_api) return;
  // The host goes away: its connections end without a word to the peers.
  m_closing = true;
  for (auto& [sd, s] : m_sockets) {
    // A socket never bound (or whose bind failed) is on none of lwIP's
    // lists, which abandon_all empties: it is freed here, or it would leak.
    const bool unlisted = s->pcb && s->state == Socket::State::fresh && !s->bound;
    if (s->pcb) detach(s.get());
    if (unlisted) m_api->tcp_close(s->pcb);
    for (auto& p : s->pending)
      if (p->pcb) detach(p.get());
  }
  m_api->abandon_all();
}

// ---- the copy's hooks and lwIP's callbacks --------------------------------

uint32_t LwipHostSockets::now_ms(void*) {
  return static_cast<uint32_t>(sc_core::sc_time_stamp().value() / kMs.value());
}

void LwipHostSockets::output(void* host, uint32_t dst_ip, const uint8_t* packet, size_t len) {
  auto* self = static_cast<LwipHostSockets*>(host);
  if (self->m_closing) return;
  self->m_out.push_back({dst_ip, std::vector<uint8_t>(packet, packet + len)});
}

int8_t LwipHostSockets::on_recv(void* arg, struct tcp_pcb* pcb, struct pbuf* p, int8_t) {
  auto* s = static_cast<Socket*>(arg);
  const m2lwip_api& api = *s->host->m_api;
  if (!p) {
    s->eof = true;
  } else {
    const size_t n = api.pbuf_len(p);
    if (s->rd_shut) {
      // SHUT_RD: acknowledged and dropped, as Linux does.
      api.tcp_recved(pcb, static_cast<uint16_t>(n));
    } else {
      std::vector<uint8_t> chunk(n);
      api.pbuf_copy(p, chunk.data(), n, 0);
      s->rx.push_back(std::move(chunk));
      s->rx_bytes += n;
    }
    api.pbuf_free(p);
  }
  s->host->changed();
  return M2LWIP_OK;
}

int8_t LwipHostSockets::on_sent(void* arg, struct tcp_pcb*, uint16_t) {
  static_cast<Socket*>(arg)->host->changed();
  return M2LWIP_OK;
}

void LwipHostSockets::on_err(void* arg, int8_t err) {
  // lwIP has freed the pcb.
  auto* s = static_cast<Socket*>(arg);
  s->pcb = nullptr;
  if (s->state == Socket::State::connecting) s->error = err == M2LWIP_ERR_RST ? ECONNREFUSED : ETIMEDOUT;
  else if (err == M2LWIP_ERR_RST) s->error = ECONNRESET;
  else if (err == M2LWIP_ERR_CLSD) s->eof = true;
  else s->error = ECONNABORTED;  // retransmissions gave up
  s->state = Socket::State::closed;
  s->host->changed();
}

int8_t LwipHostSockets::on_accept(void* arg, struct tcp_pcb* pcb, int8_t err) {
  auto* listener = static_cast<Socket*>(arg);
  LwipHostSockets* self = listener->host;
  if (err != M2LWIP_OK || !pcb) return M2LWIP_ERR_MEM;
  // A full queue refuses the connection (lwIP then resets it).
  if (static_cast<int>(listener->pending.size()) >= listener->backlog) return M2LWIP_ERR_MEM;
  auto s = std::make_unique<Socket>();
  s->host = self;
  s->pcb = pcb;
  s->state = Socket::State::connected;
  s->bound = true;
  // The new socket inherits the listener's options, as on Linux.
  s->sndbuf = listener->sndbuf;
  s->rcvbuf = listener->rcvbuf;
  s->nodelay = listener->nodelay;
  s->keepalive = listener->keepalive;
  self->m_api->tcp_addr(pcb, 0, &s->peer_ip, &s->peer_port);
  self->m_api->tcp_nodelay(pcb, s->nodelay);
  self->m_api->tcp_keepalive(pcb, s->keepalive);
  self->attach(s.get());
  listener->pending.push_back(std::move(s));
  self->changed();
  return M2LWIP_OK;
}

int8_t LwipHostSockets::on_connected(void* arg, struct tcp_pcb*, int8_t) {
  auto* s = static_cast<Socket*>(arg);
  s->state = Socket::State::connected;
  s->host->changed();
  return M2LWIP_OK;
}

// ---- time, packets and costs ----------------------------------------------

void LwipHostSockets::run() {
  // Suspended at a run's end, this thread's frames (a packet being handed
  // on, waiting out its costs) stay in use: roots for LeakSanitizer.
  keep_stack_as_leak_root();
  for (;;) {
    while (!m_loop.empty()) {
      std::vector<uint8_t> packet = std::move(m_loop.front());
      m_loop.pop_front();
      input(packet);
    }
    m_api->check_timeouts();
    flush();
    const uint32_t sleep = m_api->sleep_ms();
    if (!m_loop.empty()) continue;
    if (sleep == kNoTimeout) {
      wait(m_wake);
    } else {
      // lwIP counts whole milliseconds of simulated time: wake at the due one.
      uint64_t due_ms = uint64_t{now_ms(this)} + sleep;
      const sc_core::sc_time now = sc_core::sc_time_stamp();
      if (kMs * static_cast<double>(due_ms) <= now) due_ms = now.value() / kMs.value() + 1;
      wait(kMs * static_cast<double>(due_ms) - now, m_wake);
    }
  }
}

void LwipHostSockets::input(const std::vector<uint8_t>& packet) {
  charge_segment(packet.size());
  ++m_counters.packets_in;
  m_counters.bytes_in += packet.size();
  if (m_closing) return;
  m_api->input(packet.data(), packet.size());
  after_call();
}

void LwipHostSockets::after_call() {
  m_wake.notify(sc_core::SC_ZERO_TIME);
  flush();
}

void LwipHostSockets::flush() {
  // One thread at a time hands packets to the port, in lwIP's order; the
  // others leave theirs to it.
  if (m_flushing) return;
  m_flushing = true;
  while (!m_out.empty()) {
    Packet p = std::move(m_out.front());
    m_out.pop_front();
    charge_segment(p.bytes.size());
    const std::optional<int> dst = ip_node(p.dst_ip, m_nodes);
    if (!dst) {
      ++m_counters.dropped_out;  // no such node: lost, as on a wire
    } else if (*dst == m_node) {
      m_loop.push_back(std::move(p.bytes));
      m_wake.notify(sc_core::SC_ZERO_TIME);
    } else {
      ++m_counters.packets_out;
      m_counters.bytes_out += p.bytes.size();
      m_port.transmit(*dst, p.bytes.data(), p.bytes.size());
    }
  }
  m_flushing = false;
}

void LwipHostSockets::charge_segment(size_t bytes) {
  const double ns = segment_us.get() * 1e3 + static_cast<double>(bytes) * 1e3 / checksum_mbyte_per_s.get();
  if (ns > 0) wait(sc_core::sc_time(ns, sc_core::SC_NS));
}

void LwipHostSockets::charge_copy(size_t bytes) {
  const double ns = m_copy.setup_ns + static_cast<double>(bytes) * 1e3 / m_copy.mbyte_per_s;
  if (ns > 0) wait(sc_core::sc_time(ns, sc_core::SC_NS));
}

void LwipHostSockets::changed() { m_ready.notify(sc_core::SC_ZERO_TIME); }

// ---- sockets ----------------------------------------------------------------

LwipHostSockets::Socket* LwipHostSockets::find(int sd) {
  const auto it = m_sockets.find(sd);
  return it == m_sockets.end() ? nullptr : it->second.get();
}

int LwipHostSockets::add(std::unique_ptr<Socket> s) {
  const int sd = m_next_sd++;
  s->sd = sd;
  m_sockets[sd] = std::move(s);
  return sd;
}

void LwipHostSockets::attach(Socket* s) {
  m_api->tcp_arg(s->pcb, s);
  m_api->tcp_recv(s->pcb, &LwipHostSockets::on_recv);
  m_api->tcp_sent(s->pcb, &LwipHostSockets::on_sent);
  m_api->tcp_err(s->pcb, &LwipHostSockets::on_err);
}

void LwipHostSockets::detach(Socket* s) {
  m_api->tcp_arg(s->pcb, nullptr);
  if (s->state != Socket::State::listening) {
    m_api->tcp_recv(s->pcb, nullptr);
    m_api->tcp_sent(s->pcb, nullptr);
    m_api->tcp_err(s->pcb, nullptr);
  } else {
    m_api->tcp_accept(s->pcb, nullptr);
  }
}

size_t LwipHostSockets::send_space(const Socket& s) const {
  if (!s.pcb || s.state != Socket::State::connected || s.wr_shut) return 0;
  if (m_api->tcp_sndqueuelen(s.pcb) >= m_api->tcp_snd_queuelen - 1) return 0;
  const size_t free_in_lwip = m_api->tcp_sndbuf(s.pcb);
  const size_t queued = m_api->tcp_snd_buf - free_in_lwip;
  const size_t limit = static_cast<size_t>(std::min<size_t>(static_cast<size_t>(s.sndbuf), m_api->tcp_snd_buf));
  return queued >= limit ? 0 : std::min(free_in_lwip, limit - queued);
}

void LwipHostSockets::consumed(Socket* s, size_t bytes) {
  if (!s->pcb) return;
  while (bytes > 0) {
    const auto n = static_cast<uint16_t>(std::min<size_t>(bytes, 0xFFFF));
    m_api->tcp_recved(s->pcb, n);
    bytes -= n;
  }
  after_call();
}

int LwipHostSockets::socket(int domain, int type, int protocol) {
  if (domain != AF_INET) return -EAFNOSUPPORT;
  if ((type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) != SOCK_STREAM) return -EPROTONOSUPPORT;
  if (protocol != 0 && protocol != IPPROTO_TCP) return -EPROTONOSUPPORT;
  auto s = std::make_unique<Socket>();
  s->host = this;
  s->pcb = m_api->tcp_new();
  if (!s->pcb) return -ENOMEM;
  s->sndbuf = static_cast<int>(sndbuf_bytes.get());
  attach(s.get());
  return add(std::move(s));
}

int LwipHostSockets::bind(int sd, uint32_t ip, uint16_t port) {
  Socket* s = find(sd);
  if (!s) return -EBADF;
  if (s->bound || s->state != Socket::State::fresh || !s->pcb) return -EINVAL;
  if (ip != 0 && ip != node_ip(m_node)) return -EADDRNOTAVAIL;
  const int8_t err = m_api->tcp_bind(s->pcb, ip, port);
  if (err == M2LWIP_ERR_USE) return -EADDRINUSE;
  if (err != M2LWIP_OK) return -EINVAL;
  s->bound = true;
  return 0;
}

int LwipHostSockets::listen(int sd, int backlog) {
  Socket* s = find(sd);
  if (!s) return -EBADF;
  backlog = std::clamp(backlog, 1, 255);
  if (s->state == Socket::State::listening) {
    s->backlog = backlog;
    return 0;
  }
  if (s->state != Socket::State::fresh || !s->pcb) return -EINVAL;
  if (!s->bound) {  // Linux binds an unbound socket to a free port
    if (m_api->tcp_bind(s->pcb, 0, 0) != M2LWIP_OK) return -EADDRINUSE;
    s->bound = true;
  }
  int8_t err = M2LWIP_OK;
  struct tcp_pcb* l = m_api->tcp_listen(s->pcb, static_cast<uint8_t>(backlog), &err);
  if (!l) return err == M2LWIP_ERR_USE ? -EADDRINUSE : -ENOMEM;
  s->pcb = l;  // lwIP freed the old one
  s->state = Socket::State::listening;
  s->backlog = backlog;
  m_api->tcp_arg(l, s);
  m_api->tcp_accept(l, &LwipHostSockets::on_accept);
  return 0;
}

int LwipHostSockets::accept(int sd, uint32_t* peer_ip, uint16_t* peer_port, bool nonblocking) {
  for (;;) {
    Socket* s = find(sd);
    if (!s) return -EBADF;
    if (s->state != Socket::State::listening) return -EINVAL;
    if (!s->pending.empty()) {
      std::unique_ptr<Socket> c = std::move(s->pending.front());
      s->pending.pop_front();
      if (peer_ip) *peer_ip = c->peer_ip;
      if (peer_port) *peer_port = c->peer_port;
      return add(std::move(c));
    }
    if (nonblocking) return -EAGAIN;
    wait(m_ready);
  }
}

int LwipHostSockets::connect(int sd, uint32_t ip, uint16_t port) {
  Socket* s = find(sd);
  if (!s) return -EBADF;
  switch (s->state) {
    case Socket::State::connected:
      return -EISCONN;
    case Socket::State::connecting:
      return -EALREADY;
    case Socket::State::listening:
      return -EINVAL;
    case Socket::State::closed:
      return -ECONNABORTED;
    case Socket::State::fresh:
      break;
  }
  if (!ip_node(ip, m_nodes)) return -ENETUNREACH;
  const int8_t err = m_api->tcp_connect(s->pcb, ip, port, &LwipHostSockets::on_connected);
  if (err == M2LWIP_ERR_USE) return -EADDRINUSE;
  if (err != M2LWIP_OK) return -ENOMEM;
  s->state = Socket::State::connecting;
  s->bound = true;
  s->peer_ip = ip;
  s->peer_port = port;
  after_call();
  for (;;) {
    s = find(sd);
    if (!s) return -EBADF;
    if (s->state == Socket::State::connected) return 0;
    if (s->state != Socket::State::connecting) {
      const int e = s->error ? s->error : ECONNABORTED;
      s->error = 0;
      return -e;
    }
    wait(m_ready);
  }
}

long LwipHostSockets::send(int sd, const uint8_t* data, size_t len, bool nonblocking) {
  size_t done = 0;
  for (;;) {
    Socket* s = find(sd);
    if (!s) return done ? static_cast<long>(done) : -EBADF;
    if (done == len) return static_cast<long>(done);
    if (s->error) {
      const int e = s->error;
      s->error = 0;
      return done ? static_cast<long>(done) : -e;
    }
    if (s->state == Socket::State::fresh || s->state == Socket::State::listening ||
        s->state == Socket::State::connecting)
      return -ENOTCONN;
    if (!s->pcb || s->wr_shut) return done ? static_cast<long>(done) : -EPIPE;
    size_t n = std::min({send_space(*s), len - done, size_t{0xFFFF}});
    if (n == 0) {
      if (nonblocking) return done ? static_cast<long>(done) : -EAGAIN;
      wait(m_ready);
      continue;
    }
    // The copy from the user's buffer into the kernel's comes first.
    charge_copy(n);
    s = find(sd);
    if (!s) continue;
    n = std::min(n, send_space(*s));
    if (n == 0) continue;
    const bool more = done + n < len;
    if (m_api->tcp_write(s->pcb, data + done, static_cast<uint16_t>(n), more) != M2LWIP_OK) {
      wait(m_ready);  // lwIP's queue is full: wait for acknowledgements
      continue;
    }
    m_api->tcp_output(s->pcb);
    done += n;
    after_call();
  }
}

long LwipHostSockets::recv(int sd, uint8_t* data, size_t len, bool nonblocking, bool peek) {
  for (;;) {
    Socket* s = find(sd);
    if (!s) return -EBADF;
    if (s->state == Socket::State::listening) return -ENOTCONN;
    if (len == 0) return 0;
    if (s->rx_bytes > 0) {
      const size_t n = std::min(len, s->rx_bytes);
      size_t got = 0, offset = s->rx_offset;
      for (auto it = s->rx.begin(); got < n; ++it) {
        const size_t take = std::min(n - got, it->size() - offset);
        std::memcpy(data + got, it->data() + offset, take);
        got += take;
        offset = 0;
      }
      if (!peek) {
        size_t left = n;
        while (left > 0) {
          const size_t in_front = s->rx.front().size() - s->rx_offset;
          if (left >= in_front) {
            left -= in_front;
            s->rx.pop_front();
            s->rx_offset = 0;
          } else {
            s->rx_offset += left;
            left = 0;
          }
        }
        s->rx_bytes -= n;
      }
      // The copy to the user, then the window opens (Linux 2.4's tcp_recvmsg).
      charge_copy(n);
      if (!peek) {
        if (Socket* again = find(sd)) consumed(again, n);
      }
      return static_cast<long>(n);
    }
    if (s->error) {
      const int e = s->error;
      s->error = 0;
      return -e;
    }
    if (s->eof || s->rd_shut || s->state == Socket::State::closed) return 0;
    if (s->state != Socket::State::connected) return -ENOTCONN;
    if (nonblocking) return -EAGAIN;
    wait(m_ready);
  }
}

int LwipHostSockets::shutdown(int sd, int how) {
  Socket* s = find(sd);
  if (!s) return -EBADF;
  if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) return -EINVAL;
  if (s->state != Socket::State::connected && s->state != Socket::State::closed) return -ENOTCONN;
  if (how != SHUT_WR && !s->rd_shut) {
    s->rd_shut = true;
    const size_t dropped = s->rx_bytes;
    s->rx.clear();
    s->rx_offset = 0;
    s->rx_bytes = 0;
    consumed(s, dropped);
  }
  if (how != SHUT_RD && !s->wr_shut) {
    s->wr_shut = true;
    if (s->pcb) {
      m_api->tcp_shutdown(s->pcb, 0, 1);  // FIN after what is queued
      after_call();
    }
  }
  changed();
  return 0;
}

int LwipHostSockets::close(int sd) {
  const auto it = m_sockets.find(sd);
  if (it == m_sockets.end()) return -EBADF;
  std::unique_ptr<Socket> s = std::move(it->second);
  m_sockets.erase(it);
  if (s->state == Socket::State::listening) {
    for (auto& c : s->pending) {  // connections nobody accepted: reset
      if (!c->pcb) continue;
      detach(c.get());
      m_api->tcp_abort(c->pcb);
    }
    detach(s.get());
    m_api->tcp_close(s->pcb);
  } else if (s->pcb) {
    detach(s.get());
    // Unread data: Linux resets the connection instead of closing it.
    if (s->rx_bytes > 0 || m_api->tcp_close(s->pcb) != M2LWIP_OK) m_api->tcp_abort(s->pcb);
  }
  after_call();
  changed();
  return 0;
}

int LwipHostSockets::setsockopt(int sd, int level, int name, int value) {
  Socket* s = find(sd);
  if (!s) return -EBADF;
  if (level == SOL_SOCKET) {
    switch (name) {
      case SO_SNDBUF:
        s->sndbuf = std::max(std::min(value, kLinuxBufMax) * 2, kLinuxSndBufMin);
        changed();
        return 0;
      case SO_RCVBUF:
        // Recorded and reported; lwIP's window stays TCP_WND (docs/tcpip.md).
        s->rcvbuf = std::max(std::min(value, kLinuxBufMax) * 2, kLinuxRcvBufMin);
        return 0;
      case SO_REUSEADDR:
        s->reuseaddr = value != 0;
        if (s->pcb) m_api->tcp_reuseaddr(s->pcb, s->reuseaddr);
        return 0;
      case SO_KEEPALIVE:
        s->keepalive = value != 0;
        if (s->pcb) m_api->tcp_keepalive(s->pcb, s->keepalive);
        return 0;
      default:
        return -ENOPROTOOPT;
    }
  }
  if (level == IPPROTO_TCP && name == TCP_NODELAY) {
    s->nodelay = value != 0;
    if (s->pcb && s->state != Socket::State::listening) {
      m_api->tcp_nodelay(s->pcb, s->nodelay);
      // Linux sends what Nagle held back at once.
      if (s->nodelay && s->state == Socket::State::connected) {
        m_api->tcp_output(s->pcb);
        after_call();
      }
    }
    return 0;
  }
  return -ENOPROTOOPT;
}

int LwipHostSockets::getsockopt(int sd, int level, int name, int* value) {
  Socket* s = find(sd);
  if (!s) return -EBADF;
  if (level == SOL_SOCKET) {
    switch (name) {
      case SO_SNDBUF:
        *value = s->sndbuf;
        return 0;
      case SO_RCVBUF:
        *value = s->rcvbuf;
        return 0;
      case SO_REUSEADDR:
        *value = s->reuseaddr;
        return 0;
      case SO_KEEPALIVE:
        *value = s->keepalive;
        return 0;
      case SO_TYPE:
        *value = SOCK_STREAM;
        return 0;
      case SO_ERROR:
        *value = s->error;
        s->error = 0;
        return 0;
      default:
        return -ENOPROTOOPT;
    }
  }
  if (level == IPPROTO_TCP && name == TCP_NODELAY) {
    *value = s->nodelay;
    return 0;
  }
  if (level == IPPROTO_TCP && name == TCP_MAXSEG) {
    *value = static_cast<int>(m_api->tcp_mss);
    return 0;
  }
  return -ENOPROTOOPT;
}

int LwipHostSockets::getsockname(int sd, uint32_t* ip, uint16_t* port) {
  Socket* s = find(sd);
  if (!s) return -EBADF;
  uint32_t a = 0;
  uint16_t p = 0;
  if (s->pcb) m_api->tcp_addr(s->pcb, 1, &a, &p);
  if (ip) *ip = a;
  if (port) *port = p;
  return 0;
}

int LwipHostSockets::getpeername(int sd, uint32_t* ip, uint16_t* port) {
  Socket* s = find(sd);
  if (!s) return -EBADF;
  if (s->state != Socket::State::connected) return -ENOTCONN;
  if (ip) *ip = s->peer_ip;
  if (port) *port = s->peer_port;
  return 0;
}

short LwipHostSockets::ready(int sd) {
  Socket* s = find(sd);
  if (!s) return POLLNVAL;
  short bits = 0;
  if (s->state == Socket::State::listening) return s->pending.empty() ? 0 : POLLIN;
  if (s->rx_bytes > 0 || s->eof || s->rd_shut || s->error || s->state == Socket::State::closed) bits |= POLLIN;
  if (send_space(*s) > 0) bits |= POLLOUT;
  if (s->error) bits |= POLLERR;
  if ((s->eof && s->wr_shut) || s->state == Socket::State::closed) bits |= POLLHUP;
  return bits;
}

}  // namespace m2
