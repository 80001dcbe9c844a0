/* Simulation-control device: lets firmware end the run and report values.
 * 32-bit registers, big-endian. */
#ifndef M2_IP_SIMCTRL_H
#define M2_IP_SIMCTRL_H

#define SIMCTRL_EXIT                                                                      \
  0x00u                          /* W: firmware is done; value = exit code (0 = success). \
                                    The run ends when every participating CPU has exited. */
#define SIMCTRL_TRACE_MARK 0x04u /* W: virtual platform only: SIMCTRL_MARK(event, tag), below */
#define SIMCTRL_TIME_LO 0x08u    /* R: simulated time in ns, low word (reading it latches HI) */
#define SIMCTRL_TIME_HI 0x0Cu    /* R: simulated time in ns, high word (latched)               */
#define SIMCTRL_RESULT(i)                                         \
  (0x10u + 4u * (i)) /* W: result value i (0..7), recorded in the \
            end-of-run report and results.tsv as fw_result<i> */
#define SIMCTRL_NUM_RESULTS 8u
#define SIMCTRL_TB_HZ 0x30u               /* R: timebase frequency in Hz (as configured)        */
#define SIMCTRL_CPU_HZ 0x34u              /* R: core clock in Hz (as configured)                */
#define SIMCTRL_NUM_ARGS 0x38u            /* R: number of firmware arguments (<ni>.simctrl.args) */
#define SIMCTRL_ARG(i) (0x40u + 4u * (i)) /* R: firmware argument i (0 beyond NUM_ARGS) */
#define SIMCTRL_MAX_ARGS 16u

/* Trace marks (no such register on the real card; ip/msg_trace.h): firmware
 * stores one where a message passes a point that only the firmware sees; the
 * message ledger (sim.messages) takes the store's time. It costs one store
 * and has no other effect. `tag` is MSG_TAG(node, seq). */
#define SIMCTRL_MARK(event, tag) ((((unsigned)(event)&0xFFu) << 24) | ((unsigned)(tag)&0x7FFFFFu))
#define SIMCTRL_MARK_EVENT(v) (((v) >> 24) & 0xFFu)
#define SIMCTRL_MARK_TAG(v) ((v)&0x7FFFFFu)
#define SIMCTRL_MARK_SEND_TAKEN 1u /* the sender's firmware took the send request */

#endif
