/* The basic datatypes (MPICH encodings, mpi.h) and the built-in reduction
 * operations on them. */
#include <stdint.h>

#include "mpi_internal.h"

enum kind { K_NONE, K_I8, K_U8, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64, K_F32, K_F64, K_LD };

static enum kind kind_of(MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR:
    case MPI_SIGNED_CHAR:
    case MPI_INT8_T:
      return K_I8;
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
    case MPI_PACKED:
    case MPI_UINT8_T:
    case MPI_C_BOOL:
      return K_U8;
    case MPI_SHORT:
    case MPI_INT16_T:
      return K_I16;
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T:
      return K_U16;
    case MPI_INT:
    case MPI_INT32_T:
    case MPI_WCHAR:
      return K_I32;
    case MPI_UNSIGNED:
    case MPI_UINT32_T:
      return K_U32;
    case MPI_LONG:
    case MPI_LONG_LONG_INT:
    case MPI_INT64_T:
    case MPI_AINT:
    case MPI_OFFSET:
    case MPI_COUNT:
      return K_I64;
    case MPI_UNSIGNED_LONG:
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T:
      return K_U64;
    case MPI_FLOAT:
      return K_F32;
    case MPI_DOUBLE:
      return K_F64;
    case MPI_LONG_DOUBLE:
      return K_LD;
    default:
      return K_NONE;
  }
}

int mpi_type_size(MPI_Datatype t) {
  /* MPICH's basic types carry their size in bits 8..15. */
  return kind_of(t) == K_NONE ? -1 : (int)(((unsigned)t >> 8) & 0xFFu);
}

#define ARITH(T, op)                        \
  do {                                      \
    const T *a = in;                        \
    T *b = inout;                           \
    for (size_t i = 0; i < n; i++) {        \
      switch (op) {                         \
        case MPI_SUM:                       \
          b[i] = (T)(b[i] + a[i]);          \
          break;                            \
        case MPI_PROD:                      \
          b[i] = (T)(b[i] * a[i]);          \
          break;                            \
        case MPI_MAX:                       \
          b[i] = a[i] > b[i] ? a[i] : b[i]; \
          break;                            \
        case MPI_MIN:                       \
          b[i] = a[i] < b[i] ? a[i] : b[i]; \
          break;                            \
        case MPI_LAND:                      \
          b[i] = (T)(a[i] && b[i]);         \
          break;                            \
        case MPI_LOR:                       \
          b[i] = (T)(a[i] || b[i]);         \
          break;                            \
        case MPI_LXOR:                      \
          b[i] = (T)(!a[i] != !b[i]);       \
          break;                            \
        default:                            \
          return MPI_ERR_OP;                \
      }                                     \
    }                                       \
  } while (0)

#define INTEGER(T, op)                                                                        \
  do {                                                                                        \
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) {                                  \
      const T *a = in;                                                                        \
      T *b = inout;                                                                           \
      for (size_t i = 0; i < n; i++)                                                          \
        b[i] = (T)(op == MPI_BAND ? b[i] & a[i] : op == MPI_BOR ? b[i] | a[i] : b[i] ^ a[i]); \
    } else {                                                                                  \
      ARITH(T, op);                                                                           \
    }                                                                                         \
  } while (0)

int mpi_reduce_apply(MPI_Op op, MPI_Datatype t, const void *in, void *inout, size_t n) {
  if (op < MPI_MAX || op > MPI_BXOR) return MPI_ERR_OP;
  const int bitwise = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
  switch (kind_of(t)) {
    case K_I8:
      INTEGER(int8_t, op);
      break;
    case K_U8:
      INTEGER(uint8_t, op);
      break;
    case K_I16:
      INTEGER(int16_t, op);
      break;
    case K_U16:
      INTEGER(uint16_t, op);
      break;
    case K_I32:
      INTEGER(int32_t, op);
      break;
    case K_U32:
      INTEGER(uint32_t, op);
      break;
    case K_I64:
      INTEGER(int64_t, op);
      break;
    case K_U64:
      INTEGER(uint64_t, op);
      break;
    case K_F32:
      if (bitwise) return MPI_ERR_OP;
      ARITH(float, op);
      break;
    case K_F64:
      if (bitwise) return MPI_ERR_OP;
      ARITH(double, op);
      break;
    case K_LD:
      if (bitwise) return MPI_ERR_OP;
      ARITH(long double, op);
      break;
    default:
      return MPI_ERR_TYPE;
  }
  return MPI_SUCCESS;
}
