#include "debug/gdb_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace m2::gdb {

void Listener::listen(uint16_t port) {
  close();
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) throw std::runtime_error(std::string("cannot create a socket: ") + std::strerror(errno));
  // A port left in TIME_WAIT by the previous run is reusable at once; a port
  // someone listens on is still refused.
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 1) != 0) {
    const int err = errno;
    ::close(fd);
    throw std::runtime_error("cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(err));
  }
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  m_fd = fd;
  m_port = ntohs(a.sin_port);
}

int Listener::accept(bool block) {
  if (m_fd < 0) return -1;
  for (;;) {
    if (block) {
      pollfd p{m_fd, POLLIN, 0};
      if (::poll(&p, 1, -1) < 0 && errno != EINTR) return -1;
    }
    const int fd = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) {
      // Packets are small and interactive: no Nagle delay.
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (!block) return -1;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
  }
}

void Listener::close() {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
}

Connection::Connection(int fd) : m_fd(fd) {}

Connection::~Connection() { ::close(m_fd); }

bool Connection::send(std::string_view data) {
  while (!data.empty()) {
    // MSG_NOSIGNAL: a vanished GDB must not kill the simulator with SIGPIPE.
    const ssize_t n = ::send(m_fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

Connection::Read Connection::receive(std::string& out, bool block) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(m_fd, buf, sizeof buf, block ? 0 : MSG_DONTWAIT);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      return Read::Data;
    }
    if (n == 0) return Read::Closed;
    if (errno == EINTR) continue;
    if (!block && (errno == EAGAIN || errno == EWOULDBLOCK)) return Read::Nothing;
    return Read::Closed;
  }
}

void Connection::close_gracefully(int timeout_ms) {
  ::shutdown(m_fd, SHUT_WR);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[256];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    pollfd p{m_fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return;
    if (::recv(m_fd, buf, sizeof buf, 0) <= 0) return;  // the peer has closed too
  }
}

}  // namespace m2::gdb
