#!/usr/bin/env python3
"""Runs every case a config declares (its `cases:` key), in parallel, and
merges their tables (`./m2vp run CONFIG` on such a config).

  cases.py --sim M2VP_SIM CONFIG [--out DIR [--out-force]] [--jobs N] [--metric COLUMN]
           [--set NAME=VALUE]... [--trace PATTERN]... [--case NAME] [--quiet]
           [--engine local|parallel|slurm] [--parallel-args '...'] [--slurm-args '...']

Each case runs `m2vp-sim run CONFIG --case NAME` into DIR/<case folder>/
(its own run.log, params.tsv, results.tsv ...), the lines of DIR/jobs.txt
(traces/joblist.py) that --engine runs (traces/engines.py). Then in DIR:
  results.tsv  every case's table, one column per axis in front of the
               table's own columns (the rows of the cases one after another)
  cases.tsv    per case: its name, folder, exit code, simulated time and
               error line
  summary.tsv  with a `bytes` column: the compared column (--metric, else
               the config's `cases.show`, else mbps, else latency_us) per
               size (rows) and case (columns, labelled by their levels), the
               table this script prints
  netpipe_*.png/.svg/.tsv  NetPIPE's three views of the cases that
               measured a NetPIPE curve, one curve per case
The exit code is 0 when every case exited with 0, else the first failing
case's. With --case NAME only that case runs, as a plain m2vp-sim run.
"""
import argparse
import os
import sys

from engines import Interrupted, add_engine_options, check_engine_options, join_pass_through, run_jobs
from output_files import OutputError
from runs import (EXIT_USAGE, TableError, UsageParser, add_to_run_manifest, choose_metric, declared_cases,
                  key_heading, metric_by_size, print_aligned, read_tsv, run_stats, sizes_of,
                  start_run_manifest, table_problem, unknown_metric, write_tsv)


