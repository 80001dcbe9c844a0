"""The sending NI's request intake in a closed round (docs/experiments.md,
experiment 9, "The senders' request intake"): why a round's early sends
leave later than an even spread over the round.

scale.c hands the NI a round's D sends at once (D requests in the ring).
The MMP firmware's loop (sw/firmware/mmp/mmp_fw.c, step()) takes at most
REQUESTS_PER_STEP requests, then serves each receive channel, then sends
one chunk. So its first sends each wait behind up to four requests taken,
and the requests are all taken after about D / 4 steps; from then on a step
is a send and a receive only. The round's length does not change (the same
work: g_bi per message holds the request's time too), but its sends leave
late early on: send k (1-based; chunks c a message, one chunk a step) is done
by its NI's CPU at
    k (g_cpu - q) + min(REQUESTS_PER_STEP c k, D) q
(g_cpu the NI's time per message when its CPU, not the data, sets it:
g_bi at the smallest size, one packet; q a request's time), and by the
data's move not before k g_bi(s). The mean latency gains the mean over
k = 1..D of what the first exceeds the second (0 where the data's time
hides the requests: a 4 KB message's DMA is longer than its requests).

q comes from a microbenchmark, not from the validation runs: the model's
run requests-8 (8 nodes on one switch box, all-to-all, 16 B, M = 2,
sim.messages=true; fit_requests): each send's time from the host's
MMP_Send to its NI having sent it, fitted as c + k g' + min(4 k, D) q
(fit_request_time). It gave q = 2.13 us (the 16- and 64-node fat trees'
traced all-to-alls give 2.04 and 2.13 us: the same per request).
"""
import csv
import os

import numpy as np

from model_fit import ModelInputError, read_table

# mmp_fw.c step(): `for (unsigned k = 0; k < 4 && request_step(); k++)`.
REQUESTS_PER_STEP = 4
# The run q is fitted from (model.py plans it): its nodes and message size.
RUN = "requests-8"
RUN_NODES, RUN_BYTES = 8, 16
# scale.c's data messages (its token and records have other tags).
DATA_TAG = 256


def intake_delay_us(q, g_cpu, g_msg, d, chunks):
    """Mean over a round's d sends of how much later a send leaves because
    the firmware takes the round's requests REQUESTS_PER_STEP a step ahead
    of its sends (see above); 0 for d < 1."""
    if d < 1:
        return 0.0
    total = 0.0
    for k in range(1, d + 1):
        cpu = k * (g_cpu - q) + min(REQUESTS_PER_STEP * chunks * k, d) * q
        total += max(0.0, cpu - k * g_msg)
    return total / d


def read_sends(path):
    """[(src, dst, bytes, sent_us)] of a sends.tsv; ModelInputError naming
    the file and what was expected."""
    need = ("src", "dst", "bytes", "sent_us")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f, delimiter="\t")
            missing = [c for c in need if c not in (reader.fieldnames or [])]
            if missing:
                raise ModelInputError(f"{path}: no column {missing[0]} (expected {', '.join(need)})")
            out = []
            for line, r in enumerate(reader, start=2):
                try:
                    out.append((int(r["src"]), int(r["dst"]), int(r["bytes"]), float(r["sent_us"])))
                except (TypeError, ValueError):
                    raise ModelInputError(f"{path}:{line}: expected integers src, dst, bytes and a number sent_us")
    except OSError as e:
        raise ModelInputError(f"{path}: cannot read: {e.strerror}") from None
    return out


def sends_from_messages(path):
    """[(src, dst, bytes, sent_us)] of a sim.messages=true run's messages.csv:
    its data messages, sent_us the time from the host's MMP_Send to its NI
    having sent it (host_send_us + request_us + fw_send_us)."""
    cols = ("src", "dst", "bytes", "tag", "host_send_us", "request_us", "fw_send_us")
    return [(int(r["src"]), int(r["dst"]), int(r["bytes"]),
             r["host_send_us"] + r["request_us"] + r["fw_send_us"])
            for r in read_table(path, ",", cols) if int(r["tag"]) == DATA_TAG]


def read_run_sends(folder):
    """The sends of the measurement folder's requests-8 run: its
    messages.csv, or a sends.tsv extracted from one (a recorded run);
    ModelInputError naming the run folder when it has neither."""
    run = os.path.join(folder, RUN)
    messages, sends = os.path.join(run, "messages.csv"), os.path.join(run, "sends.tsv")
    if os.path.exists(messages):
        return sends_from_messages(messages)
    if os.path.exists(sends):
        return read_sends(sends)
    raise ModelInputError(f"{run}: missing messages.csv (expected the model's {RUN} run: 8 nodes on one box, "
                          f"16 B all-to-all, sim.messages=true; an older runs folder lacks it, run ./m2vp model "
                          f"without --reuse)")


def fit_requests(folder):
    """The model's request time from the folder's requests-8 run."""
    try:
        q, g, c = fit_request_time(read_run_sends(folder), RUN_NODES, RUN_BYTES)
    except ModelInputError as e:
        if str(e).startswith(os.path.join(folder, RUN)):
            raise
        raise ModelInputError(f"{os.path.join(folder, RUN)}: {e}") from None
    return {"us_per_request": q, "us_per_step": g, "us_start": c}


def fit_request_time(sends, nodes, size):
    """(q, g', c) least squares of sent_us = c + k g' + min(4 k, D) q over
    the all-to-all's sends of one size, k = (dst - src) mod nodes the send's
    place in its round (scale.c sends to me + 1, me + 2, ...)."""
    d = nodes - 1
    rows = [(1.0, k, min(REQUESTS_PER_STEP * k, d), t)
            for s, r, b, t in sends if b == size for k in [(r - s) % nodes]]
    if len(rows) < 3:
        raise ModelInputError(f"fit_request_time: {len(rows)} sends of {size} B, expected an all-to-all's")
    a = np.array(rows, dtype=float)
    coef = np.linalg.lstsq(a[:, :3], a[:, 3], rcond=None)[0]
    return float(coef[2]), float(coef[1]), float(coef[0])
