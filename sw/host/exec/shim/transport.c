/* The connection to the simulated host: the request socket, the shared
 * arena and its allocator, the program's CPU-time accounting and its
 * simulated clock. Made at the program's first call that needs its host (an
 * MPI call, a socket call, a clock read, a host name), not before: a wrapper
 * script that runs the real program, and whatever else loads this library
 * without such a call (a shell, cat, sleep), leaves the line to the process
 * that uses it. The process that connects takes the line for itself: its
 * children do not inherit it. This library interposes the socket calls
 * (sockets.c): its own line to the simulator uses the system calls directly. */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"

#define PAGE 4096u

static int g_sock = -1;
static uint8_t *g_arena;
static uint64_t g_arena_bytes;
static const char *g_node = "?";
static int g_rank, g_size = 1;

/* Time: the host's simulated time at the last reply, what the library
 * charged on its own since, and the process CPU time at that reply. */
static uint64_t g_sim_ns, g_local_ns, g_cpu_at_reply, g_clock_read_ns, g_epoch_s;
static double g_cpu_scale;
/* The thread that called MPI_Init (0 before): the only one that may call MPI.
 * Clock reads and sleeps may come from any thread: they only add to
 * g_local_ns (atomically) and read g_sim_ns. */
static pid_t g_mpi_thread;

static uint64_t cpu_ns(void) {
  struct timespec ts;
  /* The system call, not clock_gettime: this library interposes that one. */
  syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *why) __attribute__((noreturn));
static void die(const char *why) {
  fprintf(stderr, "m2vp libm2vp_exec (%s): %s\n", g_node, why);
  fflush(NULL);
  _exit(70);
}

static void m2s_connect(void);
static pthread_once_t g_connect_once = PTHREAD_ONCE_INIT;
static int g_started_by_simulator; /* the environment names a request socket */
static int g_greet_early;          /* m2s_greet_early: do not wait for the answer */

int m2s_connected(void) {
  if (g_sock < 0 && g_started_by_simulator) pthread_once(&g_connect_once, m2s_connect);
  return g_sock >= 0;
}

int m2s_line_open(void) { return g_sock >= 0; }
int m2s_world_rank(void) { return g_rank; }
int m2s_world_size(void) { return g_size; }

/* send() and recv() of this library are the program's sockets (sockets.c). */
static ssize_t raw_send(const void *buf, size_t len) {
  return syscall(SYS_sendto, g_sock, buf, len, MSG_NOSIGNAL, NULL, 0);
}
static ssize_t raw_recv(void *buf, size_t len) { return syscall(SYS_recvfrom, g_sock, buf, len, 0, NULL, NULL); }

/* One request, one reply: threads that call at once take turns. */
static pthread_mutex_t g_line = PTHREAD_MUTEX_INITIALIZER;

/* A greeting sent without waiting for its answer (an MPI program's, from
 * its constructor: its start must not wait for its host's turn), read before
 * anything else needs the line or the clock constants. Under g_line. */
static int g_hello_pending;

static void settle_hello(void) {
  if (!g_hello_pending) return;
  struct m2x_reply rp;
  ssize_t n;
  while ((n = raw_recv(&rp, sizeof rp)) < 0 && errno == EINTR) {
  }
  if (n != (ssize_t)sizeof rp) _exit(70); /* the simulator ended the run */
  g_clock_read_ns = rp.clock_read_ns;
  g_epoch_s = rp.epoch_s;
  g_cpu_scale = rp.cpu_scale;
  __atomic_store_n(&g_sim_ns, rp.now_ns, __ATOMIC_RELAXED);
  g_hello_pending = 0;
}

static void exchange(struct m2x_request *rq, struct m2x_reply *rp) {
  pthread_mutex_lock(&g_line);
  rq->compute_ns = cpu_ns() - g_cpu_at_reply;
  rq->local_ns = __atomic_load_n(&g_local_ns, __ATOMIC_RELAXED);
  settle_hello();
  ssize_t n;
  while ((n = raw_send(rq, sizeof *rq)) < 0 && errno == EINTR) {
  }
  if (n != (ssize_t)sizeof *rq) die("the simulator is gone");
  while ((n = raw_recv(rp, sizeof *rp)) < 0 && errno == EINTR) {
  }
  /* No reply: the simulator ended the run (this program is stopped anyway). */
  if (n != (ssize_t)sizeof *rp) _exit(70);
  __atomic_store_n(&g_sim_ns, rp->now_ns, __ATOMIC_RELAXED);
  __atomic_store_n(&g_local_ns, 0, __ATOMIC_RELAXED);
  g_cpu_at_reply = cpu_ns();
  pthread_mutex_unlock(&g_line);
}

void m2s_call(uint32_t fn, struct m2x_request *rq, struct m2x_reply *rp) {
  if (!m2s_connected()) {
    fprintf(stderr,
            "this libmpich.so.12 is the Maestro2 virtual platform's: the program runs as a simulated host "
            "(a config's hostN.exec, ./m2vp run CONFIG), not on its own\n");
    exit(1);
  }
  rq->kind = M2X_CALL;
  rq->fn = fn;
  exchange(rq, rp);
}

