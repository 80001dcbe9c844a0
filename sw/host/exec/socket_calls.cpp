// The simulator's side of an outside program's socket calls: each request
// (layout in socket_calls.h) becomes the same call of the host's TCP sockets
// (HostSockets, models/host/tcpip/host_sockets.h) on the program's host
// thread, with the program's data in the arena. Each call costs one system
// call (hostN.syscall_ns); the stack charges its copies and processing.
// poll and select wait in simulated time for the stack's readiness_changed().
// Registered with the host model at start-up (exec_calls.h).
#include <poll.h>

#include <cctype>
#include <cerrno>
#include <stdexcept>
#include <string>

#include "exec/socket_calls.h"
#include "host/exec_calls.h"
#include "host/host_cpu.h"
#include "host/tcpip/host_sockets.h"

namespace {

using m2::ExecCall;
using Outcome = m2::ExecCallHandler::Outcome;

const char* const kNoTcpIp =
    "this host has no TCP/IP: set node*.ni.firmware: eth for the hosts whose programs use sockets (docs/tcpip.md)";

struct BadRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

uint8_t* at(ExecCall& c, int64_t off, int64_t len) {
  if (off < 0 || len < 0 || static_cast<uint64_t>(off) > c.arena_bytes ||
      static_cast<uint64_t>(len) > c.arena_bytes - static_cast<uint64_t>(off))
    throw BadRequest("a buffer of " + std::to_string(len) + " bytes at arena offset " + std::to_string(off) +
                     " lies outside the shared arena (" + std::to_string(c.arena_bytes) + " bytes)");
  return c.arena + off;
}

const char* name_of(uint32_t fn) {
  switch (fn) {
#define M2X_NAME(name, n) \
  case n:                 \
    return #name;
    M2X_SOCKET_FUNCTIONS(M2X_NAME)
#undef M2X_NAME
    default:
      return nullptr;
  }
}

// POLL: readiness of each entry now, or after waiting in simulated time for
// the stack to change it, up to the timeout.
long poll_sockets(ExecCall& c, m2::HostCpu& host) {
  const int64_t count = c.req.a[0];
  if (count < 0 || count > 65536) throw BadRequest("poll of " + std::to_string(count) + " sockets");
  auto* e = reinterpret_cast<m2x_poll_entry*>(at(c, c.req.a[1], count * int64_t(sizeof(m2x_poll_entry))));
  const int64_t timeout_ns = c.req.a[2];
  const sc_core::sc_time deadline =
      timeout_ns < 0 ? sc_core::SC_ZERO_TIME : host.now() + sc_core::sc_time(double(timeout_ns), sc_core::SC_NS);
  for (;;) {
    long ready = 0;
    for (int64_t i = 0; i < count; ++i) {
      short now = POLLNVAL;
      if (c.open_sockets->count(e[i].sd)) now = c.sockets->ready(e[i].sd);
      e[i].revents = static_cast<int16_t>(now & (e[i].events | POLLERR | POLLHUP | POLLNVAL));
      ready += e[i].revents != 0;
    }
    if (ready > 0 || timeout_ns == 0) return ready;
    if (timeout_ns > 0 && host.now() >= deadline) return 0;
    const double left_us = timeout_ns < 0 ? -1.0 : (deadline - host.now()).to_seconds() * 1e6;
    host.wait_event(c.sockets->readiness_changed(), left_us, "waiting in poll/select for its sockets");
  }
}

long carry_out(ExecCall& c, m2::HostCpu& host) {
  m2::HostSockets& s = *c.sockets;
  const int64_t* a = c.req.a;
  m2x_reply& r = c.rep;
  const int sd = static_cast<int>(a[0]);
  const uint32_t fn = c.req.fn;
  // A socket the program does not hold (closed, or never its own).
  if (fn != M2X_SOCK_SOCKET && fn != M2X_SOCK_POLL && !c.open_sockets->count(sd)) return -EBADF;
  switch (fn) {
    case M2X_SOCK_SOCKET: {
      const int n = s.socket(static_cast<int>(a[0]), static_cast<int>(a[1]), static_cast<int>(a[2]));
      if (n >= 0) c.open_sockets->insert(n);
      return n;
    }
    case M2X_SOCK_BIND:
      return s.bind(sd, static_cast<uint32_t>(a[1]), static_cast<uint16_t>(a[2]));
    case M2X_SOCK_LISTEN:
      return s.listen(sd, static_cast<int>(a[1]));
    case M2X_SOCK_ACCEPT: {
      uint32_t ip = 0;
      uint16_t port = 0;
      const int n = s.accept(sd, &ip, &port, a[1] != 0);
      if (n >= 0) c.open_sockets->insert(n);
      r.out[0] = ip, r.out[1] = port;
      return n;
    }
    case M2X_SOCK_CONNECT:
      return s.connect(sd, static_cast<uint32_t>(a[1]), static_cast<uint16_t>(a[2]));
    case M2X_SOCK_SEND:
      return s.send(sd, at(c, a[1], a[2]), static_cast<size_t>(a[2]), a[3] != 0);
    case M2X_SOCK_RECV:
      return s.recv(sd, at(c, a[1], a[2]), static_cast<size_t>(a[2]), a[3] != 0, a[4] != 0);
    case M2X_SOCK_SHUTDOWN:
      return s.shutdown(sd, static_cast<int>(a[1]));
    case M2X_SOCK_CLOSE:
      c.open_sockets->erase(sd);
      return s.close(sd);
    case M2X_SOCK_SETSOCKOPT:
      return s.setsockopt(sd, static_cast<int>(a[1]), static_cast<int>(a[2]), static_cast<int>(a[3]));
    case M2X_SOCK_GETSOCKOPT: {
      int v = 0;
      const int n = s.getsockopt(sd, static_cast<int>(a[1]), static_cast<int>(a[2]), &v);
      r.out[0] = v;
      return n;
    }
    case M2X_SOCK_GETSOCKNAME:
    case M2X_SOCK_GETPEERNAME: {
      uint32_t ip = 0;
      uint16_t port = 0;
      const int n = fn == M2X_SOCK_GETSOCKNAME ? s.getsockname(sd, &ip, &port) : s.getpeername(sd, &ip, &port);
      r.out[0] = ip, r.out[1] = port;
      return n;
    }
    case M2X_SOCK_POLL:
      return poll_sockets(c, host);
    default:
      throw BadRequest("unknown socket function " + std::to_string(fn));
  }
}

Outcome run(ExecCall& c) {
  if (!c.sockets || !c.open_sockets) {
    c.error = kNoTcpIp;
    return Outcome::Failed;
  }
  m2::HostCpu& host = m2::HostCpu::current();
  host.charge_ns(host.syscall_ns.get());
  host.sync_time();  // the stack works in SystemC time: the host's own time first
  try {
    c.rep.ret = carry_out(c, host);
  } catch (const BadRequest& e) {
    host.after_blocking();
    c.error = e.what();
    return Outcome::Failed;
  }
  host.after_blocking();  // the stack may have waited: this host is the current one again
  return Outcome::Done;
}

std::string describe(const m2x_request& req) {
  const char* n = name_of(req.fn);
  if (!n) return "socket function " + std::to_string(req.fn);
  std::string s;
  for (const char* p = n; *p; ++p) s += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
  const int64_t* a = req.a;
  switch (req.fn) {
    case M2X_SOCK_SOCKET:
      return s + "(domain " + std::to_string(a[0]) + ", type " + std::to_string(a[1]) + ")";
    case M2X_SOCK_SEND:
    case M2X_SOCK_RECV:
      return s + "(socket " + std::to_string(a[0]) + ", " + std::to_string(a[2]) + " bytes)";
    case M2X_SOCK_POLL:
      return s + "(" + std::to_string(a[0]) + " sockets, timeout " +
             (a[2] < 0 ? std::string("none") : std::to_string(a[2]) + " ns") + ")";
    default:
      return s + "(socket " + std::to_string(a[0]) + ")";
  }
}

__attribute__((constructor)) void register_socket_calls() {
  m2::ExecCallHandler h;
  h.run = run;
  h.describe = describe;
  m2::register_exec_handler(M2X_SOCKET, h);
}

}  // namespace
