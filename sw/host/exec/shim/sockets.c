/* The program's TCP sockets run on its simulated host (docs/tcpip.md,
 * "Sockets of outside programs"). An AF_INET stream socket gets a real
 * descriptor number (an open /dev/null, so that no file the program opens
 * later shares it) mapped to the host stack's socket; every call on such a
 * descriptor goes to the simulator (socket_calls.h), every other descriptor
 * passes through to the C library untouched. AF_UNIX sockets are the
 * program's own (local) business and pass through too; any other family or
 * type, and an option or flag this layer lacks, ends the run naming it.
 * Outside the simulator everything passes through. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shim.h"

/* Descriptors below this can be sockets (a socket that gets a higher number
 * ends the run, named). */
#define MAX_FD 4096

struct sock {
  int sd; /* the stack's socket + 1; 0: not a socket */
  int nonblocking;
};
static struct sock g_fd[MAX_FD];

#define REAL(ret, name, args)                                \
  static ret(*real_##name) args;                             \
  static ret(*get_##name(void)) args {                       \
    if (!real_##name) real_##name = dlsym(RTLD_NEXT, #name); \
    return real_##name;                                      \
  }

REAL(int, socket, (int, int, int))
REAL(int, bind, (int, const struct sockaddr *, socklen_t))
REAL(int, listen, (int, int))
REAL(int, accept, (int, struct sockaddr *, socklen_t *))
REAL(int, accept4, (int, struct sockaddr *, socklen_t *, int))
REAL(int, connect, (int, const struct sockaddr *, socklen_t))
REAL(ssize_t, read, (int, void *, size_t))
REAL(ssize_t, write, (int, const void *, size_t))
REAL(ssize_t, readv, (int, const struct iovec *, int))
REAL(ssize_t, writev, (int, const struct iovec *, int))
REAL(ssize_t, send, (int, const void *, size_t, int))
REAL(ssize_t, recv, (int, void *, size_t, int))
REAL(ssize_t, sendto, (int, const void *, size_t, int, const struct sockaddr *, socklen_t))
REAL(ssize_t, recvfrom, (int, void *, size_t, int, struct sockaddr *, socklen_t *))
REAL(ssize_t, sendmsg, (int, const struct msghdr *, int))
REAL(ssize_t, recvmsg, (int, struct msghdr *, int))
REAL(int, close, (int))
REAL(int, shutdown, (int, int))
REAL(int, setsockopt, (int, int, int, const void *, socklen_t))
REAL(int, getsockopt, (int, int, int, void *, socklen_t *))
REAL(int, getsockname, (int, struct sockaddr *, socklen_t *))
REAL(int, getpeername, (int, struct sockaddr *, socklen_t *))
REAL(int, fcntl, (int, int, ...))
REAL(int, fcntl64, (int, int, ...))
REAL(int, ioctl, (int, unsigned long, ...))
REAL(int, dup, (int))
REAL(int, dup2, (int, int))
REAL(int, dup3, (int, int, int))
REAL(int, poll, (struct pollfd *, nfds_t, int))
REAL(int, ppoll, (struct pollfd *, nfds_t, const struct timespec *, const sigset_t *))
REAL(int, select, (int, fd_set *, fd_set *, fd_set *, struct timeval *))
REAL(int, pselect, (int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *))

static int is_sock(int fd) { return fd >= 0 && fd < MAX_FD && g_fd[fd].sd > 0; }
static int sd_of(int fd) { return g_fd[fd].sd - 1; }

/* A call's result: ret >= 0 is returned, -errno sets errno. */
static long result(long ret) {
  if (ret >= 0) return ret;
  errno = (int)-ret;
  return -1;
}

static long call(uint32_t fn, struct m2x_request *rq) {
  struct m2x_reply rp;
  m2s_socket_call(fn, rq, &rp);
  return rp.ret;
}

static long call_out(uint32_t fn, struct m2x_request *rq, int64_t *out0, int64_t *out1) {
  struct m2x_reply rp;
  m2s_socket_call(fn, rq, &rp);
  if (out0) *out0 = rp.out[0];
  if (out1) *out1 = rp.out[1];
  return rp.ret;
}

#define REQUEST          \
  struct m2x_request rq; \
  memset(&rq, 0, sizeof rq)

static void unsupported(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void unsupported(const char *fmt, ...) {
  char what[M2X_NAME_BYTES];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  m2s_unsupported_socket(what);
}

/* A descriptor number of the program's own for stack socket `sd`. */
static int adopt(int sd, int nonblocking, int cloexec) {
  const int fd = open("/dev/null", O_RDWR | (cloexec ? O_CLOEXEC : 0));
  if (fd < 0 || fd >= MAX_FD) {
    REQUEST;
    rq.a[0] = sd;
    call(M2X_SOCK_CLOSE, &rq);
    if (fd < 0) return -1; /* errno from open: EMFILE and the like, as socket() would */
    get_close()(fd);
    unsupported("a socket at descriptor %d (>= %d)", fd, MAX_FD);
  }
  g_fd[fd].sd = sd + 1;
  g_fd[fd].nonblocking = nonblocking;
  return fd;
}

/* The IPv4 address and port of `addr`; ends the run for another family. */
static void inet_of(const struct sockaddr *addr, socklen_t len, const char *fn, uint32_t *ip, uint16_t *port) {
  if (!addr || len < (socklen_t)sizeof(struct sockaddr_in)) {
    *ip = 0, *port = 0;
    return;
  }
  if (addr->sa_family != AF_INET) unsupported("%s with address family %d (only AF_INET)", fn, addr->sa_family);
  const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
  *ip = ntohl(in->sin_addr.s_addr);
  *port = ntohs(in->sin_port);
}

static void put_inet(struct sockaddr *addr, socklen_t *len, int64_t ip, int64_t port) {
  if (!addr || !len) return;
  struct sockaddr_in in;
  memset(&in, 0, sizeof in);
  in.sin_family = AF_INET;
  in.sin_addr.s_addr = htonl((uint32_t)ip);
  in.sin_port = htons((uint16_t)port);
  memcpy(addr, &in, *len < sizeof in ? *len : sizeof in);
  *len = sizeof in;
}

/* ---- creating and connecting ---------------------------------------------- */

int socket(int domain, int type, int protocol) {
  if (!m2s_connected() || domain == AF_UNIX) return get_socket()(domain, type, protocol);
  const int kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (domain != AF_INET) unsupported("socket(domain %d) (only AF_INET and AF_UNIX)", domain);
  if (kind != SOCK_STREAM) unsupported("socket(AF_INET, type %d) (only SOCK_STREAM: TCP)", kind);
  if (protocol != 0 && protocol != IPPROTO_TCP) unsupported("socket(AF_INET, SOCK_STREAM, protocol %d)", protocol);
  REQUEST;
  rq.a[0] = domain, rq.a[1] = kind, rq.a[2] = protocol;
  const long sd = call(M2X_SOCK_SOCKET, &rq);
  if (sd < 0) return (int)result(sd);
  return adopt((int)sd, (type & SOCK_NONBLOCK) != 0, (type & SOCK_CLOEXEC) != 0);
}

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
  if (!is_sock(fd)) return get_bind()(fd, addr, len);
  if (!addr || len < (socklen_t)sizeof(struct sockaddr_in)) return (int)result(-EINVAL);
  uint32_t ip;
  uint16_t port;
  inet_of(addr, len, "bind", &ip, &port);
  REQUEST;
  rq.a[0] = sd_of(fd), rq.a[1] = ip, rq.a[2] = port;
  return (int)result(call(M2X_SOCK_BIND, &rq));
}

int listen(int fd, int backlog) {
  if (!is_sock(fd)) return get_listen()(fd, backlog);
  REQUEST;
  rq.a[0] = sd_of(fd), rq.a[1] = backlog;
  return (int)result(call(M2X_SOCK_LISTEN, &rq));
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
  if (!is_sock(fd)) return get_accept4()(fd, addr, len, flags);
  if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) unsupported("accept4 with flags 0x%x", flags);
  REQUEST;
  rq.a[0] = sd_of(fd), rq.a[1] = g_fd[fd].nonblocking;
  int64_t ip = 0, port = 0;
  const long sd = call_out(M2X_SOCK_ACCEPT, &rq, &ip, &port);
  if (sd < 0) return (int)result(sd);
  put_inet(addr, len, ip, port);
  return adopt((int)sd, (flags & SOCK_NONBLOCK) != 0, (flags & SOCK_CLOEXEC) != 0);
}

int accept(int fd, struct sockaddr *addr, socklen_t *len) {
  if (!is_sock(fd)) return get_accept()(fd, addr, len);
  return accept4(fd, addr, len, 0);
}

int connect(int fd, const struct sockaddr *addr, socklen_t len) {
  if (!is_sock(fd)) return get_connect()(fd, addr, len);
  if (!addr || len < (socklen_t)sizeof(struct sockaddr_in)) return (int)result(-EINVAL);
  uint32_t ip;
  uint16_t port;
  inet_of(addr, len, "connect", &ip, &port);
  REQUEST;
  rq.a[0] = sd_of(fd), rq.a[1] = ip, rq.a[2] = port;
  return (int)result(call(M2X_SOCK_CONNECT, &rq));
}

/* ---- data ------------------------------------------------------------------ */

static ssize_t sock_send(int fd, const void *buf, size_t len, int flags, const char *fn) {
  if (flags & ~(MSG_NOSIGNAL | MSG_DONTWAIT | MSG_MORE)) unsupported("%s with flags 0x%x", fn, flags);
  REQUEST;
  const int64_t off = m2s_stage(buf, len, fn);
  rq.a[0] = sd_of(fd), rq.a[1] = off, rq.a[2] = (int64_t)len;
  rq.a[3] = g_fd[fd].nonblocking || (flags & MSG_DONTWAIT);
  const long n = call(M2X_SOCK_SEND, &rq);
  m2s_free(off);
  return result(n);
}

static ssize_t sock_recv(int fd, void *buf, size_t len, int flags, const char *fn) {
  if (flags & ~(MSG_PEEK | MSG_DONTWAIT | MSG_WAITALL | MSG_NOSIGNAL)) unsupported("%s with flags 0x%x", fn, flags);
  const int64_t off = m2s_alloc(len, buf, fn);
  size_t got = 0;
  long n;
  do { /* MSG_WAITALL: until all of len, end of file or an error */
    REQUEST;
    rq.a[0] = sd_of(fd), rq.a[1] = off + (int64_t)got, rq.a[2] = (int64_t)(len - got);
    rq.a[3] = g_fd[fd].nonblocking || (flags & MSG_DONTWAIT);
    rq.a[4] = (flags & MSG_PEEK) != 0;
    n = call(M2X_SOCK_RECV, &rq);
    if (n > 0) got += (size_t)n;
  } while ((flags & MSG_WAITALL) && !(flags & MSG_PEEK) && n > 0 && got < len);
  if (got > 0) memcpy(buf, m2s_ptr(off), got);
  m2s_free(off);
  return got > 0 ? (ssize_t)got : result(n);
}

ssize_t read(int fd, void *buf, size_t len) {
  if (!is_sock(fd)) return get_read()(fd, buf, len);
  return sock_recv(fd, buf, len, 0, "read");
}

ssize_t write(int fd, const void *buf, size_t len) {
  if (!is_sock(fd)) return get_write()(fd, buf, len);
  return sock_send(fd, buf, len, 0, "write");
}

ssize_t send(int fd, const void *buf, size_t len, int flags) {
  if (!is_sock(fd)) return get_send()(fd, buf, len, flags);
  return sock_send(fd, buf, len, flags, "send");
}

ssize_t recv(int fd, void *buf, size_t len, int flags) {
  if (!is_sock(fd)) return get_recv()(fd, buf, len, flags);
  return sock_recv(fd, buf, len, flags, "recv");
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tolen) {
  if (!is_sock(fd)) return get_sendto()(fd, buf, len, flags, to, tolen);
  if (to) unsupported("sendto with an address (a connected TCP socket only)");
  return sock_send(fd, buf, len, flags, "sendto");
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fromlen) {
  if (!is_sock(fd)) return get_recvfrom()(fd, buf, len, flags, from, fromlen);
  const ssize_t n = sock_recv(fd, buf, len, flags, "recvfrom");
  if (n >= 0 && from && fromlen) getpeername(fd, from, fromlen);
  return n;
}

/* Scatter and gather: one contiguous transfer staged from or to the pieces. */
static size_t iov_bytes(const struct iovec *iov, int n) {
  size_t total = 0;
  for (int i = 0; i < n; ++i) total += iov[i].iov_len;
  return total;
}

static ssize_t gather_send(int fd, const struct iovec *iov, int n, int flags, const char *fn) {
  const size_t total = iov_bytes(iov, n);
  const int64_t off = m2s_alloc(total, n > 0 ? iov[0].iov_base : NULL, fn);
  size_t at = 0;
  for (int i = 0; i < n; ++i) {
    memcpy((uint8_t *)m2s_ptr(off) + at, iov[i].iov_base, iov[i].iov_len);
    at += iov[i].iov_len;
  }
  REQUEST;
  rq.a[0] = sd_of(fd), rq.a[1] = off, rq.a[2] = (int64_t)total;
  rq.a[3] = g_fd[fd].nonblocking || (flags & MSG_DONTWAIT);
  const long r = call(M2X_SOCK_SEND, &rq);
  m2s_free(off);
  return result(r);
}

static ssize_t scatter_recv(int fd, const struct iovec *iov, int n, int flags, const char *fn) {
  const size_t total = iov_bytes(iov, n);
  const int64_t off = m2s_alloc(total, n > 0 ? iov[0].iov_base : NULL, fn);
  REQUEST;
  rq.a[0] = sd_of(fd), rq.a[1] = off, rq.a[2] = (int64_t)total;
  rq.a[3] = g_fd[fd].nonblocking || (flags & MSG_DONTWAIT);
  rq.a[4] = (flags & MSG_PEEK) != 0;
  const long r = call(M2X_SOCK_RECV, &rq);
  size_t left = r > 0 ? (size_t)r : 0, at = 0;
  for (int i = 0; i < n && left > 0; ++i) {
    const size_t piece = iov[i].iov_len < left ? iov[i].iov_len : left;
    memcpy(iov[i].iov_base, (uint8_t *)m2s_ptr(off) + at, piece);
    at += piece, left -= piece;
  }
  m2s_free(off);
  return result(r);
}

ssize_t writev(int fd, const struct iovec *iov, int n) {
  if (!is_sock(fd)) return get_writev()(fd, iov, n);
  return gather_send(fd, iov, n, 0, "writev");
}

ssize_t readv(int fd, const struct iovec *iov, int n) {
  if (!is_sock(fd)) return get_readv()(fd, iov, n);
  return scatter_recv(fd, iov, n, 0, "readv");
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags) {
  if (!is_sock(fd)) return get_sendmsg()(fd, msg, flags);
  if (msg->msg_name || msg->msg_controllen) unsupported("sendmsg with an address or control data");
  if (flags & ~(MSG_NOSIGNAL | MSG_DONTWAIT | MSG_MORE)) unsupported("sendmsg with flags 0x%x", flags);
  return gather_send(fd, msg->msg_iov, (int)msg->msg_iovlen, flags, "sendmsg");
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags) {
  if (!is_sock(fd)) return get_recvmsg()(fd, msg, flags);
  if (msg->msg_controllen) unsupported("recvmsg with control data");
  if (flags & ~(MSG_PEEK | MSG_DONTWAIT | MSG_NOSIGNAL)) unsupported("recvmsg with flags 0x%x", flags);
  msg->msg_flags = 0;
  if (msg->msg_name) {
    socklen_t len = msg->msg_namelen;
    getpeername(fd, msg->msg_name, &len);
    msg->msg_namelen = len;
  }
  return scatter_recv(fd, msg->msg_iov, (int)msg->msg_iovlen, flags, "recvmsg");
}

/* ---- ending ------------------------------------------------------------------ */

int close(int fd) {
  if (!is_sock(fd)) return get_close()(fd);
  REQUEST;
  rq.a[0] = sd_of(fd);
  g_fd[fd].sd = 0; /* the descriptor is gone whatever the stack says, as on Linux */
  const long r = call(M2X_SOCK_CLOSE, &rq);
  get_close()(fd);
  return (int)result(r);
}

int shutdown(int fd, int how) {
  if (!is_sock(fd)) return get_shutdown()(fd, how);
  REQUEST;
  rq.a[0] = sd_of(fd), rq.a[1] = how;
  return (int)result(call(M2X_SOCK_SHUTDOWN, &rq));
}

/* ---- options and names ------------------------------------------------------- */

static int option_known(int level, int name) {
  if (level == SOL_SOCKET)
    return name == SO_SNDBUF || name == SO_RCVBUF || name == SO_REUSEADDR || name == SO_KEEPALIVE || name == SO_ERROR ||
           name == SO_TYPE;
  if (level == IPPROTO_TCP) return name == TCP_NODELAY;
  return 0;
}

int setsockopt(int fd, int level, int name, const void *value, socklen_t len) {
  if (!is_sock(fd)) return get_setsockopt()(fd, level, name, value, len);
  if (!option_known(level, name) || name == SO_ERROR || name == SO_TYPE)
    unsupported("setsockopt(level %d, option %d)", level, name);
  if (!value || len < (socklen_t)sizeof(int)) return (int)result(-EINVAL);
  REQUEST;
  rq.a[0] = sd_of(fd), rq.a[1] = level, rq.a[2] = name, rq.a[3] = *(const int *)value;
  return (int)result(call(M2X_SOCK_SETSOCKOPT, &rq));
}

int getsockopt(int fd, int level, int name, void *value, socklen_t *len) {
  if (!is_sock(fd)) return get_getsockopt()(fd, level, name, value, len);
  if (!option_known(level, name)) unsupported("getsockopt(level %d, option %d)", level, name);
  if (!value || !len || *len < (socklen_t)sizeof(int)) return (int)result(-EINVAL);
  if (level == SOL_SOCKET && name == SO_TYPE) {
    *(int *)value = SOCK_STREAM;
    *len = sizeof(int);
    return 0;
  }
  REQUEST;
  rq.a[0] = sd_of(fd), rq.a[1] = level, rq.a[2] = name;
  int64_t v = 0;
  const long r = call_out(M2X_SOCK_GETSOCKOPT, &rq, &v, NULL);
  if (r >= 0) {
    *(int *)value = (int)v;
    *len = sizeof(int);
  }
  return (int)result(r);
}

static int sock_name(int fd, struct sockaddr *addr, socklen_t *len, uint32_t fn) {
  REQUEST;
  rq.a[0] = sd_of(fd);
  int64_t ip = 0, port = 0;
  const long r = call_out(fn, &rq, &ip, &port);
  if (r >= 0) put_inet(addr, len, ip, port);
  return (int)result(r);
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len) {
  if (!is_sock(fd)) return get_getsockname()(fd, addr, len);
  return sock_name(fd, addr, len, M2X_SOCK_GETSOCKNAME);
}

int getpeername(int fd, struct sockaddr *addr, socklen_t *len) {
  if (!is_sock(fd)) return get_getpeername()(fd, addr, len);
  return sock_name(fd, addr, len, M2X_SOCK_GETPEERNAME);
}

/* ---- descriptor flags ---------------------------------------------------------- */

/* fcntl on a socket: O_NONBLOCK is the socket's; the descriptor flags
 * (FD_CLOEXEC) are the reserved descriptor's. */
static int sock_fcntl(int fd, int cmd, long arg) {
  switch (cmd) {
    case F_GETFL:
      return O_RDWR | (g_fd[fd].nonblocking ? O_NONBLOCK : 0);
    case F_SETFL:
      if (arg & ~(long)(O_NONBLOCK | O_RDWR | O_RDONLY | O_WRONLY))
        unsupported("fcntl(F_SETFL, 0x%lx) on a socket (only O_NONBLOCK)", arg);
      g_fd[fd].nonblocking = (arg & O_NONBLOCK) != 0;
      return 0;
    case F_GETFD:
    case F_SETFD:
      return get_fcntl()(fd, cmd, arg);
    default:
      unsupported("fcntl(command %d) on a socket", cmd);
  }
}

int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  const long arg = va_arg(ap, long); /* every command's argument fits (int, long or a pointer) */
  va_end(ap);
  if (!is_sock(fd)) return get_fcntl()(fd, cmd, arg);
  return sock_fcntl(fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  const long arg = va_arg(ap, long);
  va_end(ap);
  if (!is_sock(fd)) return (get_fcntl64() ? get_fcntl64() : get_fcntl())(fd, cmd, arg); /* fcntl64: glibc 2.28+ */
  return sock_fcntl(fd, cmd, arg);
}

int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  if (!is_sock(fd)) return get_ioctl()(fd, request, arg);
  if (request == FIONBIO && arg) {
    g_fd[fd].nonblocking = *(int *)arg != 0;
    return 0;
  }
  unsupported("ioctl(0x%lx) on a socket (only FIONBIO)", request);
}

