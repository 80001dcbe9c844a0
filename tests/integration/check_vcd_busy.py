#!/usr/bin/env python3
"""A sampled busy signal of signals.vcd against the transactions of
transactions.csv that make it busy: at the first sample after a transaction
starts the signal is 1, and at every sample where it is 1 a transaction
overlapped the period before it (docs/models/trace.md). Prints the counts.

  check_vcd_busy.py RUN_DIR SIGNAL PERIOD_PS BINDING_PREFIX [BINDING_PREFIX...]
  (SIGNAL: the dotted name, e.g. node0.pci.busy)
"""
import bisect
import csv
import os
import sys


def signal_values(vcd_path, dotted):
    """[(time_ps, value)] of the signal, changes only."""
    scopes, ident, changes, t = [], None, [], 0
    with open(vcd_path) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if p[0] == "$scope":
                scopes.append(p[2])
            elif p[0] == "$upscope":
                scopes.pop()
            elif p[0] == "$var" and ".".join(scopes[1:] + [p[4]]) == dotted:
                ident = p[3]
            elif p[0].startswith("#"):
                t = int(p[0][1:])
            elif ident and p[0][0] in "01" and p[0][1:] == ident:
                changes.append((t, int(p[0][0])))
    if ident is None:
        sys.exit(f"no signal {dotted} in {vcd_path}")
    return changes


def main():
    run, dotted, period, prefixes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    changes = signal_values(os.path.join(run, "signals.vcd"), dotted)
    times = [t for t, _ in changes]

    def value_at(t):
        i = bisect.bisect_right(times, t) - 1
        return changes[i][1] if i >= 0 else 0

    spans = []
    with open(os.path.join(run, "transactions.csv")) as f:
        for r in csv.DictReader(f):
            if any(r["binding"].startswith(p) for p in prefixes):
                s, e = int(r["start_ps"]), int(r["end_ps"])
                if e > s:
                    spans.append((s, e))
    spans.sort()
    last = max(t for t, _ in changes)
    missed = [(s, e) for s, e in spans if (s // period + 1) * period <= last and value_at((s // period + 1) * period) != 1]
    starts = [s for s, _ in spans]
    longest = max((e - s for s, e in spans), default=0)
    unexplained = 0
    ones = 0
    for T in range(period, last + 1, period):
        if value_at(T) != 1:
            continue
        ones += 1
        # A span overlapping (T - period, T]: it starts before T and ends after T - period.
        i = bisect.bisect_left(starts, T)
        if not any(e > T - period for s, e in spans[max(0, bisect.bisect_left(starts, T - period - longest)):i]):
            unexplained += 1
    print(f"{len(spans)} transactions, {ones} busy samples, {len(missed)} transactions missed, "
          f"{unexplained} busy samples without a transaction")
    if missed[:3]:
        print("missed:", missed[:3])
    sys.exit(1 if missed or unexplained else 0)


if __name__ == "__main__":
    main()
