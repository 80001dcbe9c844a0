/* C side of the exception vectors (vectors.S): dispatch and weak defaults. */
#include <ni_memory_map.h>

#include "fw.h"
#include "fw_abi.h"

/* vectors.S and crt0.S use the numbers of fw_abi.h: keep them in step. */
_Static_assert(FW_MSR_INIT == (PPC_MSR_ME | PPC_MSR_RI), "crt0 MSR");
_Static_assert(sizeof(struct fw_exc_frame) == EXC_FRAME_SIZE, "frame size");
_Static_assert(EXC_FRAME_SIZE % 16 == 0, "SVR4 stack alignment");
_Static_assert(offsetof(struct fw_exc_frame, r0) == EXC_R0, "r0");
_Static_assert(offsetof(struct fw_exc_frame, gpr) == EXC_R3, "r3");
_Static_assert(offsetof(struct fw_exc_frame, lr) == EXC_LR, "lr");
_Static_assert(offsetof(struct fw_exc_frame, ctr) == EXC_CTR, "ctr");
_Static_assert(offsetof(struct fw_exc_frame, xer) == EXC_XER, "xer");
_Static_assert(offsetof(struct fw_exc_frame, cr) == EXC_CR, "cr");
_Static_assert(offsetof(struct fw_exc_frame, srr0) == EXC_SRR0, "srr0");
_Static_assert(offsetof(struct fw_exc_frame, srr1) == EXC_SRR1, "srr1");

static volatile uint32_t decrementer_events;

uint32_t fw_decrementer_events(void) { return decrementer_events; }

/* Called by vectors.S with EE off; the frame is written back on return. */
void fw_exception_dispatch(uint32_t vector, struct fw_exc_frame *frame);
void fw_exception_dispatch(uint32_t vector, struct fw_exc_frame *frame) {
  uint32_t *r = frame->gpr; /* r[0] is r3 */
  switch (vector) {
    case PPC_VEC_EXTERNAL:
      fw_external_interrupt();
      break;
    case PPC_VEC_DECREMENTER:
      decrementer_events++;
      fw_decrementer_interrupt();
      break;
    case PPC_VEC_SYSCALL:
      r[0] = fw_syscall(r[0], r[1], r[2], r[3], r[4], r[5]);
      break;
    default:
      fw_unhandled_exception(vector, frame);
      break;
  }
}