/* A second descriptor for a socket would need the stack's socket shared:
 * not supported; neither is replacing a socket's descriptor. */
int dup(int fd) {
  if (is_sock(fd)) unsupported("dup of a socket");
  return get_dup()(fd);
}

int dup2(int fd, int to) {
  if (is_sock(fd) || is_sock(to)) unsupported("dup2 of or onto a socket");
  return get_dup2()(fd, to);
}

int dup3(int fd, int to, int flags) {
  if (is_sock(fd) || is_sock(to)) unsupported("dup3 of or onto a socket");
  return get_dup3()(fd, to, flags);
}

/* ---- readiness ------------------------------------------------------------------ */

/* poll over sockets and other descriptors. The others are polled at once
 * (without waiting); when none of them is ready, the sockets' readiness is
 * awaited in simulated time up to the timeout. A descriptor that is not a
 * socket never ends that wait: mixing is supported for descriptors that are
 * ready at once or not at all during it (files, the terminal). */
static int mixed_poll(struct pollfd *fds, nfds_t n, int64_t timeout_ns) {
  nfds_t socks = 0;
  for (nfds_t i = 0; i < n; ++i) socks += is_sock(fds[i].fd);
  if (socks == 0) return -2; /* not ours */
  int others_ready = 0;
  for (nfds_t i = 0; i < n; ++i) {
    fds[i].revents = 0;
    if (is_sock(fds[i].fd) || fds[i].fd < 0) continue;
    struct pollfd one = fds[i];
    const int r = get_poll()(&one, 1, 0);
    if (r < 0) return -1;
    fds[i].revents = one.revents;
    others_ready += r;
  }
  const int64_t off = m2s_alloc(socks * sizeof(struct m2x_poll_entry), NULL, "poll");
  struct m2x_poll_entry *e = m2s_ptr(off);
  nfds_t k = 0;
  for (nfds_t i = 0; i < n; ++i)
    if (is_sock(fds[i].fd)) {
      e[k].sd = sd_of(fds[i].fd);
      e[k].events = fds[i].events;
      e[k].revents = 0;
      ++k;
    }
  REQUEST;
  rq.a[0] = (int64_t)socks, rq.a[1] = off, rq.a[2] = others_ready ? 0 : timeout_ns;
  const long r = call(M2X_SOCK_POLL, &rq);
  k = 0;
  for (nfds_t i = 0; i < n; ++i)
    if (is_sock(fds[i].fd)) fds[i].revents = e[k++].revents;
  m2s_free(off);
  if (r < 0) return (int)result(r);
  return (int)r + others_ready;
}

