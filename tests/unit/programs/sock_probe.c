/* An outside program with plain POSIX sockets for the tests of the socket
 * layer of outside programs (test_exec_sockets.cpp): built by the host
 * compiler, linked against nothing of the project, run unmodified as the
 * software of simulated hosts through the preloaded libm2vp_exec.so, exactly
 * as Debian's NPtcp. node0 runs "server CASE", node1 "client CASE":
 *
 *   transfer      names, options, data both ways intact, poll/select
 *                 readiness (mixed with a pipe), nonblocking EAGAIN, stdio
 *                 files next to sockets
 *   errors        ECONNREFUSED, EADDRINUSE, two hosts listening on one port
 *   eof           the client exits without closing: the server reads end of file
 *   reset         the server exits with data unread: the client gets ECONNRESET
 *   unsupported   the client asks for a UDP socket (the run ends, named)
 *   killed        the client dies of SIGKILL in the middle of a transfer
 *
 * Each check that fails prints "FAILED: what" and the program exits 1; a
 * program whose checks all pass prints "ok CASE" and exits 0. It writes its
 * pid to the file "pid" in its working folder. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PORT 5000
#define BYTES 200000

static int g_failed;

static void check(int ok, const char *what) {
  if (ok) return;
  printf("FAILED: %s (errno %d: %s)\n", what, errno, strerror(errno));
  fflush(stdout);
  g_failed = 1;
}

static void sleep_us(long us) {
  const struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

static unsigned char pattern(size_t i, int salt) { return (unsigned char)(i * 7 + salt + (i >> 11)); }

static struct sockaddr_in address_of(const char *host, int port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)port);
  struct hostent *h = gethostbyname(host);
  check(h != NULL && h->h_addrtype == AF_INET, "gethostbyname");
  if (h) memcpy(&a.sin_addr, h->h_addr_list[0], sizeof a.sin_addr);
  return a;
}

static int listener(int port) {
  const int s = socket(AF_INET, SOCK_STREAM, getprotobyname("tcp")->p_proto);
  check(s > 2, "socket() is not a stdio descriptor");
  int one = 1;
  check(setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0, "SO_REUSEADDR");
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)port);
  check(bind(s, (struct sockaddr *)&a, sizeof a) == 0, "bind");
  check(listen(s, 4) == 0, "listen");
  return s;
}

static int connected(const char *host, int port) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = address_of(host, port);
  /* The server may not listen yet: a real client retries, so does this one. */
  int r, tries = 0;
  while ((r = connect(s, (struct sockaddr *)&a, sizeof a)) != 0 && errno == ECONNREFUSED && tries++ < 100)
    sleep_us(100);
  check(r == 0, "connect");
  return s;
}

static int accepted(int l) {
  struct sockaddr_in peer;
  socklen_t len = sizeof peer;
  const int s = accept(l, (struct sockaddr *)&peer, &len);
  check(s > 2, "accept");
  check(len == sizeof peer && peer.sin_family == AF_INET && ntohl(peer.sin_addr.s_addr) == 0x0A000002u,
        "the peer is node1 (10.0.0.2)");
  return s;
}

static void send_all(int s, int salt, size_t bytes) {
  static unsigned char buf[BYTES];
  for (size_t i = 0; i < bytes; ++i) buf[i] = pattern(i, salt);
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = write(s, buf + done, bytes - done);
    check(n > 0, "write");
    if (n <= 0) return;
    done += (size_t)n;
  }
}

static void recv_all(int s, int salt, size_t bytes) {
  static unsigned char buf[BYTES];
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = read(s, buf + done, bytes - done);
    check(n > 0, "read");
    if (n <= 0) return;
    done += (size_t)n;
  }
  size_t bad = 0;
  for (size_t i = 0; i < bytes; ++i) bad += buf[i] != pattern(i, salt);
  check(bad == 0, "the data arrived intact");
}

/* ---- transfer ------------------------------------------------------------- */

static void transfer_server(void) {
  const int l = listener(PORT);
  /* A file opened while a socket is open gets a number of its own. */
  FILE *f = fopen("stdio.txt", "w+");
  check(f && fileno(f) != l, "a file never shares a socket's descriptor");
  fprintf(f, "written next to a socket\n");
  const int s = accepted(l);
  check(fileno(f) != s, "a file never shares an accepted socket's descriptor");
  int nodelay = 1, v = 0;
  socklen_t len = sizeof v;
  check(setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay) == 0, "TCP_NODELAY");
  check(getsockopt(s, IPPROTO_TCP, TCP_NODELAY, &v, &len) == 0 && v == 1, "TCP_NODELAY reads back");
  int rcvbuf = 131072;
  check(setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) == 0, "SO_RCVBUF");

  /* Nothing sent yet (the client sleeps 1 ms first): not readable, EAGAIN. */
  struct pollfd p = {s, POLLIN, 0};
  check(poll(&p, 1, 0) == 0 && p.revents == 0, "poll: not readable before the client sends");
  check(fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK) == 0, "O_NONBLOCK");
  char c;
  check(recv(s, &c, 1, 0) == -1 && errno == EAGAIN, "nonblocking recv: EAGAIN");
  check(fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK) == 0, "blocking again");

  /* select over the socket and a pipe that never becomes ready. */
  int pipefd[2];
  check(pipe(pipefd) == 0, "pipe");
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(s, &rd);
  FD_SET(pipefd[0], &rd);
  const int maxfd = (s > pipefd[0] ? s : pipefd[0]) + 1;
  check(select(maxfd, &rd, NULL, NULL, NULL) == 1 && FD_ISSET(s, &rd) && !FD_ISSET(pipefd[0], &rd),
        "select: the socket becomes readable, the pipe does not");
  check(poll(&p, 1, -1) == 1 && (p.revents & POLLIN), "poll: readable");

  recv_all(s, 1, BYTES);
  send_all(s, 2, BYTES);
  char eof;
  check(read(s, &eof, 1) == 0, "end of file after the client's shutdown");
  check(close(s) == 0 && close(l) == 0, "close");
  check(close(s) == -1 && errno == EBADF, "a closed socket is gone");

  rewind(f);
  char line[64] = "";
  check(fgets(line, sizeof line, f) && strcmp(line, "written next to a socket\n") == 0, "the file is intact");
  fclose(f);
}

