/* An outside MPI program for the integration tests of host.exec
 * (test_host_exec.cpp): built by the host compiler against the project's
 * mpi.h and linked against libmpich.so.12, then run unmodified as the
 * software of simulated hosts. The first argument chooses what it does:
 *
 *   exit-early N        exits with status N before MPI_Init
 *   crash-early         dies of SIGSEGV before MPI_Init
 *   unsupported-early   calls MPI_Comm_dup before MPI_Init
 *   hang-early          starts a child that sleeps, waits forever
 *   clocks-early        prints its clocks and sleeps 1.5 ms, then exits 0 before MPI_Init
 *   crash | no-finalize | unsupported | hang | deadlock | abort
 *                       the same after MPI_Init (deadlock: starts a child, then
 *                       every rank receives from its neighbour; abort:
 *                       MPI_Abort(MPI_COMM_WORLD, 7))
 *   clocks              clocks around MPI calls (prints them)
 *   spin                spends 50 ms of its own CPU time between two MPI_Wtime
 *                       calls; prints the simulated time that passed
 *   calls               every implemented MPI function, payloads checked
 *                       byte for byte; prints "calls: N errors"
 *
 * A trailing "--after FILE" makes it wait (in real time, up to 10 s) until
 * FILE exists before it does anything else: a test that needs another
 * host's program and child started before this one fails passes that
 * program's child.pid, so the order does not depend on the machine's speed.
 *
 * pid files: "pid" (this process) and "child.pid" (its child) in the
 * working folder, so that a test can tell whether they still run. */
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "mpi.h"

static void write_pid(const char *file, pid_t pid) {
  FILE *f = fopen(file, "w");
  if (!f) exit(90);
  fprintf(f, "%d\n", (int)pid);
  fclose(f);
}

/* A child that sleeps until it is killed: whoever stops this program must
 * stop it too. */
static void start_child(void) {
  const pid_t child = fork();
  if (child == 0) {
    for (;;) pause();
  }
  write_pid("child.pid", child);
}

static void hang(void) {
  start_child();
  printf("hanging\n");
  fflush(stdout);
  for (;;) pause();
}

static void print_clocks(const char *when) {
  struct timeval tv;
  struct timespec rt, mono;
  gettimeofday(&tv, NULL);
  clock_gettime(CLOCK_REALTIME, &rt);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  const time_t t = time(NULL);
  printf("clocks %s: gettimeofday %ld.%06ld realtime %ld.%09ld monotonic %ld.%09ld time %ld\n", when, (long)tv.tv_sec,
         (long)tv.tv_usec, (long)rt.tv_sec, rt.tv_nsec, (long)mono.tv_sec, mono.tv_nsec, (long)t);
}

int calls(int rank, int size);

/* Real time, not the simulated clocks the library gives the program. */
static void wait_for_file(const char *path) {
  for (int i = 0; i < 1000 && access(path, F_OK) != 0; i++) poll(NULL, 0, 10);
}

/* "bigbuf": a 20,000-byte message (zero copy) received into a buffer of its
 * size, then into one of 4 MB, then again into its size; prints each
 * receive's time. Only the message's pages need pinning: the large buffer
 * once cost 100 times more. */