int poll(struct pollfd *fds, nfds_t n, int timeout_ms) {
  const int r = mixed_poll(fds, n, timeout_ms < 0 ? -1 : (int64_t)timeout_ms * 1000000);
  return r == -2 ? get_poll()(fds, n, timeout_ms) : r;
}

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask) {
  for (nfds_t i = 0; i < n; ++i)
    if (is_sock(fds[i].fd)) {
      if (mask) unsupported("ppoll with a signal mask on a socket");
      const int r = mixed_poll(fds, n, t ? (int64_t)t->tv_sec * 1000000000 + t->tv_nsec : -1);
      return r;
    }
  return get_ppoll()(fds, n, t, mask);
}

/* select as poll over the descriptors in the sets. */
static int sock_select(int n, fd_set *rd, fd_set *wr, fd_set *ex, int64_t timeout_ns) {
  if (n > FD_SETSIZE) n = FD_SETSIZE;
  struct pollfd fds[FD_SETSIZE];
  nfds_t k = 0;
  for (int fd = 0; fd < n; ++fd) {
    short ev = 0;
    if (rd && FD_ISSET(fd, rd)) ev |= POLLIN;
    if (wr && FD_ISSET(fd, wr)) ev |= POLLOUT;
    if (ex && FD_ISSET(fd, ex)) ev |= POLLPRI;
    if (ev) fds[k].fd = fd, fds[k].events = ev, fds[k].revents = 0, ++k;
  }
  const int r = mixed_poll(fds, k, timeout_ns);
  if (r < 0) return r;
  if (rd) FD_ZERO(rd);
  if (wr) FD_ZERO(wr);
  if (ex) FD_ZERO(ex);
  int count = 0;
  for (nfds_t i = 0; i < k; ++i) {
    const short re = fds[i].revents;
    if (re & POLLNVAL) return (int)result(-EBADF);
    /* As Linux: an error or hang-up makes the descriptor readable and writable. */
    if (rd && (fds[i].events & POLLIN) && (re & (POLLIN | POLLHUP | POLLERR))) FD_SET(fds[i].fd, rd), ++count;
    if (wr && (fds[i].events & POLLOUT) && (re & (POLLOUT | POLLERR))) FD_SET(fds[i].fd, wr), ++count;
    if (ex && (fds[i].events & POLLPRI) && (re & POLLPRI)) FD_SET(fds[i].fd, ex), ++count;
  }
  return count;
}

static int sets_have_socket(int n, fd_set *rd, fd_set *wr, fd_set *ex) {
  if (n > FD_SETSIZE) n = FD_SETSIZE;
  for (int fd = 0; fd < n; ++fd)
    if (is_sock(fd) && ((rd && FD_ISSET(fd, rd)) || (wr && FD_ISSET(fd, wr)) || (ex && FD_ISSET(fd, ex)))) return 1;
  return 0;
}

int select(int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *t) {
  if (!sets_have_socket(n, rd, wr, ex)) return get_select()(n, rd, wr, ex, t);
  const int r = sock_select(n, rd, wr, ex, t ? (int64_t)t->tv_sec * 1000000000 + (int64_t)t->tv_usec * 1000 : -1);
  if (t && r == 0) t->tv_sec = 0, t->tv_usec = 0; /* timed out: none of it left, as Linux says */
  return r;
}

int pselect(int n, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *t, const sigset_t *mask) {
  if (!sets_have_socket(n, rd, wr, ex)) return get_pselect()(n, rd, wr, ex, t, mask);
  if (mask) unsupported("pselect with a signal mask on a socket");
  return sock_select(n, rd, wr, ex, t ? (int64_t)t->tv_sec * 1000000000 + t->tv_nsec : -1);
}
