/* The MPI functions an outside program's calls carry to its simulated host
 * (models/host/exec_protocol.h is the wire): their numbers and argument
 * layout, shared by the program's side (shim/, the project's libmpich.so.12)
 * and the simulator's side (mpi_calls.cpp, which calls sw/host/mpi).
 *
 * Arguments travel in m2x_request.a[]; a buffer is an arena offset (-1: none,
 * e.g. MPI_IN_PLACE or a non-root's receive buffer), its length follows from
 * count and datatype. Results come back in m2x_reply: ret, out[], status.
 * Received bytes (out[1] after a receive or its completion) tell the program
 * how much of its buffer the message filled. */
#ifndef M2_EXEC_MPI_CALLS_H
#define M2_EXEC_MPI_CALLS_H

#include <stdint.h>

/* X(name, number): every forwarded function. Arguments per function:
 *   INIT, FINALIZE                  -
 *   INIT_THREAD                     a0 required; out0 provided
 *   GET_VERSION                     out0 version, out1 subversion
 *   TYPE_SIZE                       a0 type; out0 size
 *   ERROR_STRING                    a0 code, a1 buffer (M2X_ERROR_STRING bytes); out0 length
 *   INITIALIZED, FINALIZED          out0 flag
 *   ABORT                           a0 comm, a1 error code
 *   COMM_RANK, COMM_SIZE            a0 comm; out0
 *   GET_PROCESSOR_NAME              a0 buffer (M2X_PROCESSOR_NAME bytes); out0 length
 *   WTIME, WTICK                    out0 the double's bits
 *   BARRIER                         a0 comm
 *   BCAST                           a0 buf, a1 count, a2 type, a3 root, a4 comm
 *   REDUCE                          a0 sendbuf, a1 recvbuf, a2 count, a3 type, a4 op, a5 root, a6 comm
 *   ALLREDUCE                       a0 sendbuf, a1 recvbuf, a2 count, a3 type, a4 op, a5 comm
 *   GATHER                          a0 sendbuf, a1 scount, a2 stype, a3 recvbuf, a4 rcount, a5 rtype,
 *                                   a6 root, a7 comm
 *   ALLTOALL                        a0 sendbuf, a1 scount, a2 stype, a3 recvbuf, a4 rcount, a5 rtype, a6 comm
 *   SEND, SSEND, ISEND              a0 buf, a1 count, a2 type, a3 dest, a4 tag, a5 comm; ISEND out0 request
 *   RECV, IRECV                     a0 buf, a1 count, a2 type, a3 source, a4 tag, a5 comm;
 *                                   RECV status, out1 bytes; IRECV out0 request
 *   WAIT                            a0 request; out0 request after, out1 bytes, status
 *   TEST                            a0 request; out0 request after, out1 bytes, out2 flag, status
 *   WAITALL                         a0 count, a1 requests (int[count], in and out), a2 statuses
 *                                   (int[5 count], out), a3 bytes (int64[count], out)
 *   SENDRECV                        a0 sendbuf, a1 scount, a2 stype, a3 dest, a4 stag,
 *                                   a5 recvbuf, a6 rcount, a7 rtype, a8 source, a9 rtag, a10 comm;
 *                                   status, out1 bytes
 *   PROBE                           a0 source, a1 tag, a2 comm; status
 *   IPROBE                          a0 source, a1 tag, a2 comm; out2 flag, status
 *   GET_COUNT                       a0..a4 the status' five ints, a5 type; out0 count */
/* A list of entries, laid out by hand (clang-format folds it into a staircase). */
/* clang-format off */
#define M2X_MPI_FUNCTIONS(X)                                                           \
  X(INIT, 1) X(INITIALIZED, 2) X(FINALIZE, 3) X(FINALIZED, 4) X(ABORT, 5)              \
  X(COMM_RANK, 6) X(COMM_SIZE, 7) X(GET_PROCESSOR_NAME, 8) X(WTIME, 9) X(WTICK, 10)    \
  X(BARRIER, 11) X(BCAST, 12) X(REDUCE, 13) X(ALLREDUCE, 14) X(GATHER, 15)             \
  X(ALLTOALL, 16) X(SEND, 17) X(SSEND, 18) X(ISEND, 19) X(RECV, 20) X(IRECV, 21)       \
  X(WAIT, 22) X(TEST, 23) X(WAITALL, 24) X(SENDRECV, 25) X(PROBE, 26) X(IPROBE, 27)    \
  X(GET_COUNT, 28) X(INIT_THREAD, 29) X(GET_VERSION, 30) X(TYPE_SIZE, 31) X(ERROR_STRING, 32) \
  X(COMM_SET_ERRHANDLER, 33)
/* clang-format on */

enum m2x_mpi_fn {
#define M2X_ENUM(name, n) M2X_MPI_##name = n,
  M2X_MPI_FUNCTIONS(M2X_ENUM)
#undef M2X_ENUM
      M2X_MPI_COUNT
};

#define M2X_PROCESSOR_NAME 128 /* MPI_MAX_PROCESSOR_NAME of the MPICH ABI */
#define M2X_ERROR_STRING 512   /* MPI_MAX_ERROR_STRING */
#define M2X_STATUS_INTS 5      /* sizeof(MPI_Status) / sizeof(int) in the MPICH ABI */

/* Bytes of one element of a predefined MPICH-ABI datatype: such handles
 * carry their size in bits 8..15 (MPI_BYTE 0x4c00010d: 1, MPI_DOUBLE
 * 0x4c00080b: 8). 0 for anything else (derived and pair types, which the
 * platform's library does not implement). */
static inline int64_t m2x_type_bytes(int32_t datatype) {
  const uint32_t d = (uint32_t)datatype;
  if ((d & 0xfc000000u) != 0x4c000000u) return 0; /* builtin kind, datatype object */
  return (int64_t)((d >> 8) & 0xffu);
}

#endif
