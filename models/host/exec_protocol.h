/* The wire between an outside program running as a simulated host (hostN.exec)
 * and that host's thread in the simulator (docs/models/host-process.md).
 *
 * The simulator starts the program with two inherited descriptors: a
 * SOCK_SEQPACKET socket (one request, one reply per message) and a shared
 * memory arena (memfd) that both map. The program's side, the project's
 * preloaded libm2vp_exec.so (clocks, sockets; every outside program loads it)
 * and libmpich.so.12 (MPI, on top of it), sends one request per library call
 * and blocks until the reply: the call runs on the simulated host in
 * simulated time meanwhile.
 * Bulk data (message payloads, arrays) travels in the arena; a request names
 * it by offset and length.
 *
 * Plain C, fixed-size fields: the same header builds the simulator (C++) and
 * the shared library the program loads (C). */
#ifndef M2_EXEC_PROTOCOL_H
#define M2_EXEC_PROTOCOL_H

#include <stdint.h>

/* Environment of the program (besides the launcher's rank variables). */
#define M2X_ENV_SOCKET "M2VP_EXEC_SOCKET"             /* descriptor number of the socket      */
#define M2X_ENV_ARENA "M2VP_EXEC_ARENA"               /* descriptor number of the arena memfd */
#define M2X_ENV_ARENA_BYTES "M2VP_EXEC_ARENA_BYTES"   /* its size                              */
#define M2X_ENV_ARENA_OFFSET "M2VP_EXEC_ARENA_OFFSET" /* where it starts in that file (page-aligned) */
#define M2X_ENV_NODE "M2VP_NODE"                      /* the host's name, for messages         */

#define M2X_VERSION 2
#define M2X_PRELOAD "libm2vp_exec.so"    /* preloaded into every program (LD_PRELOAD), in build/lib */
#define M2X_LIBRARY "libmpich.so.12"     /* what an MPI program loads: the project's, in build/lib */
#define M2X_INIT_NAME "MPI_Init"         /* the call that starts the library (for messages)    */
#define M2X_FINALIZE_NAME "MPI_Finalize" /* the call after which the program may exit          */

enum m2x_kind {
  M2X_HELLO = 1,        /* first message, from the preloaded library's constructor;
                           a[0] 1 when the program loaded libmpich.so.12 too      */
  M2X_CALL = 2,         /* a library call: fn says which (sw/host/exec/mpi_calls.h)  */
  M2X_UNSUPPORTED = 3,  /* the program called a function the platform lacks: name;
                           a[0] which layer lacks it (M2X_LAYER_*)                */
  M2X_WRONG_THREAD = 4, /* a thread other than MPI_Init's called name: a[0] its thread
                           id, a[1] MPI_Init's (the library is MPI_THREAD_SINGLE);
                           the program exits at once, no reply                    */
  M2X_SOCKET = 5,       /* a socket call: fn says which (sw/host/exec/socket_calls.h) */
};

enum m2x_layer { M2X_LAYER_MPI = 0, M2X_LAYER_SOCKETS = 1 };

#define M2X_ARGS 12
#define M2X_NAME_BYTES 64

struct m2x_request {
  uint32_t kind;             /* enum m2x_kind                                           */
  uint32_t fn;               /* M2X_CALL: the function                                   */
  uint64_t compute_ns;       /* the program's CPU time since the previous reply (ns)     */
  uint64_t local_ns;         /* simulated time the library charged on its own since the
                                previous reply (clock reads, sleeps), to be charged now  */
  int64_t a[M2X_ARGS];       /* arguments: values, handles, arena offsets and lengths   */
  char name[M2X_NAME_BYTES]; /* HELLO: version text; UNSUPPORTED: function name    */
};

struct m2x_reply {
  int64_t ret;            /* the function's return value                             */
  int64_t out[6];         /* scalar results (rank, flag, count, request handle ...)  */
  int32_t status[6];      /* an MPI_Status (five ints in the MPICH ABI), when one    */
  uint64_t now_ns;        /* the host's simulated time at the return                 */
  uint64_t clock_read_ns; /* HELLO: simulated cost of one clock read (a syscall)   */
  uint64_t epoch_s;       /* HELLO: wall-clock seconds that simulated time 0 stands for */
  double cpu_scale;       /* HELLO: simulated ns per ns of the program's CPU time     */
};

#endif
