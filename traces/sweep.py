#!/usr/bin/env python3
"""Runs the cross product of parameter variants of one config, in parallel,
then prints a side-by-side table of their results and writes it with the
overlay plots.

  sweep.py --sim M2VP_SIM CONFIG --vary NAME=V1,V2 [--vary ...] [--jobs N]
           [--metric COLUMN] [--out DIR] [--set NAME=VALUE ...]
           [--engine local|parallel|slurm] [--parallel-args '...'] [--slurm-args '...']

Each variant runs `m2vp-sim run CONFIG --set ...` into DIR/<variant>/ (its
params.tsv records the full parameter set, so any row can be reproduced).
The summary goes to DIR/sweep.tsv; with a measurement table that has a
`bytes` column, the chosen metric (default mbps, else latency_us) is shown
per size and variant and plotted (DIR/sweep_<metric>.png/.svg).
The runs are the lines of DIR/jobs.txt (traces/joblist.py); --engine says
what runs them (traces/engines.py).
"""
import argparse
import hashlib
import itertools
import os
import re
import sys

from engines import Interrupted, add_engine_options, check_engine_options, join_pass_through, run_jobs
from output_files import OutputError, output_folder
from plots import figure
from plots import variants as variant_plot
from runs import (EXIT_USAGE, TableError, UsageParser, add_to_run_manifest, choose_metric, declared_cases,
                  metric_by_size, print_aligned, read_tsv, run_stats, sizes_of, start_run_manifest,
                  table_problem, unknown_metric, write_tsv)


def parse_args(argv):
    p = UsageParser(prog="m2vp sweep", description=__doc__.split("\n\n")[0],
                    usage="m2vp sweep CONFIG --vary NAME=V1,V2,... [--vary ...] [--set NAME=VALUE]... [--jobs N] "
                          "[--metric COLUMN] [--out DIR] [--engine local|parallel|slurm] [--parallel-args '...'] "
                          "[--slurm-args '...']")
    p.add_argument("--sim", required=True, help=argparse.SUPPRESS)  # given by ./m2vp
    p.add_argument("config")
    p.add_argument("--vary", action="append", default=[], metavar="NAME=V1,V2,...")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="for every variant")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--metric", default=None, help="results.tsv column to compare (default: mbps or latency_us)")
    p.add_argument("--out", default=None, help="default: traces/<config name>/sweep")
    p.add_argument("--out-force", action="store_true", help="to every variant's run (m2vp-sim run --out-force)")
    add_engine_options(p)
    a = p.parse_args(join_pass_through(argv))
    check_engine_options(p, a)
    if not a.vary:
        p.error("give at least one --vary NAME=V1,V2,...")
    axes = []
    for v in a.vary:
        name, eq, values = v.partition("=")
        if not eq or not name or not values:
            p.error(f"--vary '{v}': expected NAME=V1,V2,...")
        axes.append((name, values.split(",")))
    if len(declared_cases(a.sim, a.config)) > 1:  # a header line and a case at least
        p.error(f"{a.config} declares cases (m2vp-sim cases {a.config} lists them): a sweep varies a config "
                f"without cases; run its cases with ./m2vp run, or sweep one case's settings in a config of its own")
    return a, axes


# Longer variant folder names are cut and get a hash of the whole name.
LONGEST_DIR = 120


def variant_dir(settings):
    """The variant's folder name: its settings, name-value, in characters a
    folder name can hold. One over LONGEST_DIR characters keeps its start and
    ends in a hash of all the settings, so that variants that differ only
    after the cut still get folders of their own."""
    text = "_".join(f"{n}-{v}" for n, v in settings)
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "-", text.replace("*", "x"))
    if len(name) <= LONGEST_DIR:
        return name
    whole = "\n".join(f"{n}={v}" for n, v in settings).encode("utf-8", "surrogateescape")  # any argv bytes
    digest = hashlib.sha1(whole).hexdigest()[:12]
    return f"{name[:LONGEST_DIR - 13]}-{digest}"


def shared_dirs(variants):
    """An error message naming two variants that would share a folder (the
    same settings twice, or names that differ only in characters a folder
    name replaces: 'a b' and 'a/b'); None when every folder is its own."""
    seen = {}
    for v in variants:
        d = variant_dir(v)
        if d in seen:
            return (f"variants {describe(seen[d])} and {describe(v)} would share the folder {d}/ "
                    f"(give each value once; values that differ only in characters other than letters, digits "
                    f"and _.=- need a different spelling)")
        seen[d] = v
    return None


def describe(settings):
    return ", ".join(f"{n}={v}" for n, v in settings)