static void transfer_client(void) {
  check(inet_addr("node0") == htonl(0x0A000001u), "inet_addr(\"node0\")");
  struct in_addr in;
  check(inet_aton("node1", &in) && in.s_addr == htonl(0x0A000002u), "inet_aton(\"node1\")");
  struct hostent *h = gethostbyname("node1");
  check(h && ((struct in_addr *)h->h_addr_list[0])->s_addr == htonl(0x0A000002u), "gethostbyname(\"node1\")");
  struct addrinfo hints, *ai = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  check(getaddrinfo("node0", "5000", &hints, &ai) == 0 && ai && ai->ai_family == AF_INET &&
            ((struct sockaddr_in *)ai->ai_addr)->sin_port == htons(PORT),
        "getaddrinfo(\"node0\", \"5000\")");
  if (ai) freeaddrinfo(ai);

  const int s = connected("node0", PORT);
  struct sockaddr_in me;
  socklen_t len = sizeof me;
  check(getsockname(s, (struct sockaddr *)&me, &len) == 0 && ntohl(me.sin_addr.s_addr) == 0x0A000002u,
        "getsockname: node1's address");
  sleep_us(1000);
  send_all(s, 1, BYTES);
  recv_all(s, 2, BYTES);
  check(shutdown(s, SHUT_WR) == 0, "shutdown");
  check(close(s) == 0, "close");
}

/* ---- errors ---------------------------------------------------------------- */

static void errors_server(void) {
  const int a = listener(PORT); /* node1 listens on the same port: hosts stay apart */
  const int b = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons(PORT);
  check(bind(b, (struct sockaddr *)&addr, sizeof addr) == -1 && errno == EADDRINUSE, "EADDRINUSE");
  close(b);
  const int s = accepted(a); /* node1 connects once the refused attempt is done */
  char c = 0;
  check(read(s, &c, 1) == 1 && c == 'x', "the byte from node1");
  close(s);
  close(a);
}

static void errors_client(void) {
  const int mine = listener(PORT);
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = address_of("node0", PORT + 1); /* nothing listens there */
  check(connect(s, (struct sockaddr *)&a, sizeof a) == -1 && errno == ECONNREFUSED, "ECONNREFUSED");
  close(s);
  const int t = connected("node0", PORT);
  check(write(t, "x", 1) == 1, "write");
  close(t);
  close(mine);
}

/* ---- a peer that ends ------------------------------------------------------ */

static void eof_server(void) {
  const int l = listener(PORT);
  const int s = accepted(l);
  recv_all(s, 3, 1000);
  char c;
  check(read(s, &c, 1) == 0, "end of file once the client exited");
}

static void eof_client(void) {
  const int s = connected("node0", PORT);
  send_all(s, 3, 1000);
  /* exits without closing: the simulator closes the socket */
}

static void reset_server(void) {
  const int l = listener(PORT);
  const int s = accepted(l);
  struct pollfd p = {s, POLLIN, 0};
  check(poll(&p, 1, -1) == 1, "data waits");
  /* exits with the data unread: its socket is closed, the peer reset */
}

static void reset_client(void) {
  const int s = connected("node0", PORT);
  send_all(s, 4, 1000);
  char c;
  check(read(s, &c, 1) == -1 && errno == ECONNRESET, "ECONNRESET once the server exited with data unread");
}

static void killed_client(void) {
  const int s = connected("node0", PORT);
  send_all(s, 5, 1000);
  raise(SIGKILL); /* in the middle of the transfer */
}

static void killed_server(void) {
  const int l = listener(PORT);
  const int s = accepted(l);
  recv_all(s, 5, BYTES); /* never all of it */
}

static void unsupported_client(void) {
  socket(AF_INET, SOCK_DGRAM, 0);
  check(0, "a UDP socket ends the run");
}

int main(int argc, char **argv) {
  FILE *pid = fopen("pid", "w");
  if (pid) {
    fprintf(pid, "%d\n", (int)getpid());
    fclose(pid);
  }
  if (argc != 3) {
    fprintf(stderr, "usage: sock_probe server|client CASE\n");
    return 2;
  }
  const int server = strcmp(argv[1], "server") == 0;
  const char *c = argv[2];
  if (strcmp(c, "transfer") == 0) server ? transfer_server() : transfer_client();
  else if (strcmp(c, "errors") == 0) server ? errors_server() : errors_client();
  else if (strcmp(c, "eof") == 0) server ? eof_server() : eof_client();
  else if (strcmp(c, "reset") == 0) server ? reset_server() : reset_client();
  else if (strcmp(c, "killed") == 0) server ? killed_server() : killed_client();
  else if (strcmp(c, "unsupported") == 0) server ? (void)listener(PORT) : unsupported_client();
  else {
    fprintf(stderr, "sock_probe: unknown case %s\n", c);
    return 2;
  }
  if (!g_failed) printf("ok %s\n", c);
  return g_failed;
}
