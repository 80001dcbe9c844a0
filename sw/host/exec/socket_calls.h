/* The socket calls an outside program's preloaded libm2vp_exec.so carries to
 * its simulated host (M2X_SOCKET requests, models/host/exec_protocol.h): their
 * numbers and argument layout, shared by the program's side (shim/sockets.c)
 * and the simulator's side (socket_calls.cpp, which calls the host's
 * HostSockets, models/host/tcpip/host_sockets.h).
 *
 * `sd` is the stack's socket number (the program's descriptor is its own,
 * mapped by the shim). Addresses and ports in host byte order. Results: ret
 * >= 0, or -errno (Linux values). Data travels in the shared arena: `off` is
 * an arena offset, `len` its bytes.
 *   SOCKET       a0 domain, a1 type (without SOCK_NONBLOCK/CLOEXEC), a2 protocol; ret sd
 *   BIND         a0 sd, a1 ip, a2 port
 *   LISTEN       a0 sd, a1 backlog
 *   ACCEPT       a0 sd, a1 nonblocking; ret new sd, out0 peer ip, out1 peer port
 *   CONNECT      a0 sd, a1 ip, a2 port
 *   SEND         a0 sd, a1 off, a2 len, a3 nonblocking; ret bytes taken
 *   RECV         a0 sd, a1 off, a2 len, a3 nonblocking, a4 peek; ret bytes (0: end of file)
 *   SHUTDOWN     a0 sd, a1 how
 *   CLOSE        a0 sd
 *   SETSOCKOPT   a0 sd, a1 level, a2 name, a3 value
 *   GETSOCKOPT   a0 sd, a1 level, a2 name; out0 value
 *   GETSOCKNAME, GETPEERNAME  a0 sd; out0 ip, out1 port
 *   POLL         a0 count, a1 off (count struct m2x_poll_entry, in: sd, events;
 *                out: revents), a2 timeout in ns (-1: none); ret entries ready */
#ifndef M2_EXEC_SOCKET_CALLS_H
#define M2_EXEC_SOCKET_CALLS_H

#include <stdint.h>

/* A list of entries, laid out by hand (clang-format folds it into a staircase). */
/* clang-format off */
#define M2X_SOCKET_FUNCTIONS(X)                                                     \
  X(SOCKET, 1) X(BIND, 2) X(LISTEN, 3) X(ACCEPT, 4) X(CONNECT, 5) X(SEND, 6)        \
  X(RECV, 7) X(SHUTDOWN, 8) X(CLOSE, 9) X(SETSOCKOPT, 10) X(GETSOCKOPT, 11)         \
  X(GETSOCKNAME, 12) X(GETPEERNAME, 13) X(POLL, 14)
/* clang-format on */

enum m2x_socket_fn {
#define M2X_ENUM(name, n) M2X_SOCK_##name = n,
  M2X_SOCKET_FUNCTIONS(M2X_ENUM)
#undef M2X_ENUM
      M2X_SOCK_COUNT
};

/* One descriptor of a POLL request, in the arena. */
struct m2x_poll_entry {
  int32_t sd;
  int16_t events;  /* poll(2) bits */
  int16_t revents; /* filled in by the simulator */
};

#endif
