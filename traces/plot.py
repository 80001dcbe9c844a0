#!/usr/bin/env python3
"""Plots from run outputs, without re-running (`./m2vp plot`).

  plot.py [RUN_DIR_OR_FILE ...] [--out DIR] [--label L ...]

Each input is a run folder or one of its files. From what they hold it
writes, as PNG and SVG (plus a .tsv of the plotted numbers):
  netpipe_throughput, netpipe_signature, netpipe_saturation
      from np.out (NetPIPE's "bytes Mbit/s seconds"), or a results.tsv with
      bytes and latency_us columns; all inputs overlaid, one line each
  breakdown_stacked   from messages.csv: mean time per stage, stacked, per size
  latency_cdf         from latencies.tsv: CDF per size, pattern and input
Lines are labelled by folder name, or by --label (one per input, in order).
A folder of a config's cases (its cases.tsv) stands for its case folders,
each labelled by its case; the plots go into that folder.
Without inputs: the newest run folder under traces/. Output: --out, else the
input's own folder (one input) or traces/overlay/ (several).
Exit code 1 when an input has nothing to plot or a file is malformed (the
message names the file and line).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from plots import figure  # noqa: E402  (after the path is set)
from plots.readers import InputError  # noqa: E402
from plots.runs import label_runs, read_run  # noqa: E402
from runs import TableError, read_tsv  # noqa: E402
from output_files import OutputError  # noqa: E402

RUN_FILES = ("np.out", "messages.csv", "latencies.tsv", "results.tsv")


def newest_run():
    """The most recently written run folder under traces/."""
    best = None
    for name in os.listdir(HERE):
        d = os.path.join(HERE, name)
        if not os.path.isdir(d) or name in ("plots", "overlay", "__pycache__"):
            continue
        times = [os.path.getmtime(os.path.join(d, f)) for f in RUN_FILES if os.path.isfile(os.path.join(d, f))]
        if times and (best is None or max(times) > best[0]):
            best = (max(times), d)
    return best[1] if best else None


def expand_case_folders(inputs):
    """A folder of a config's cases (`./m2vp run` on a config with `cases:`;
    its cases.tsv lists them) stands for its case folders, labelled by case.
    Returns (inputs, labels: one per input or [] when none is a case folder,
    the case folder when it was the only input, else None)."""
    out, labels, home = [], [], None
    for i in inputs:
        listing = os.path.join(i, "cases.tsv") if os.path.isdir(i) else None
        if not listing or not os.path.isfile(listing):
            out.append(i)
            labels.append(os.path.basename(os.path.normpath(i)))
            continue
        try:
            rows = read_tsv(listing)
        except TableError as e:
            raise InputError(str(e), 0, "expected the table of cases ./m2vp run writes") from None
        cols = rows[0] if rows else []
        if "case" not in cols or "dir" not in cols:
            raise InputError(listing, 1, "expected the columns case and dir (written by ./m2vp run on a config with cases)")
        found = len(out)
        for r in rows[1:]:
            if len(r) == len(cols) and os.path.isdir(os.path.join(i, r[cols.index("dir")])):
                out.append(os.path.join(i, r[cols.index("dir")]))
                labels.append(r[cols.index("case")])
        if len(out) == found:
            raise InputError(listing, 0, "lists no case folder that is there (expected rows of case and dir)")
        if len(inputs) == 1:
            home = i
    if len(out) == len(inputs):  # no case folder among them
        return inputs, [], None
    return out, labels, home


def main(argv):
    p = argparse.ArgumentParser(prog="m2vp plot", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("inputs", nargs="*", metavar="RUN_DIR_OR_FILE")
    p.add_argument("--out", help="folder for the plots")
    p.add_argument("--label", action="append", default=[], help="legend label, one per input in order (repeatable)")
    a = p.parse_args(argv)
    if figure.plt is None:
        print("plot: error: python3-matplotlib is missing (apt-get install python3-matplotlib)", file=sys.stderr)
        return 1
    inputs = a.inputs
    if not inputs:
        newest = newest_run()
        if not newest:
            p.error(f"no run folder under {HERE}; give a run folder or file")
        print(f"plot: newest run: {newest}", file=sys.stderr)
        inputs = [newest]

    # Imported here so that a missing matplotlib is reported above, not as a traceback.
    from plots import breakdown, cdf, netpipe

    try:
        inputs, case_labels, case_home = expand_case_folders(inputs)
        if case_labels and a.label and len(a.label) != len(inputs):
            raise InputError(inputs[0], 0, f"{len(a.label)} --label for {len(inputs)} inputs (a case folder counts "
                                           f"as its {len(case_labels)} cases: " + ", ".join(case_labels) + ")")
        runs = [read_run(i) for i in inputs]
        label_runs(runs, a.label or case_labels)
    except InputError as e:
        print(f"plot: error: {e}", file=sys.stderr)
        return 1
    out = a.out or case_home or (runs[0].folder if len(runs) == 1 else os.path.join(HERE, "overlay"))
    try:
        written = netpipe.plot(runs, out) + breakdown.plot(runs, out) + cdf.plot(runs, out)
    except OutputError as e:
        print(f"plot: error: {e}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.stdout.reconfigure(errors="surrogateescape")  # paths that are not UTF-8, printed as they are
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # the list of files piped into head and the like
        sys.stderr.close()
        sys.exit(0)
