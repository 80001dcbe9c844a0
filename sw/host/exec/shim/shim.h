/* The program's side of an outside program on a simulated host
 * (docs/models/host-process.md): what the preloaded libm2vp_exec.so (the
 * line to the simulator: transport.c; clocks.c; the sockets: sockets.c,
 * host_names.c) and the platform's libmpich.so.12 on top of it (mpi_entry.c,
 * unsupported.c) share. Everything here runs in the outside program's
 * process, never in the simulator. */
#ifndef M2_SHIM_H
#define M2_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "exec/mpi_calls.h"
#include "exec/socket_calls.h"
#include "host/exec_protocol.h"

/* 1 when the simulator started this process, connecting to its simulated
 * host at the first such question (else the clocks are the real ones and
 * every MPI call says how to run the program). */
int m2s_connected(void);
/* 1 when connected already (never connects: for sleeps, which a program's
 * helper processes such as sleep(1) make without being the host's program). */
int m2s_line_open(void);
/* An MPI program greets its host from libmpich.so.12's constructor, as soon
 * as it starts, without waiting for the answer (so that its start never
 * waits for its host's turn): the simulator then knows it for an MPI program
 * from the start, whatever it does before MPI_Init. */
void m2s_greet_early(void);

/* One call to the simulated host: fills in the accounting fields, sends,
 * blocks until the reply. Never returns when the simulator is gone. */
void m2s_call(uint32_t fn, struct m2x_request *rq, struct m2x_reply *rp);
/* The same for a socket call (socket_calls.h); only when m2s_connected(). */
void m2s_socket_call(uint32_t fn, struct m2x_request *rq, struct m2x_reply *rp);

/* Shared-arena buffers (offsets). A buffer keeps the address of `like`
 * modulo the page size, so that the host's library sees the program's
 * alignment and page crossings. m2s_stage copies `bytes` of `src` in.
 * Exits loudly when the arena (hostN.exec_arena_mb) is full. */
int64_t m2s_alloc(size_t bytes, const void *like, const char *fn);
int64_t m2s_stage(const void *src, size_t bytes, const char *fn);
void m2s_free(int64_t off);
void *m2s_ptr(int64_t off);

/* Simulated time as the program sees it now (ns since simulated time 0),
 * charging one clock read; and the wall-clock seconds of time 0. */
uint64_t m2s_clock_read_ns(void);
uint64_t m2s_epoch_s(void);
/* Simulated time the program spends on its own (a sleep). */
void m2s_charge_ns(uint64_t ns);

/* MPI_THREAD_SINGLE: MPI_Init and MPI_Init_thread name the calling thread
 * the only one that may call MPI (m2s_mpi_thread_is_me); every entry point
 * checks first, before it touches the arena, whose allocator has no lock.
 * A call from another thread is reported to the simulator (which ends the
 * run naming node, program, function and rule) and the program exits: it
 * never reaches the request socket in the middle of another call. */
void m2s_mpi_thread_is_me(void);
void m2s_check_thread(const char *fn);

/* The program called `name`, which the platform lacks: the run ends. */
void m2s_unsupported(const char *name) __attribute__((noreturn));
/* The program made a socket call the platform's socket layer lacks (`what`
 * names the call and the argument): the run ends. */
void m2s_unsupported_socket(const char *what) __attribute__((noreturn));

/* Rank and size in MPI_COMM_WORLD (from the launcher's variables). */
int m2s_world_rank(void);
int m2s_world_size(void);

#endif