def variant_command(sim, config, settings, common, out):
    cmd = [sim, "run", config, "--quiet", "--out", out]
    for s in common:
        cmd += ["--set", s]
    for n, v in settings:
        cmd += ["--set", f"{n}={v}"]
    return cmd


def main(argv):
    a, axes = parse_args(argv)
    name = os.path.splitext(os.path.basename(a.config))[0]
    out = a.out or os.path.join("traces", name, "sweep")
    variants = [list(zip([n for n, _ in axes], combo)) for combo in itertools.product(*[vs for _, vs in axes])]
    clash = shared_dirs(variants)
    if clash:
        print(f"m2vp sweep: error: {clash}", file=sys.stderr)
        return EXIT_USAGE
    try:
        output_folder(out)
        # As a run's folder: refused when it holds what no run wrote (unless
        # --out-force), an earlier sweep's tables and plots go, and the folder
        # stays locked until this process ends (docs/usage.md).
        start_run_manifest(out, a.sim, a.out_force)
    except (OutputError, RuntimeError) as e:
        print(f"m2vp sweep: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    for v in variants:  # a variant that fails early must not show an earlier sweep's table
        for f in ("results.tsv", "stats.tsv"):
            path = os.path.join(out, variant_dir(v), f)
            if os.path.isfile(path) or os.path.islink(path):
                os.remove(path)
    try:
        results = run_jobs(a, [variant_command(a.sim, a.config, v, a.set, os.path.join(out, variant_dir(v)))
                               + (["--out-force"] if a.out_force else [])
                               for v in variants], out, "sweep")
    except Interrupted as e:
        print(f"m2vp sweep: interrupted (signal {int(e.args[0])}): nothing merged", file=sys.stderr)
        return 128 + int(e.args[0])
    except (OutputError, RuntimeError, ValueError) as e:
        print(f"m2vp sweep: error: {e}", file=sys.stderr)
        return 1

    # Per variant: exit code, simulated time, and its measurement table.
    rows = []
    tables = []
    for i, v in enumerate(variants):
        d = os.path.join(out, variant_dir(v))
        rc, err, warnings = results[i]
        # A table the run left unreadable fails the variant, named in its error.
        try:
            tables.append(read_tsv(os.path.join(d, "results.tsv")))
            sim_time = run_stats(d).get(("run", "sim_time_us"), "")
        except TableError as e:
            tables.append([])
            sim_time = ""
            rc, err = rc or 1, f"error: {e}"
        for w in warnings:
            print(f"variant {describe(v)}: {w}")
        rows.append({"variant": describe(v), "dir": variant_dir(v), "exit": rc, "sim_time_us": sim_time,
                     "error": err})

    bad_metric = unknown_metric(tables, a.metric)
    if bad_metric:
        print(f"m2vp sweep: error: {bad_metric}", file=sys.stderr)
        return EXIT_USAGE
    metric = choose_metric(tables, a.metric)
    for row, t in zip(rows, tables):  # a damaged table fails its variant, named
        problem = table_problem(os.path.join(out, row["dir"], "results.tsv"), t, metric)
        if problem and not row["error"]:
            row["exit"], row["error"] = row["exit"] or 1, f"error: {problem}"
    summary = os.path.join(out, "sweep.tsv")
    sizes = sizes_of(tables) if metric else []
    table = [["variant", "exit", "sim_time_us"] + [f"{metric}@{s}" for s in sizes]]
    for row, t in zip(rows, tables):
        vals = metric_by_size(t, metric) if metric else {}
        table.append([row["variant"], str(row["exit"]), row["sim_time_us"]] + [vals.get(s, "") for s in sizes])
    try:
        write_tsv(summary, table)
        add_to_run_manifest(out, [summary])
        # Side by side on the terminal.
        print_aligned(table)
        for row in rows:
            if row["exit"]:
                print(f"variant {row['variant']}: exit code {row['exit']} {row['error']}")
        if metric:
            plot(out, metric, rows, tables)
    except OutputError as e:
        print(f"m2vp sweep: error: {e}", file=sys.stderr)
        return 1
    print(f"sweep: {len(variants)} variant{'' if len(variants) == 1 else 's'} in {out}/ (summary: {summary})")
    return 1 if any(r["exit"] for r in rows) else 0


def plot(out, metric, rows, tables):
    """The metric per size, one line per variant and row kind
    (plots/variants.py)."""
    if figure.plt is None:
        print("sweep: python3-matplotlib is missing; no plots")
        return
    if not variant_plot.plot(out, metric, rows, [metric_by_size(t, metric) for t in tables]):
        print(f"sweep: no {metric} value to plot")


if __name__ == "__main__":
    sys.stdout.reconfigure(errors="surrogateescape")  # argv bytes that are not UTF-8, printed as given
    sys.exit(main(sys.argv[1:]))
