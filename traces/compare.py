#!/usr/bin/env python3
"""Compares runs: which parameters differ, and their results side by side
with the difference of each run from the first.

  compare.py RUN RUN [RUN ...] [--metric COLUMN ...] [--tolerance PERCENT] [--tsv FILE]

A RUN is a run folder (its results.tsv and params.tsv) or a results.tsv.
Rows are matched by their size, after their text key columns (experiment
6's pattern: "alltoall:16"), or by their first column when the table has no
`bytes`; a size measured again in one table (NetPIPE's perturbation) is
matched by its occurrence: "1", then "1#2". Compared columns: --metric (repeatable), else the timing columns the
first table has (latency_us, mean_us, time_us, mbps, ...). --tolerance marks
the values that differ from the first run's by more than that many percent
and makes the exit code 1 when any does, or when a value the first run has is
missing from another (a run that ended early) or the other way round; --tsv
writes the comparison as a table. Exit code 2 on unreadable input, naming the
file, and on runs with no row in common with the first.
"""
import argparse
import math
import os
import sys

from output_files import OutputError, output_file_problem
from param_diff import differences
from runs import TableError, is_number, print_aligned, read_tsv, row_keys, write_tsv

DEFAULT_METRICS = ["latency_us", "mean_us", "time_us", "round_trip_us", "p99_us", "mbps"]


class InputError(Exception):
    pass


