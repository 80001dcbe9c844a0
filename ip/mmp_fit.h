/* MMP: the quantities of real work fitted to the host level's calibration data
 * (the rule: docs/experiments.md, "Host-level calibration"). No public
 * source gives the real MMP firmware's path lengths; the model's firmware
 * does the published steps with code of its own, and this many
 * more instructions per request taken (and per chunk sent or received)
 * stand for the rest of the real firmware's work there (checks, queue and
 * table management, protection), executed by the ISS so that they occupy
 * the 603e as that work did. Firmware arguments MMP_ARG_REQUEST_INSNS and
 * MMP_ARG_CHUNK_INSNS override them per run.
 *
 * Written by `./m2vp bench calibration --fit` (bench/calibration_fit.h):
 * least squares of NetPIPE's one-way latency (configs/netpipe.yaml, sizes
 * c-p, c, c+p, best of three, the size itself taken) against
 * bench/data/mmp-netpipe-published.tsv (the spec's calibration/mmp-netpipe.tsv),
 * 32 B to 4 KB. The lines between
 * the markers are the fit's; the rest is not touched by it. */
#ifndef M2_IP_MMP_FIT_H
#define M2_IP_MMP_FIT_H

/* fit: begin */
/* 2026-11-26, ./m2vp bench calibration --fit: rms 0.58 us over the published sizes */
#define MMP_REQUEST_INSNS_DEFAULT 402u /* instructions per request taken */
#define MMP_CHUNK_INSNS_DEFAULT 0u     /* instructions per chunk sent or received */
/* fit: end */

#endif
