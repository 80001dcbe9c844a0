// A simulated host's TCP sockets, shared by every program on that host: the
// socket layer of outside programs (sw/host/exec) and MPI's TCP device call
// it; the TCP/IP stack implements it. Socket numbers are the stack's own
// (the shim maps them to the program's descriptors).
//
// Every call is made from an SC_THREAD of this host and may wait in simulated
// time (copies, protocol processing, blocking until data or space). Results:
// >= 0 on success, -errno (Linux values: ECONNREFUSED, EADDRINUSE, EAGAIN,
// ECONNRESET, ENOTCONN, EINVAL, EBADF, ENOPROTOOPT, ...) on failure. Addresses
// and ports are in host byte order.
#pragma once

#include <cstddef>
#include <cstdint>

#include <systemc>

namespace m2 {

class HostSockets {
 public:
  virtual ~HostSockets() = default;

  // AF_INET + SOCK_STREAM only: anything else is -EAFNOSUPPORT / -EPROTONOSUPPORT.
  virtual int socket(int domain, int type, int protocol) = 0;
  virtual int bind(int sd, uint32_t ip, uint16_t port) = 0;  // ip 0: any
  virtual int listen(int sd, int backlog) = 0;
  // Blocks until a connection is there (or -EAGAIN when nonblocking).
  virtual int accept(int sd, uint32_t* peer_ip, uint16_t* peer_port, bool nonblocking) = 0;
  // Blocks until connected; -ECONNREFUSED when nothing listens there.
  virtual int connect(int sd, uint32_t ip, uint16_t port) = 0;
  // Blocking: returns when all `len` bytes are in the send buffer (or the
  // connection failed). Nonblocking: what fits now, or -EAGAIN.
  virtual long send(int sd, const uint8_t* data, size_t len, bool nonblocking) = 0;
  // Blocks until at least one byte, end of file (0) or an error.
  virtual long recv(int sd, uint8_t* data, size_t len, bool nonblocking, bool peek) = 0;
  virtual int shutdown(int sd, int how) = 0;  // SHUT_RD / SHUT_WR / SHUT_RDWR
  virtual int close(int sd) = 0;
  // SOL_SOCKET: SO_SNDBUF, SO_RCVBUF, SO_REUSEADDR, SO_KEEPALIVE, SO_ERROR;
  // IPPROTO_TCP: TCP_NODELAY. Others: -ENOPROTOOPT (the shim names them).
  virtual int setsockopt(int sd, int level, int name, int value) = 0;
  virtual int getsockopt(int sd, int level, int name, int* value) = 0;
  virtual int getsockname(int sd, uint32_t* ip, uint16_t* port) = 0;
  virtual int getpeername(int sd, uint32_t* ip, uint16_t* port) = 0;

  // Readiness now, as poll(2)'s POLLIN | POLLOUT | POLLERR | POLLHUP bits
  // (POLLIN on a listening socket: a connection waits).
  virtual short ready(int sd) = 0;
  // Notified whenever any socket of this host may have changed readiness, so
  // select/poll can wait for it in simulated time.
  virtual const sc_core::sc_event& readiness_changed() const = 0;
};

}  // namespace m2