void m2s_socket_call(uint32_t fn, struct m2x_request *rq, struct m2x_reply *rp) {
  rq->kind = M2X_SOCKET;
  rq->fn = fn;
  exchange(rq, rp);
}

void m2s_mpi_thread_is_me(void) {
  pid_t none = 0;
  __atomic_compare_exchange_n(&g_mpi_thread, &none, gettid(), 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

void m2s_check_thread(const char *fn) {
  const pid_t mpi = __atomic_load_n(&g_mpi_thread, __ATOMIC_SEQ_CST), me = gettid();
  if (mpi == 0 || mpi == me) return;
  fprintf(stderr,
          "m2vp libmpich (%s): %s called from thread %d, but thread %d called MPI_Init: the platform's MPI library "
          "provides MPI_THREAD_SINGLE (one thread calls MPI)\n",
          g_node, fn, (int)me, (int)mpi);
  fflush(NULL);
  if (g_sock >= 0) {
    /* One message, sent whole (SOCK_SEQPACKET) even while the MPI thread is
     * in a call; no reply is read here, it would be that thread's. */
    struct m2x_request rq;
    memset(&rq, 0, sizeof rq);
    rq.kind = M2X_WRONG_THREAD;
    rq.a[0] = me;
    rq.a[1] = mpi;
    strncpy(rq.name, fn, sizeof rq.name - 1);
    while (raw_send(&rq, sizeof rq) < 0 && errno == EINTR) {
    }
  }
  _exit(70);
}

static void report_unsupported(int layer, const char *name) {
  if (g_sock < 0) return;
  struct m2x_request rq;
  struct m2x_reply rp;
  memset(&rq, 0, sizeof rq);
  rq.kind = M2X_UNSUPPORTED;
  rq.a[0] = layer;
  strncpy(rq.name, name, sizeof rq.name - 1);
  exchange(&rq, &rp);
}

void m2s_unsupported(const char *name) {
  m2s_check_thread(name);
  report_unsupported(M2X_LAYER_MPI, name);
  fprintf(stderr, "%s is not implemented by the Maestro2 virtual platform's MPI library\n", name);
  die("unsupported MPI function");
}

void m2s_unsupported_socket(const char *what) {
  report_unsupported(M2X_LAYER_SOCKETS, what);
  fprintf(stderr, "%s is not supported by the Maestro2 virtual platform's socket layer\n", what);
  die("unsupported socket call");
}

/* Defined by the platform's libmpich.so.12 (mpi_entry.c) when the program
 * loaded it: the simulator then expects MPI_Init and MPI_Finalize. */
extern const int m2s_mpi_library __attribute__((weak));

static int env_int(const char *name, int fallback) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : fallback;
}

__attribute__((constructor)) static void m2s_note_simulator(void) {
  const char *sock = getenv(M2X_ENV_SOCKET);
  g_started_by_simulator = sock && *sock && getenv(M2X_ENV_ARENA) && getenv(M2X_ENV_ARENA_BYTES);
  /* The program's own CPU time counts from here, as its first call will say. */
  if (g_started_by_simulator) g_cpu_at_reply = cpu_ns();
}

static void m2s_connect(void) {
  const int sock = env_int(M2X_ENV_SOCKET, -1), arena = env_int(M2X_ENV_ARENA, -1);
  const char *bytes = getenv(M2X_ENV_ARENA_BYTES), *node = getenv(M2X_ENV_NODE);
  if (sock < 0 || arena < 0 || !bytes) return; /* not started by the simulator */

  if (node) g_node = node;
  g_rank = env_int("PMI_RANK", 0);
  g_size = env_int("PMI_SIZE", 1);
  g_arena_bytes = strtoull(bytes, NULL, 10);
  const char *offset_text = getenv(M2X_ENV_ARENA_OFFSET);
  const off_t offset = offset_text ? (off_t)strtoull(offset_text, NULL, 10) : 0;
  /* Programs this one starts load this library too (LD_PRELOAD is
   * inherited) but are not the simulated host's: they find none of these. */
  unsetenv(M2X_ENV_SOCKET);
  unsetenv(M2X_ENV_ARENA);
  unsetenv(M2X_ENV_ARENA_BYTES);
  unsetenv(M2X_ENV_ARENA_OFFSET);
  /* The arena is a window of the simulated host's physical memory. */
  void *map = mmap(NULL, g_arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, arena, offset);
  if (map == MAP_FAILED) die("cannot map the shared arena");
  g_arena = map;
  close(arena);
  /* Programs this one starts must not talk on our line. */
  fcntl(sock, F_SETFD, FD_CLOEXEC);
  g_sock = sock;
  struct m2x_request rq;
  struct m2x_reply rp;
  memset(&rq, 0, sizeof rq);
  rq.kind = M2X_HELLO;
  rq.a[0] = &m2s_mpi_library != NULL;
  rq.a[1] = getpid();
  snprintf(rq.name, sizeof rq.name, "%d", M2X_VERSION);
  if (g_greet_early) {
    /* Sent now, answered whenever the host's thread gets to it: read later. */
    pthread_mutex_lock(&g_line);
    rq.compute_ns = cpu_ns() - g_cpu_at_reply;
    ssize_t n;
    while ((n = raw_send(&rq, sizeof rq)) < 0 && errno == EINTR) {
    }
    if (n != (ssize_t)sizeof rq) die("the simulator is gone");
    g_cpu_at_reply = cpu_ns();
    g_hello_pending = 1;
    pthread_mutex_unlock(&g_line);
    return;
  }
  exchange(&rq, &rp);
  g_clock_read_ns = rp.clock_read_ns;
  g_epoch_s = rp.epoch_s;
  g_cpu_scale = rp.cpu_scale;
}

void m2s_greet_early(void) {
  g_greet_early = 1;
  m2s_connected();
  g_greet_early = 0;
}

/* ---- clock ---------------------------------------------------------------- */

uint64_t m2s_clock_read_ns(void) {
  if (__atomic_load_n(&g_hello_pending, __ATOMIC_SEQ_CST)) {
    pthread_mutex_lock(&g_line);
    settle_hello();
    pthread_mutex_unlock(&g_line);
  }
  const uint64_t local = __atomic_add_fetch(&g_local_ns, g_clock_read_ns, __ATOMIC_RELAXED);
  uint64_t own = 0;
  if (g_cpu_scale > 0) own = (uint64_t)((double)(cpu_ns() - g_cpu_at_reply) * g_cpu_scale);
  return __atomic_load_n(&g_sim_ns, __ATOMIC_RELAXED) + local + own;
}

uint64_t m2s_epoch_s(void) { return g_epoch_s; }

void m2s_charge_ns(uint64_t ns) { __atomic_add_fetch(&g_local_ns, ns, __ATOMIC_RELAXED); }

/* ---- arena: first fit over a sorted list of free ranges -------------------- */

struct range {
  uint64_t start, end;
  struct range *next;
};
static struct range *g_free; /* sorted, coalesced */
static int g_arena_ready;

struct used { /* an allocation: the block [start, end) it took, found by its offset */
  int64_t off;
  uint64_t start, end;
  struct used *next;
};
static struct used *g_blocks;

static void arena_init(void) {
  g_free = malloc(sizeof *g_free);
  if (!g_free) die("out of memory");
  g_free->start = 0;
  g_free->end = g_arena_bytes;
  g_free->next = NULL;
  g_arena_ready = 1;
}

int64_t m2s_alloc(size_t bytes, const void *like, const char *fn) {
  if (!g_arena_ready) arena_init();
  const uint64_t want = bytes ? bytes : 1;
  const uint64_t phase = (uint64_t)(uintptr_t)like % PAGE;
  for (struct range **pp = &g_free; *pp; pp = &(*pp)->next) {
    struct range *r = *pp;
    const uint64_t off = r->start + (phase + PAGE - r->start % PAGE) % PAGE;
    if (off + want > r->end || off < r->start) continue;
    struct used *u = malloc(sizeof *u);
    if (!u) die("out of memory");
    u->off = (int64_t)off;
    u->start = r->start;
    u->end = off + want;
    u->next = g_blocks;
    g_blocks = u;
    r->start = u->end;
    if (r->start == r->end) {
      *pp = r->next;
      free(r);
    }
    return (int64_t)off;
  }
  char why[256];
  snprintf(why, sizeof why,
           "%s: %zu bytes do not fit in the shared arena of %llu bytes with what is in flight "
           "(raise hostN.exec_arena_mb)",
           fn, bytes, (unsigned long long)g_arena_bytes);
  die(why);
}

void m2s_free(int64_t off) {
  struct used **up = &g_blocks;
  while (*up && (*up)->off != off) up = &(*up)->next;
  struct used *u = *up;
  if (!u) return;
  *up = u->next;
  const uint64_t s = u->start, e = u->end;
  free(u);
  /* Insert [s, e) into the sorted free list and merge neighbours. */
  struct range **pp = &g_free;
  while (*pp && (*pp)->end < s) pp = &(*pp)->next;
  struct range *r = *pp;
  if (r && r->end == s) {
    r->end = e;
    if (r->next && r->next->start == e) {
      struct range *n = r->next;
      r->end = n->end;
      r->next = n->next;
      free(n);
    }
    return;
  }
  if (r && r->start == e) {
    r->start = s;
    return;
  }
  struct range *n = malloc(sizeof *n);
  if (!n) die("out of memory");
  n->start = s;
  n->end = e;
  n->next = r;
  *pp = n;
}

void *m2s_ptr(int64_t off) { return g_arena + off; }

int64_t m2s_stage(const void *src, size_t bytes, const char *fn) {
  const int64_t off = m2s_alloc(bytes, src, fn);
  if (bytes) memcpy(g_arena + off, src, bytes);
  return off;
}
