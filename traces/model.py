#!/usr/bin/env python3
"""`./m2vp model`: an analytical model of the cluster fitted from platform
runs, validated against the platform and projected past it (experiment 9,
docs/experiments.md).

  model.py --sim M2VP_SIM [--nodes 16,64] [--sizes 16,4k] [--msgs 2]
           [--reuse DIR] [--out DIR] [--jobs N] [--project 1024,4096]

Runs the microbenchmarks the model is fitted from (model_fit.py) and
experiment 6's patterns at the --nodes counts for every shape the simulator
builds, into OUT/runs/ (or reads them from --reuse DIR: nothing runs then),
prints model against simulation with the error, and writes OUT/params.tsv,
OUT/validation.tsv, OUT/projection.tsv (and .md) and the projection plots.
"""
import argparse
import math
import os
import subprocess
import sys

import model_boxes
import model_fit
import model_requests
import model_shapes
from model_predict import PATTERNS, predict
from output_files import OutputError, output_folder, replacing
from runs import EXIT_USAGE, UsageParser, print_aligned, run_parallel, write_tsv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIT_SIZES = "16,256,4k,64k"
FIT_HOPS = (1, 2, 3)
CHECK_HOPS = 5  # a ping-pong over more boxes than the fit saw: the unloaded check
GOAL_UNLOADED, GOAL_LOADED = 10.0, 20.0  # percent


def parse_size(text):
    t = text.strip().lower()
    mult = {"k": 1024, "m": 1 << 20}.get(t[-1:], 1)
    if mult > 1:
        t = t[:-1]
    if not t.isdigit() or int(t) * mult < 16:
        raise ValueError(f"'{text}' is not a size of at least 16 bytes (16, 256, 4k, ...)")
    return int(t) * mult


def parse_count(text):
    t = text.strip()
    if not t.isdigit():
        raise ValueError(f"'{text}' is not a whole number of nodes")
    return int(t)


def parse_list(option, text, conv):
    try:
        return [conv(v) for v in text.split(",") if v.strip()]
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{option}: {e}") from None