def parse_args(argv):
    p = argparse.ArgumentParser(prog="m2vp compare", description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", metavar="RUN", help="run folder or results.tsv")
    p.add_argument("--metric", action="append", default=[], metavar="COLUMN")
    p.add_argument("--tolerance", type=tolerance, default=None, metavar="PERCENT")
    p.add_argument("--tsv", default=None, metavar="FILE", help="write the comparison here")
    a = p.parse_args(argv)
    if len(a.runs) < 2:
        p.error("give at least two runs to compare")
    return a


def tolerance(text):
    """--tolerance: a finite percentage of 0 or more (nan would let every
    difference pass: no comparison with nan is true)."""
    try:
        v = float(text)
    except ValueError:
        v = None
    if v is None or not math.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(f"expected a finite percentage of 0 or more, got '{text}'")
    return v


def results_path(run):
    path = run if os.path.basename(run).endswith(".tsv") else os.path.join(run, "results.tsv")
    if os.path.isdir(path):
        raise InputError(f"{path}: a folder (expected a run folder with results.tsv, or a results.tsv)")
    if os.path.exists(path) and not os.path.isfile(path):
        raise InputError(f"{path}: not a regular file (expected a run folder with results.tsv, or a results.tsv)")
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file (expected a run folder with results.tsv, or a results.tsv)")
    return path


def load_results(run):
    path = results_path(run)
    try:
        table = read_tsv(path)
    except TableError as e:
        raise InputError(str(e)) from None
    if not table or not table[0]:
        raise InputError(f"{path}: empty (expected a header line and rows)")
    width = len(table[0])
    for n, row in enumerate(table[1:], 2):
        if len(row) != width:
            raise InputError(f"{path}:{n}: {len(row)} cells, the header has {width}")
    return path, table


def load_params(run):
    """{name: (value, origin)} of the run's params.tsv (origin "" when it has
    no origin column); {} when there is none (a bare results.tsv)."""
    path = os.path.join(os.path.dirname(results_path(run)), "params.tsv")
    try:
        rows = read_tsv(path)
    except TableError as e:
        raise InputError(str(e)) from None
    if not rows or rows[0][:2] != ["name", "value"]:
        return {}
    at = rows[0].index("origin") if "origin" in rows[0] else None
    return {r[0]: (r[1], r[at] if at is not None and len(r) > at else "") for r in rows[1:] if len(r) >= 2}


def keyed_rows(table):
    """[(key, row)] in the table's order (rows are whole: load_results checked)."""
    if "bytes" in table[0]:
        return list(zip(row_keys(table), table[1:]))
    return [(r[0], r) for r in table[1:]]


def print_params(params):
    """The parameters that differ (param_diff.py): set ones, then defaults,
    then instances only some runs have, one line each."""
    # A run without params.tsv (a bare results.tsv) has no parameters to
    # differ: left out, or all its others' would be "only in some runs".
    numbers = [i + 1 for i, p in enumerate(params) if p]
    without = [i + 1 for i, p in enumerate(params) if not p]
    if without:
        verdict = "compared among the others" if len(numbers) > 1 else "not compared"
        print(f"parameters: no params.tsv for run{'' if len(without) == 1 else 's'} "
              f"{', '.join(map(str, without))}: {verdict}")
    if len(numbers) < 2:
        return
    chosen, kept, collapsed, count = differences([p for p in params if p], numbers)
    if not (chosen or kept or collapsed):
        print("parameters: the same in every run" + (" that has them" if without else ""))
        return
    header = ["name"] + [f"run {n}" for n in numbers]
    if chosen:
        print("parameters that differ, set by a config file, case or option:")
        print_aligned([header] + chosen)
    if kept:
        print("parameters that differ, defaults (the model's or a variant's):")
        print_aligned([header] + kept)
    if collapsed:
        print(f"parameters of instances only some runs have: {count} parameters in {len(collapsed)} "
              f"line{'' if len(collapsed) == 1 else 's'}:")
        width = max(len(c[0]) for c in collapsed)
        for shown, where, how_many in collapsed:
            print(f"  {shown.ljust(width)}  {where} ({how_many})")


def read_cell(rows, key, column):
    """One value of a run: (text to show, value or None, problem or None).
    A row or column the run lacks has no value and no problem (that is a
    missing value, counted as such); a cell that is empty or not a finite
    number (nan, inf, text) is a problem: no difference can be computed."""
    if key not in rows or column is None:
        return "-", None, None
    text = rows[key][column]
    if not text.strip():
        return "(empty)", None, "empty"
    v = float(text) if is_number(text) else math.nan
    if not math.isfinite(v):
        return f"{text} (not a number)", None, "not a number"
    return text, v, None


def compare(tables, metrics, tolerance):
    """(rows to print, worst (percent, where) or None, values beyond tolerance,
    values one of the two runs has and the other not, cells that are empty
    or not finite numbers)."""
    rows_of = [keyed_rows(t) for t in tables]
    keyed = [dict(r) for r in rows_of]
    keys = list(dict.fromkeys(k for r in rows_of for k, _ in r))
    out = []
    worst = None
    beyond = 0
    missing = 0
    invalid = 0
    for m in metrics:
        cols = [t[0].index(m) if m in t[0] else None for t in tables]
        for k in keys:
            cells = [f"{m}@{k}"]
            base = base_problem = None
            for i, (rows, c) in enumerate(zip(keyed, cols)):
                text, v, problem = read_cell(rows, k, c)
                if problem:
                    invalid += 1
                if i == 0:
                    base, base_problem = v, problem
                    cells.append(text)
                    continue
                if problem or base_problem or (v is None and base is None):
                    cells.append(text)
                    continue
                if v is None or base is None:
                    missing += 1
                    cells.append("- (missing)" if v is None else f"{text} (run 1: -)")
                    continue
                if base == 0:
                    # No percentage from 0; any other value is infinitely far.
                    d = 0.0 if v == 0 else math.copysign(math.inf, v)
                else:
                    d = (v / base - 1) * 100
                mark = ""
                if tolerance is not None and abs(d) > tolerance:
                    mark = " *"
                    beyond += 1
                if worst is None or abs(d) > abs(worst[0]):
                    worst = (d, f"{m} at {k}")
                cells.append(f"{text} ({d:+.2f}%){mark}")
            out.append(cells)
    return out, worst, beyond, missing, invalid


def runs_without_common_rows(tables):
    """Indexes of the runs after the first that share no row with it."""
    first = {k for k, _ in keyed_rows(tables[0])}
    return [i for i, t in enumerate(tables) if i > 0 and not first & {k for k, _ in keyed_rows(t)}]


def main(argv):
    a = parse_args(argv)
    problem = a.tsv and output_file_problem(a.tsv)
    if problem:  # before the comparison is printed
        print(f"m2vp compare: error: --tsv {problem}", file=sys.stderr)
        return 2
    try:
        loaded = [load_results(r) for r in a.runs]
        params = [load_params(r) for r in a.runs]
    except InputError as e:
        print(f"m2vp compare: error: {e}", file=sys.stderr)
        return 2
    tables = [t for _, t in loaded]
    names = [os.path.dirname(p) or p for p, _ in loaded]
    metrics = a.metric or [m for m in DEFAULT_METRICS if m in tables[0][0]]
    for m in a.metric:
        if not any(m in t[0] for t in tables):
            print(f"m2vp compare: error: --metric {m}: no run's results.tsv has that column "
                  f"(columns of {loaded[0][0]}: {', '.join(tables[0][0])})", file=sys.stderr)
            return 2
    if not metrics:
        print(f"m2vp compare: error: {loaded[0][0]} has none of the columns "
              f"{', '.join(DEFAULT_METRICS)}: name the ones to compare with --metric", file=sys.stderr)
        return 2

    for i in runs_without_common_rows(tables):
        print(f"m2vp compare: error: {loaded[i][0]} has no row in common with {loaded[0][0]} "
              f"(rows of the first: {', '.join(k for k, _ in keyed_rows(tables[0])[:6]) or 'none'}; "
              f"of this one: {', '.join(k for k, _ in keyed_rows(tables[i])[:6]) or 'none'})", file=sys.stderr)
        return 2

    for i, n in enumerate(names):
        print(f"run {i + 1}: {n}")
    if any(params):
        print_params(params)
    else:
        print("parameters: no params.tsv to compare")
    rows, worst, beyond, missing, invalid = compare(tables, metrics, a.tolerance)
    header = ["row"] + [f"run {i + 1}" for i in range(len(names))]
    print_aligned([header] + rows)
    if worst is not None:
        print(f"largest difference from run 1: {worst[0]:+.2f}% ({worst[1]})")
    if a.tsv:
        try:
            write_tsv(a.tsv, [header] + rows)
        except OutputError as e:
            print(f"m2vp compare: error: --tsv {e}", file=sys.stderr)
            return 2
    if missing:
        print(f"{missing} value(s) only in run 1 or only in a later run (marked: missing, run 1: -)")
    if invalid:
        print(f"{invalid} value(s) empty or not a finite number (marked: empty, not a number): not compared")
    if a.tolerance is not None:
        print(f"{beyond} value(s) differ from run 1 by more than {a.tolerance:g}%")
        return 1 if beyond or missing or invalid else 0
    return 0


if __name__ == "__main__":
    sys.stdout.reconfigure(errors="surrogateescape")  # paths that are not UTF-8, printed as they are
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # e.g. | head: the reader has what it wanted
        sys.stderr.close()
        sys.exit(0)
