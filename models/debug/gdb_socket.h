// TCP transport for the GDB server (plain POSIX sockets): a listening socket
// on 127.0.0.1 only, and a connection with blocking and non-blocking reads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace m2::gdb {

class Listener {
 public:
  Listener() = default;
  ~Listener() { close(); }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Listens on 127.0.0.1:port (0: any free port). Throws std::runtime_error
  // saying why not (e.g. "Address already in use").
  void listen(uint16_t port);
  bool listening() const { return m_fd >= 0; }
  uint16_t port() const { return m_port; }
  // The descriptor of a new connection; -1 when none is pending and `block`
  // is false.
  int accept(bool block);
  void close();

 private:
  int m_fd = -1;
  uint16_t m_port = 0;
};

class Connection {
 public:
  explicit Connection(int fd);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends all of `data`; false when the peer has gone.
  bool send(std::string_view data);
  enum class Read { Data, Nothing, Closed };
  // Appends what has arrived to `out`; with `block`, waits for something.
  Read receive(std::string& out, bool block);
  // Ends the connection without losing what was sent: closing with unread
  // input (GDB's acks) would reset it, and GDB would miss the last packet.
  // Waits up to `timeout_ms` for the peer to close its side.
  void close_gracefully(int timeout_ms);

 private:
  int m_fd;
};

}  // namespace m2::gdb