def parse_args(argv):
    p = UsageParser(prog="m2vp model", description=__doc__.split("\n\n")[0],
                    usage="m2vp model [--nodes 16,64] [--sizes 16,4k] [--msgs 2] [--reuse DIR] [--out DIR] "
                          "[--jobs N] [--project 1024,4096]")
    p.add_argument("--sim", default=None, help=argparse.SUPPRESS)  # given by ./m2vp
    p.add_argument("--nodes", default="16,64", help="node counts to validate at, 2 to 256 (default 16,64)")
    p.add_argument("--sizes", default="16,4k", help="message sizes of the validation runs and the projections, "
                   "in bytes, k or m for KiB or MiB (default 16,4k)")
    p.add_argument("--msgs", type=int, default=2, help="messages per pair of the validation runs it makes (with --reuse "
                   "the runs' own count is read from them) and of the projections, at most 255/(n-1) as scale.c "
                   "allows (default 2)")
    p.add_argument("--reuse", default=None, metavar="DIR", help="read the runs from DIR (an earlier OUT/runs: every fit run and a scale-SHAPE-N run per --nodes N); nothing runs")
    p.add_argument("--out", "-o", default=os.path.join(ROOT, "traces", "model"),
                   help="folder for params.tsv, validation.tsv, projection.* and plots (the runs in OUT/runs)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="simulations run at once (default: the cores)")
    p.add_argument("--project", default="1024,4096", help="node counts to project to, besides 16, 64, 256 and the "
                   "validated ones (default 1024,4096; a fat tree only at 4^n nodes above 529; 16384 nodes take "
                   "minutes and about 2 GB)")
    a = p.parse_args(argv)
    try:
        a.nodes = parse_list("--nodes", a.nodes, parse_count)
        a.sizes = parse_list("--sizes", a.sizes, parse_size)
        a.project = parse_list("--project", a.project, parse_count)
    except argparse.ArgumentTypeError as e:
        p.error(str(e))
    if not a.nodes:
        p.error("--nodes: at least one node count to validate at (e.g. 16,64)")
    if not a.sizes:
        p.error("--sizes: at least one message size (e.g. 16,4k)")
    for option, counts in (("--nodes", a.nodes), ("--project", a.project)):
        for n in counts:
            if n < 2:
                p.error(f"{option}: {n}: at least 2 nodes")
    if any(n > 256 for n in a.nodes):
        p.error("--nodes: the platform builds at most 256 nodes (larger counts are --project)")
    if a.msgs < 1:
        p.error("--msgs: at least 1")
    if a.reuse is None and not a.sim:
        p.error("give --sim (./m2vp model does) or --reuse DIR")
    return a


def chain_links(hops):
    """Two nodes `hops` switch boxes apart on a chain (platform cabling)."""
    ends = ["node0:sb0.0", f"node1:sb{hops - 1}.1"]
    ends += [f"sb{j}.7:sb{j + 1}.6" for j in range(hops - 1)]
    return " ".join(ends)


def two_box_links(per_box):
    """2 * per_box nodes, per_box on each of two boxes, one cable between."""
    ends = [f"node{i}:sb{i // per_box}.{i % per_box}" for i in range(2 * per_box)]
    return " ".join(ends + ["sb0.7:sb1.7"])


def shapes_available(sim):
    """{shape: how it is built}: the simulator's topology.shape where it has
    one (issue 29, part 2), else a tree from generated `topology.links`
    cabling (its up*/down* routes are the tree's own); a fat tree needs the
    builder's d-mod-k routes and is left out then."""
    probe = subprocess.run([sim, "params", os.path.join(ROOT, "configs", "scale-16.yaml"), "--set",
                            "topology.shape=tree"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if probe.returncode == 0:
        return {"chain": "shape", "tree": "shape", "fat-tree": "shape"}
    return {"chain": "shape", "tree": "links"}


def topology_sets(shape, how, nodes):
    if shape == "chain":
        return ["--set", f"topology.nodes={nodes}"]
    if how == "shape":
        return ["--set", f"topology.nodes={nodes}", "--set", f"topology.shape={shape}"]
    links = model_shapes.links_string(model_shapes.build(shape, nodes))
    return ["--set", f"topology.nodes={nodes}", "--set", f"topology.links={links}"]


def scale_args(patterns, sizes, msgs):
    return ["--set", f"node*.host.args=--patterns {patterns} --sizes {sizes} --msgs {msgs}"]


def validation_msgs(msgs, nodes):
    # scale.c posts a phase's receives and its start's from MMP's 256 handles.
    return max(1, min(msgs, 255 // (nodes - 1)))


def plan_runs(a, shapes):
    """{run name: m2vp-sim arguments after `run`}: the fit's microbenchmarks
    and the validation runs."""
    cfg = lambda name: os.path.join(ROOT, "configs", name)  # noqa: E731
    pingpong = ["--set", "sim.messages=true", "--set", f"node*.host.args=--sizes {FIT_SIZES} --iters 4 --warmup 1"]
    runs = {"logp": [cfg("logp.yaml"), "--case", "layer=mmp"]}
    for h in FIT_HOPS + (CHECK_HOPS,):
        name = f"pingpong-h{h}" if h in FIT_HOPS else f"check-pingpong-h{h}"
        runs[name] = ([cfg("mmp-pingpong.yaml"), "--set", "topology.switch_boxes=0", "--set",
                       f"topology.links={chain_links(h)}"] + pingpong)
    runs["ni-8"] = [cfg("scale-8.yaml")] + scale_args("alltoall,hotspot", FIT_SIZES, 4)
    runs["link-14"] = ([cfg("scale-16.yaml"), "--set", "topology.nodes=14", "--set",
                        f"topology.links={two_box_links(7)}"] + scale_args("alltoall", FIT_SIZES, 2))
    # The same two boxes routing small messages only: their firmware's time per header.
    runs["sb-14"] = ([cfg("scale-16.yaml"), "--set", "topology.nodes=14", "--set",
                      f"topology.links={two_box_links(7)}"] + scale_args("alltoall", "16", 4))
    # One box's 16 B all-to-all, its sends traced: the NI's time per request.
    runs[model_requests.RUN] = ([cfg("scale-8.yaml"), "--set", "sim.messages=true"] +
                                scale_args("alltoall", str(model_requests.RUN_BYTES), 2))
    sizes = ",".join(str(s) for s in a.sizes)
    for n in a.nodes:
        for shape, how in shapes.items():
            runs[f"scale-{shape}-{n}"] = ([cfg("scale-16.yaml")] + topology_sets(shape, how, n) +
                                          scale_args("alltoall,neighbour,hotspot", sizes, validation_msgs(a.msgs, n)))
    return runs


# Runs the fit reads; requests-8 is checked by its own reader (model_requests).
FIT_RUN_NAMES = ("logp",) + tuple(f"pingpong-h{h}" for h in FIT_HOPS) + ("ni-8", "link-14", "sb-14")
CHECK_RUN_NAME = f"check-pingpong-h{CHECK_HOPS}"


def check_reused_runs(folder, nodes):
    """Notes on what an earlier runs folder lacks for this command; a
    ModelInputError naming the first missing run the fit or the unloaded
    check needs, or a node count with no validation run at all (a fit from
    fewer runs, or rows that silently vanish, would pass for a result)."""
    for name in FIT_RUN_NAMES + (CHECK_RUN_NAME,):
        if not os.path.isdir(os.path.join(folder, name)):
            raise model_fit.ModelInputError(
                f"--reuse {folder}: no run {name} (expected every fit run ./m2vp model makes: "
                f"{', '.join(FIT_RUN_NAMES + (model_requests.RUN, CHECK_RUN_NAME))})")
    notes = []
    for n in nodes:
        names = [f"scale-{s}-{n}" for s in model_shapes.SHAPES]
        have = [x for x in names if os.path.isdir(os.path.join(folder, x))]
        if not have:
            raise model_fit.ModelInputError(f"--reuse {folder}: no validation run for {n} nodes "
                                            f"(expected one of {', '.join(names)})")
        notes += [f"--reuse {folder} has no {x}: that shape is not validated at {n} nodes"
                  for x in names if x not in have]
    return notes


def run_all(a, runs, folder):
    names = list(runs)
    cmds = [[a.sim, "run"] + runs[n][:1] + ["--out", os.path.join(folder, n), "--out-force", "--quiet"] + runs[n][1:]
            for n in names]
    results = run_parallel(cmds, a.jobs, "model runs")
    failed = [(n, rc, why) for n, (rc, why, _) in zip(names, results) if rc != 0]
    for n, rc, why in failed:
        print(f"m2vp model: run {n} failed (exit {rc}): {why}", file=sys.stderr)
    return {n for n, _, _ in failed}


def pct(model, sim):
    return 100.0 * (model - sim) / sim if sim else math.nan


def fmt(v, digits=4):
    """A float with `digits` significant digits, as a whole number from
    10^digits up (15704, not 1.57e+04); anything else as it is."""
    if not isinstance(v, float):
        return str(v)
    if math.isfinite(v) and abs(v) >= 10 ** digits:
        return str(round(v))
    return f"{v:.{digits}g}"


# predict()'s quantities written beside each validation row (names as in
# docs/experiments.md): T0 at the mean and the longest path, the busiest
# channel's held time t* and flows L, the busiest box's headers H, the
# closed rounds' intake and early-send terms, the hot spot's observed
# position, skipped posted receives, first delivery and mean send delay,
# the ring's farthest pair's wait on its cables and the start offset of the
# phase's last node.
INSIDE_COLUMNS = ("t0_us", "t0_max_us", "t_star_us", "max_load", "box_headers", "intake_us", "early_us",
                  "position", "skipped", "t_first_us", "send_delay_us", "wrap_us", "start_us")
INSIDE_KEYS = ("t0_us", "t0_max_us", "t_ch_held_us", "max_load", "box_headers", "intake_us", "early_us",
               "wait_position", "skipped", "t_first_us", "send_delay_us", "wrap_us", "start_us")


def inside_values(p):
    return ["" if p.get(k) is None else p[k] for k in INSIDE_KEYS]


def validate(model, folder, a, shapes):
    """Rows model against simulation: the unloaded check, then each
    (shape, nodes, pattern, size) phase."""
    # After the bound, the model's own quantities of the row, so that a row can
    # be checked by hand against the equations (docs/experiments.md, experiment 9).
    rows = [["kind", "shape", "nodes", "pattern", "bytes", "hops", "sim_us", "model_us", "err_pct",
             "sim_mbps", "model_mbps", "mbps_err_pct", "bound"] + list(INSIDE_COLUMNS)]
    check = os.path.join(folder, f"check-pingpong-h{CHECK_HOPS}", "messages.csv")
    if os.path.exists(check):
        for s, m in model_fit.read_breakdown(check).items():
            pred = model_fit.unloaded_latency(model["unloaded"], s, CHECK_HOPS)
            rows.append(["unloaded", "chain", 2, "pingpong", s, CHECK_HOPS, m["total_us"], pred,
                         pct(pred, m["total_us"]), "", "", "", "latency", pred] + [""] * (len(INSIDE_COLUMNS) - 1))
    for n in a.nodes:
        for shape in model_shapes.SHAPES:
            path = os.path.join(folder, f"scale-{shape}-{n}", "results.tsv")
            if shape not in shapes or not os.path.exists(path):
                continue
            phases = model_fit.read_scale(path)
            for size in sorted(set(a.sizes) - {r["bytes"] for r in phases}):
                print(f"m2vp model: note: {path} has no {size}-byte phase: not validated", file=sys.stderr)
            for r in phases:
                if r["bytes"] not in a.sizes or r["pattern"] not in PATTERNS:
                    continue
                p = predict(model, shape, n, r["pattern"], int(r["bytes"]), model_fit.rounds_of(r))
                rows.append(["loaded", shape, n, r["pattern"], int(r["bytes"]), round(p["mean_hops"], 3),
                             r["mean_us"], p["mean_us"], pct(p["mean_us"], r["mean_us"]), r["mbps"], p["mbps"],
                             pct(p["mbps"], r["mbps"]), p["bound"]] + inside_values(p))
    return rows


def param_rows(model):
    u, lp, sv = model["unloaded"], model["logp"], model["service"]
    rows = [["parameter", "value", "unit", "from"],
            ["o_s", lp["o_s_us"], "us", "logp/results.tsv (mmp)"],
            ["o_r", lp["o_r_us"], "us", "logp/results.tsv (mmp)"],
            ["g (1952 B)", lp["g_us"], "us", "logp/results.tsv (mmp)"],
            ["end_us", u["end_us"], "us", "ping-pong fit: the two ends"],
            ["end_ns_per_byte", u["end_us_per_byte"] * 1e3, "ns/B", "ping-pong fit: the two ends"],
            ["hop_us", u["hop_us"], "us", "ping-pong fit: per switch box and cable"],
            ["hop_ns_per_byte", u["hop_us_per_byte"] * 1e3, "ns/B", "ping-pong fit: per box, last chunk"]]
    for name, what in (("g_bi", "ni-8 alltoall"), ("g_r", "ni-8 hotspot"), ("t_ch", "link-14 alltoall")):
        rows.append([f"{name}_us", sv[name]["us"], "us", what])
        rows.append([f"{name}_ns_per_byte", sv[name]["us_per_byte"] * 1e3, "ns/B", what])
        if sv[name].get("floor_us"):
            rows.append([f"{name}_floor_us", sv[name]["floor_us"], "us", what + ": the smallest size's, the least a message takes"])
    rows.append(["t_sb_us", model["switch_box"]["us_per_header"], "us",
                 "sb-14: switch boxes' CPU busy time per header routed"])
    rows.append(["t_skip_us", model["ni_cpu"]["us_per_skip"], "us",
                 "ni-8/params.tsv: the MMP firmware's 13 instructions per posted receive walked past"])
    rows.append(["q_request_us", model["requests"]["us_per_request"], "us",
                 f"{model_requests.RUN}: the MMP firmware's time per request taken (traced 16 B all-to-all)"])
    for s, c in model["hop_components"].items():
        for k, v in c.items():
            rows.append([f"per_box_{k[:-3]}@{s}B", v, "us", f"pingpong-h{max(model['breakdowns'])} stages"])
    return [[fmt(c) for c in r] for r in rows]


# The projections leave scale.c's start stagger out (the validation keeps
# it: it predicts experiment 6's measured phase): scale.c runs at most 256
# nodes (MMP's addresses), so at 1024 and 4096 nodes there is no benchmark
# whose start they would stand for, and its (n - 1) x 0.1 us would be most
# of a ring's one-round phase there (409.5 us at 4096 nodes against a round
# of tens of us): the network's figure, not the benchmark's start.
PROJECTION_STAGGER_US = 0.0


def not_projected(shape, nodes):
    """Why the model cannot project this shape at this node count, or None.
    A fat tree's all-to-all is in closed form for a full k-ary n-tree only
    (N = k^n, model_blocking.fat_tree_alltoall); other counts are walked
    route by route, which is bounded (model_boxes.WALK_ROUTES)."""
    if shape != "fat-tree":
        return None
    k, levels = model_shapes.fat_tree_levels(nodes)
    routes = -(-nodes // k) * nodes  # leaves x destination nodes (model_boxes.routes_to_walk)
    if k ** levels == nodes or routes <= model_boxes.WALK_ROUTES:
        return None
    return (f"a fat tree of {nodes} nodes is not projected: it is not a full {k}-ary tree ({k}^n nodes: "
            f"{k ** (levels - 1)} or {k ** levels}), and its {routes} routes are more than the model walks "
            f"({model_boxes.WALK_ROUTES})")


def projection(model, a):
    """(rows, notes): the projection's rows (unrounded; written with fmt) and
    why a shape was left out at a node count."""
    counts = sorted(set(a.nodes + [16, 64, 256] + a.project))
    msgs = a.msgs
    rows = [["shape", "nodes", "switch_boxes", "pattern", "bytes", "mean_hops", "t0_us", "mean_us", "mbps", "bound"]]
    notes = []
    for shape in model_shapes.SHAPES:
        for n in counts:
            why = not_projected(shape, n)
            if why:
                notes.append(why)
                continue
            for pat in PATTERNS:
                for s in a.sizes:
                    p = predict(model, shape, n, pat, s, validation_msgs(msgs, n), stagger_us=PROJECTION_STAGGER_US)
                    rows.append([shape, n, p["sbs"], pat, s, p["mean_hops"], p["t0_us"], p["mean_us"], p["mbps"],
                                 p["bound"]])
    return rows, notes


def markdown(rows):
    head = rows[0]
    # Text columns (shape, pattern, bound) left, numbers right.
    numeric = [all(isinstance(r[i], (int, float)) for r in rows[1:]) for i in range(len(head))]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    out += ["| " + " | ".join(fmt(c) for c in r) + " |" for r in rows[1:]]
    return "\n".join(out) + "\n"


def plots(rows, out):
    """Latency and throughput per node against nodes, one line per shape,
    one panel per pattern and size."""
    try:
        from plots import figure
        import matplotlib.pyplot as plt
    except ImportError:
        print("m2vp model: matplotlib is missing (Debian: python3-matplotlib): no plots", file=sys.stderr)
        return []
    head, body = rows[0], rows[1:]
    col = {c: i for i, c in enumerate(head)}
    written = []
    keys = sorted({(r[col["pattern"]], r[col["bytes"]]) for r in body}, key=lambda k: (PATTERNS.index(k[0]), k[1]))
    for metric, label in (("mean_us", "mean latency (µs)"), ("mbps", "throughput per node (Mbit/s)")):
        fig, axes = plt.subplots(1, len(keys), figsize=(4 * len(keys), 3.6), squeeze=False)
        data = []
        for ax, (pat, s) in zip(axes[0], keys):
            ys = []
            for shape in model_shapes.SHAPES:
                pts = [(r[col["nodes"]], r[col[metric]]) for r in body
                       if r[col["shape"]] == shape and r[col["pattern"]] == pat and r[col["bytes"]] == s]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=shape)
                data += [[shape, pat, s, x, fmt(y)] for x, y in pts]
                ys += [p[1] for p in pts if p[1] > 0]
            ax.set_xscale("log", base=2)
            # A log axis where the values span a decade or more (a ring's
            # latency hardly moves with N: a linear axis shows it readably).
            if ys and max(ys) >= 10 * min(ys):
                ax.set_yscale("log")
            elif ys:
                ax.set_ylim(0, max(ys) * 1.15)  # room above the lines for the legend
            ax.set_title(f"{pat}, {figure.human_bytes(s)}B")
            ax.set_xlabel("nodes")
            ax.set_ylabel(label)
            ax.legend(fontsize=7)
        fig.tight_layout()
        written += figure.save(fig, out, f"projection_{metric}", ["shape", "pattern", "bytes", "nodes", metric], data)
        plt.close(fig)
    return written


def main(argv):
    a = parse_args(argv)
    try:
        output_folder(a.out)
        if a.reuse:
            folder = a.reuse
            if not os.path.isdir(folder):
                raise model_fit.ModelInputError(f"--reuse {folder}: no such folder")
            for note in check_reused_runs(folder, a.nodes):
                print(f"m2vp model: note: {note}", file=sys.stderr)
            shapes = {s: "runs" for s in model_shapes.SHAPES
                      if any(os.path.isdir(os.path.join(folder, f"scale-{s}-{n}")) for n in a.nodes)}
        else:
            folder = os.path.join(a.out, "runs")
            output_folder(folder)
            shapes = shapes_available(a.sim)
            failed = run_all(a, plan_runs(a, shapes), folder)
            if failed & set(FIT_RUN_NAMES + (model_requests.RUN, CHECK_RUN_NAME)):
                print("m2vp model: a run the fit needs failed (above)", file=sys.stderr)
                return 1
        if "fat-tree" not in shapes and not a.reuse:  # (--reuse: check_reused_runs named what it lacks)
            print("m2vp model: note: no fat-tree runs (the simulator has no topology.shape yet, issue 29 part 2): "
                  "fat trees are projected only" + ("" if "tree" in shapes else "; trees too"), file=sys.stderr)
        model = model_fit.fit_all(folder)
        params = param_rows(model)
        write_tsv(os.path.join(a.out, "params.tsv"), params)
        val = validate(model, folder, a, shapes)
        write_tsv(os.path.join(a.out, "validation.tsv"), [[fmt(c) for c in r] for r in val])
        proj, proj_notes = projection(model, a)
        for note in proj_notes:
            print(f"m2vp model: note: {note}", file=sys.stderr)
        write_tsv(os.path.join(a.out, "projection.tsv"), [[fmt(c) for c in r] for r in proj])
        with replacing(os.path.join(a.out, "projection.md")) as f:
            f.write(markdown(proj))
        plots(proj, a.out)
    except (model_fit.ModelInputError, OutputError) as e:
        print(f"m2vp model: error: {e}", file=sys.stderr)
        return EXIT_USAGE if isinstance(e, OutputError) else 1
    print("Fitted parameters:")
    print_aligned(params)
    print("\nModel against simulation (mean latency; throughput per node):")
    print_aligned([[fmt(c) for c in r[:-len(INSIDE_COLUMNS)]] for r in val])  # the rest: validation.tsv
    bad = [r for r in val[1:] if abs(r[8]) > (GOAL_UNLOADED if r[0] == "unloaded" else GOAL_LOADED)]
    print(f"\n{len(val) - 1 - len(bad)} of {len(val) - 1} latencies within the goal "
          f"({GOAL_UNLOADED:g}% unloaded, {GOAL_LOADED:g}% loaded)")
    thr = [r[11] for r in val[1:] if r[0] == "loaded" and isinstance(r[11], float) and not math.isnan(r[11])]
    print(f"{sum(abs(e) <= GOAL_LOADED for e in thr)} of {len(thr)} loaded throughputs within {GOAL_LOADED:g}% "
          "(the simulation's Mbit/s per node has one decimal: small rates carry its rounding)")
    print(f"\nProjection: {os.path.join(a.out, 'projection.tsv')} (and .md, projection_*.png/svg; "
          "without scale.c's start stagger)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