static void bigbuf(int rank) {
  enum { LEN = 20000, BIG = 4 << 20 };
  unsigned char *small = calloc(1, LEN), *large = calloc(1, BIG);
  for (int i = 0; i < 3; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      MPI_Send(small, LEN, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
      const double t0 = MPI_Wtime();
      MPI_Recv(i == 1 ? large : small, i == 1 ? BIG : LEN, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("bigbuf %d: %.1f us\n", i, (MPI_Wtime() - t0) * 1e6);
    }
  }
  free(small);
  free(large);
}

/* "refill": each rank in turn sends 200 eager messages of 1952 B while the
 * other sleeps 20 ms, so they wait in its host's message buffer until it is
 * full; then both exchange 400 empty messages, which need most of the NI's
 * message table. A full buffer once cut the table's free list short for the
 * rest of the run, and the flood then hung. */
static int refill(int rank, int size) {
  const int peer = rank ^ 1, n = 200, bytes = 1952, flood = 400;
  if (peer >= size) return 0;
  unsigned char *b = malloc(bytes);
  int errors = 0;
  for (int src = 0; src < 2; src++) {
    if (rank == src) {
      for (int i = 0; i < n; i++) {
        memset(b, i & 0xff, bytes);
        MPI_Send(b, bytes, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
      }
    } else {
      usleep(20000);
      for (int i = 0; i < n; i++) {
        MPI_Recv(b, bytes, MPI_BYTE, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < bytes; k++) errors += b[k] != (unsigned char)(i & 0xff);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Request *rq = malloc(2 * flood * sizeof *rq);
  for (int i = 0; i < flood; i++) MPI_Isend(b, 0, MPI_BYTE, peer, i, MPI_COMM_WORLD, &rq[i]);
  for (int i = 0; i < flood; i++) MPI_Irecv(b, 0, MPI_BYTE, peer, i, MPI_COMM_WORLD, &rq[flood + i]);
  MPI_Status *st = malloc(2 * flood * sizeof *st);
  errors += MPI_Waitall(2 * flood, rq, st) != MPI_SUCCESS;
  printf("refill: %d errors\n", errors);
  free(st);
  free(rq);
  free(b);
  return errors;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[argc - 2], "--after")) {
    wait_for_file(argv[argc - 1]);
    argc -= 2;
  }
  const char *mode = argc > 1 ? argv[1] : "calls";
  write_pid("pid", getpid());
  if (!strcmp(mode, "exit-early")) return argc > 2 ? atoi(argv[2]) : 3;
  if (!strcmp(mode, "crash-early")) raise(SIGSEGV);
  if (!strcmp(mode, "unsupported-early")) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
  }
  if (!strcmp(mode, "hang-early")) hang();
  if (!strcmp(mode, "clocks-early")) {
    print_clocks("start");
    usleep(1500);
    print_clocks("after 1.5 ms sleep");
    return 0;
  }

  /* Before MPI_Init, which returns only once every rank called it: so the
   * child runs by the time any rank gets further. */
  if (!strcmp(mode, "deadlock")) start_child();
  MPI_Init(&argc, &argv);
  int rank = -1, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("rank %d of %d (%s)\n", rank, size, mode);
  fflush(stdout);
  if (!strcmp(mode, "crash")) raise(SIGSEGV);
  if (!strcmp(mode, "no-finalize")) return 0;
  if (!strcmp(mode, "unsupported")) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
  }
  if (!strcmp(mode, "hang") && rank == 0) hang();
  if (!strcmp(mode, "abort")) MPI_Abort(MPI_COMM_WORLD, 7);
  if (!strcmp(mode, "deadlock")) {
    char b[4];
    MPI_Recv(b, 4, MPI_BYTE, (rank + 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  int rc = 0;
  if (!strcmp(mode, "clocks")) {
    print_clocks("after init");
    const double w0 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    const double w1 = MPI_Wtime();
    printf("wtime %.9f %.9f\n", w0, w1);
    print_clocks("after barrier");
  }
  if (!strcmp(mode, "spin")) {
    /* 50 ms of this process' own CPU time between two calls. */
    const double w0 = MPI_Wtime();
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    do clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    while ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < 50e6);
    printf("spin: %.6f s of simulated time for 0.05 s of CPU time\n", MPI_Wtime() - w0);
  }
  if (!strcmp(mode, "sleep-forever") && rank == 0) {
    /* "Forever": 136 years (the run's time limit comes first). */
    sleep(4294967295u);
    printf("woke at %.3f s\n", MPI_Wtime());
  }
  if (!strcmp(mode, "refill")) rc = refill(rank, size) != 0;
  if (!strcmp(mode, "bigbuf")) bigbuf(rank);
  if (!strcmp(mode, "calls")) rc = calls(rank, size) != 0;
  MPI_Finalize();
  return rc;
}