def parse_args(argv):
    p = UsageParser(prog="m2vp run", description=__doc__.split("\n\n")[0],
                    usage="m2vp run CONFIG [--case NAME] [--set NAME=VALUE]... [--trace PATTERN]... [--out DIR] "
                          "[--out-force] [--jobs N] [--metric COLUMN] [--quiet] [--gdb CPU=PORT]... [--gdb-all PORT] "
                          "[--engine local|parallel|slurm] [--parallel-args '...'] [--slurm-args '...']")
    p.add_argument("--sim", required=True, help=argparse.SUPPRESS)  # given by ./m2vp
    p.add_argument("config")
    p.add_argument("--out", default=None, help="default: traces/<config name>")
    p.add_argument("--out-force", action="store_true",
                   help="write into the folders even when they hold what no run wrote (m2vp-sim run --out-force)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--metric", default=None, help="results column to compare per size (default: the config's cases.show)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="for every case")
    p.add_argument("--trace", action="append", default=[], metavar="PATTERN", help="for every case")
    p.add_argument("--case", default=None, help="run only this case (m2vp-sim run --case)")
    p.add_argument("--quiet", "-q", action="store_true", help="(cases always run quietly; their output is in run.log)")
    p.add_argument("--gdb", action="append", default=[], metavar="CPU=PORT", help="with --case (m2vp-sim run --gdb)")
    p.add_argument("--gdb-all", default=None, metavar="PORT", help="with --case (m2vp-sim run --gdb-all)")
    add_engine_options(p)
    a = p.parse_args(join_pass_through(argv))
    check_engine_options(p, a)
    if a.out == "":  # not the default folder in disguise
        p.error("--out needs a folder name, got an empty one")
    if a.case and a.engine != "local":
        p.error(f"--engine {a.engine} runs a config's cases; one --case is a plain run on this machine")
    if (a.gdb or a.gdb_all) and not a.case:
        p.error("--gdb and --gdb-all need one simulation: run one case with --case NAME "
                "(m2vp-sim cases CONFIG lists them)")
    return a


def list_cases(sim, config):
    """(show column or None, axes, [(name, folder, levels)]) from `m2vp-sim cases`."""
    show, header, cases = None, None, []
    for line in declared_cases(sim, config):
        cols = line.split("\t")
        if cols[0] == "#show":
            show = cols[1]
        elif header is None:
            header = cols
        elif line:
            cases.append((cols[0], cols[1], cols[2:]))
    if not cases:
        sys.exit(f"m2vp run: {config} declares no cases")
    # Two cases in one folder would overwrite each other's files and report
    # the same results (level names with '_' and '-' can spell one folder).
    owner = {}
    for n, d, _ in cases:
        if d in owner:
            print(f"m2vp run: error: {config}: cases {owner[d]} and {n} would share the folder {d}/ "
                  f"(rename a level of one of them)", file=sys.stderr)
            sys.exit(EXIT_USAGE)
        owner[d] = n
    return show, header[2:], cases


def merge_tables(axes, cases, tables):
    """One table: the axes' levels in front of every case's rows. An axis
    named like a column of the tables gets the suffix `_case`."""
    columns = []
    for t in tables:
        columns += [c for c in (t[0] if t else []) if c not in columns]
    front = [a + "_case" if a in columns else a for a in axes]
    merged = [front + columns]
    for (_, _, levels), t in zip(cases, tables):
        if not t:
            continue
        idx = [t[0].index(c) if c in t[0] else None for c in columns]
        for r in t[1:]:
            merged.append(levels + [r[i] if i is not None and i < len(r) else "" for i in idx])
    return merged


def per_size(metric, cases, tables):
    """The metric per size (rows) and case (columns, labelled by their
    levels); "-" where a case has no value."""
    sizes = sizes_of(tables)
    labels = ["/".join(levels) for _, _, levels in cases]
    by_case = [metric_by_size(t, metric) for t in tables]
    rows = [[key_heading(tables)] + labels]
    rows += [[s] + [vals.get(s, "-") for vals in by_case] for s in sizes]
    return rows


def main(argv):
    a = parse_args(argv)
    sets = [x for s in a.set for x in ("--set", s)] + [x for t in a.trace for x in ("--trace", t)]
    sets += ["--out-force"] if a.out_force else []
    name = os.path.splitext(os.path.basename(a.config))[0]
    out = a.out or os.path.join("traces", name)
    show, axes, cases = list_cases(a.sim, a.config)
    if a.case:  # one case: a plain run into its folder
        folder = next((d for n, d, _ in cases if a.case in (n, d)), a.case)
        cmd = [a.sim, "run", a.config, "--case", a.case, "--out", os.path.join(out, folder)] + sets
        cmd += [x for g in a.gdb for x in ("--gdb", g)] + (["--gdb-all", a.gdb_all] if a.gdb_all else [])
        os.execv(a.sim, cmd + (["--quiet"] if a.quiet else []))
    # The merged tables and the plots of an earlier run of the cases go first.
    try:
        start_run_manifest(out, a.sim, a.out_force)  # and the folder stays locked until this process ends
    except RuntimeError as e:
        print(f"m2vp run: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    dirs = [os.path.join(out, d) for _, d, _ in cases]
    for d in dirs:  # a case that fails early must not show an older run's table
        for f in ("results.tsv", "stats.tsv"):
            if os.path.isfile(os.path.join(d, f)) or os.path.islink(os.path.join(d, f)):
                os.remove(os.path.join(d, f))
    try:
        results = run_jobs(a, [[a.sim, "run", a.config, "--case", n, "--quiet", "--out", d] + sets
                               for (n, _, _), d in zip(cases, dirs)], out, f"{name}: {len(cases)} cases")
    except Interrupted as e:
        print(f"m2vp run: interrupted (signal {int(e.args[0])}): nothing merged", file=sys.stderr)
        return 128 + int(e.args[0])
    except (OutputError, RuntimeError, ValueError) as e:
        print(f"m2vp run: error: {e}", file=sys.stderr)
        return 1
    tables, sim_times = read_case_outputs(dirs, results)
    try:
        return report(a, name, out, show, axes, cases, results, tables, sim_times)
    except OutputError as e:
        print(f"m2vp run: error: {e}", file=sys.stderr)
        return 1


def draw_netpipe(out, cases):
    """NetPIPE's three views over the cases that measured a NetPIPE curve
    (np.out, or results.tsv with bytes, latency_us and mbps), labelled by
    case, into the set's folder: what `./m2vp plot OUT` draws, so that one
    command gives a layer comparison's plot. The paths written; none without
    matplotlib or without such cases."""
    try:
        from plots import figure
        if figure.plt is None:
            return []
        from plots import netpipe
        from plots.readers import InputError
        from plots.runs import label_runs, read_run
    except ImportError:
        return []
    runs, labels = [], []
    for n, d, _ in cases:
        try:
            run = read_run(os.path.join(out, d))
        except InputError:
            continue  # a case that failed early: its folder holds nothing to draw
        if run.netpipe:
            runs.append(run)
            labels.append(n)
    if not runs:
        return []
    label_runs(runs, labels)
    written = netpipe.plot(runs, out)
    add_to_run_manifest(out, [os.path.basename(p) for p in written])
    return written


def read_case_outputs(dirs, results):
    """Each case's results table and simulated time; a table the case left
    unreadable fails that case (exit 1 unless it failed already), its error
    naming the file. Updates `results` in place."""
    tables, sim_times = [], []
    for i, d in enumerate(dirs):
        try:
            tables.append(read_tsv(os.path.join(d, "results.tsv")))
            sim_times.append(run_stats(d).get(("run", "sim_time_us"), ""))
        except TableError as e:
            tables.append([])
            sim_times.append("")
            rc, _, warnings = results[i]
            results[i] = (rc or 1, f"error: {e}", warnings)
    return tables, sim_times


def report(a, name, out, show, axes, cases, results, tables, sim_times):
    """Writes the merged tables, prints the summary; the exit code."""
    metric = choose_metric(tables, a.metric or show)
    for i, ((_, d, _), t) in enumerate(zip(cases, tables)):  # a damaged table fails its case, named
        problem = table_problem(os.path.join(out, d, "results.tsv"), t, metric)
        rc, err, warnings = results[i]
        if problem and not rc:
            results[i] = (1, f"error: {problem}", warnings)
    write_tsv(os.path.join(out, "results.tsv"), merge_tables(axes, cases, tables))
    write_tsv(os.path.join(out, "cases.tsv"),
              [["case", "dir", "exit", "sim_time_us", "error"]] +
              [[n, d, str(rc), t, err] for (n, d, _), (rc, err, _), t in zip(cases, results, sim_times)])
    add_to_run_manifest(out, ["results.tsv", "cases.tsv"])
    bad_metric = unknown_metric(tables, a.metric)
    if bad_metric:
        print(f"m2vp run: error: {bad_metric}", file=sys.stderr)
        return EXIT_USAGE
    if metric:
        table = per_size(metric, cases, tables)
        write_tsv(os.path.join(out, "summary.tsv"), table)
        add_to_run_manifest(out, ["summary.tsv"])
        print(f"{name}: {metric} per size (rows) and case (columns: {'/'.join(axes)})")
        print_aligned(table)
    else:
        print(f"{name}: results of {len(cases)} cases")
        print_aligned(merge_tables(axes, cases, tables))
    drawn = draw_netpipe(out, cases)
    if drawn:
        print(f"{name}: NetPIPE's three views of the cases in {out}/ (netpipe_throughput.png, "
              "netpipe_signature.png, netpipe_saturation.png)")
    for (n, _, _), (_, _, warnings) in zip(cases, results):
        for w in warnings:
            print(f"case {n}: {w}")
    failed = [(n, rc, err) for (n, _, _), (rc, err, _) in zip(cases, results) if rc]
    for n, rc, err in failed:
        print(f"case {n}: exit code {rc}: {err}")
    print(f"{name}: {len(cases)} cases in {out}/ (merged: results.tsv, per case: cases.tsv)")
    return failed[0][1] if failed else 0


if __name__ == "__main__":
    sys.stdout.reconfigure(errors="surrogateescape")  # argv bytes that are not UTF-8, printed as given
    sys.exit(main(sys.argv[1:]))
