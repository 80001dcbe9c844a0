/* An outside MPI program that breaks MPI_THREAD_SINGLE (test_host_exec.cpp):
 * after MPI_Init_thread (which answers MPI_THREAD_SINGLE) a second thread
 * exchanges 400 checked messages with the neighbour rank. The first argument
 * chooses when:
 *
 *   joined      the main thread waits in pthread_join (no MPI call of its own
 *               in flight): the second thread's first call is the fault
 *   concurrent  the main thread receives the neighbour's messages meanwhile,
 *               as a program that uses threads for overlap would
 *
 * Before the platform checked the calling thread, "concurrent" ended with
 * exit 0 and "N bad messages of 400" or in a false "hosts deadlocked".
 * Prints "threads: N bad messages of 400" if it ever gets that far. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

enum { kMessages = 400, kBytes = 64 };

static int g_rank, g_size;

static void fill(unsigned char *buf, int from, int i) {
  for (int b = 0; b < kBytes; ++b) buf[b] = (unsigned char)(from * 31 + i * 7 + b);
}

static void *sender(void *arg) {
  (void)arg;
  unsigned char buf[kBytes];
  for (int i = 0; i < kMessages; ++i) {
    fill(buf, g_rank, i);
    MPI_Send(buf, kBytes, MPI_BYTE, (g_rank + 1) % g_size, 9, MPI_COMM_WORLD);
  }
  return NULL;
}

static int receive_all(void) {
  int bad = 0;
  const int from = (g_rank + g_size - 1) % g_size;
  unsigned char buf[kBytes], want[kBytes];
  for (int i = 0; i < kMessages; ++i) {
    MPI_Recv(buf, kBytes, MPI_BYTE, from, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fill(want, from, i);
    bad += memcmp(buf, want, kBytes) != 0;
  }
  return bad;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "joined";
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  printf("provided %d (MPI_THREAD_SINGLE is %d)\n", provided, MPI_THREAD_SINGLE);
  fflush(stdout);
  pthread_t t;
  if (pthread_create(&t, NULL, sender, NULL) != 0) return 90;
  int bad = 0;
  if (!strcmp(mode, "concurrent")) bad = receive_all();
  pthread_join(t, NULL);
  if (strcmp(mode, "concurrent")) bad = receive_all();
  printf("threads: %d bad messages of %d\n", bad, kMessages);
  MPI_Finalize();
  return 0;
}
