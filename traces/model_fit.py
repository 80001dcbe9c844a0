"""The analytical model's inputs, fitted from platform runs (never from
published numbers): the run folders `./m2vp model` makes or is given, read
and reduced to the model's parameters. The equations are in model_predict.py
and docs/experiments.md (experiment 9).

Run folders under one measurement folder (names fixed, so --reuse finds them):
  logp/results.tsv          configs/logp.yaml's mmp case: o_s, o_r, g
  pingpong-h<H>/messages.csv MMP ping-pong between two nodes H switch boxes
                            apart (sim.messages): the per-stage breakdown
  ni-8/results.tsv          scale on 8 nodes, one switch box (no channel
                            between boxes): the NI's service time per message
                            sending and receiving (alltoall) and receiving only
                            (hotspot)
  link-14/results.tsv       scale on 14 nodes, 7 + 7 on two boxes (alltoall):
                            the channel between the boxes is the bottleneck
  sb-14/stats.tsv           the same 14 nodes, 16-byte all-to-all only: each
                            box's routing firmware busy with a header per
                            message (sb*.cpu idle_us, fw_result0 = headers
                            routed): its time per header
  ni-8/params.tsv           that run's parameters: the NI CPU's clock and CPI,
                            its time per posted receive skipped
                            (model_match.py)
  requests-8/messages.csv   8 nodes on one box, 16-byte all-to-all, M = 2
                            (sim.messages): each send's time to leave its
                            NI, the firmware's time per request taken
                            (model_requests.py; or a recorded sends.tsv)
"""
import csv
import math
import os

import numpy as np

# The MMP chunk's payload (ip/mmp_protocol.h: the 2 KB netbuf channel - 32):
# a message crosses each switch box chunk by chunk, so a further hop adds
# one chunk's store-and-forward, not the whole message (pipelining).
CHUNK_BYTES = 2016
# The smallest fitted size (model.py's FIT_SIZES): a message whose time at
# an NI is its CPU's per-message work alone: g_r's floor (floor_line_fit)
# and the CPU-bound g_bi of the request intake (model_predict.py).
FLOOR_BYTES = 16
# Switch-box stages of messages.csv and the cable between boxes.
SB_STAGES = ("sb_analyzer_us", "sb_routing_us", "sb_station_us", "sb_bus_us")


class ModelInputError(Exception):
    """A run folder or file the model cannot use; the message names it."""


def read_table(path, delimiter, required):
    """Rows of a TSV/CSV file as dicts; ModelInputError naming the file (and
    line) when it is missing, unreadable, lacks a column or holds a value
    that is not a finite number in a required column."""
    if not os.path.exists(path):
        raise ModelInputError(f"{path}: missing (expected a run's output file here)")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f, delimiter=delimiter))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise ModelInputError(f"{path}: cannot read ({e})") from None
    if not rows:
        raise ModelInputError(f"{path}: empty (expected a header with {', '.join(required)})")
    head = rows[0]
    missing = [c for c in required if c not in head]
    if missing:
        raise ModelInputError(f"{path}: no column {', '.join(missing)} (header: {' '.join(head)})")
    out = []
    for n, row in enumerate(rows[1:], 2):
        if not row:
            continue
        if len(row) != len(head):
            raise ModelInputError(f"{path}:{n}: {len(row)} cells, the header has {len(head)}")
        rec = dict(zip(head, row))
        for c in required:
            if c in ("pattern", "layer", "phase", "msg", "source", "key", "value"):  # text, or read by the caller
                continue
            try:
                v = float(rec[c])
            except ValueError:
                v = math.nan
            if not math.isfinite(v):
                raise ModelInputError(f"{path}:{n}: {c}: expected a number, got '{rec[c]}'")
            rec[c] = v
        out.append(rec)
    if not out:
        raise ModelInputError(f"{path}: no rows (the run wrote only a header)")
    return out


def read_logp(folder):
    path = os.path.join(folder, "logp", "results.tsv")
    rows = read_table(path, "\t", ("o_s_us", "o_r_us", "g_us", "L_us", "rtt2_us"))
    # One case's run (--case layer=mmp) has one row; the merged cases' table
    # a layer column.
    for r in rows:
        if r.get("layer", "mmp") == "mmp":
            return {k: r[k] for k in ("o_s_us", "o_r_us", "g_us", "L_us", "rtt2_us")}
    raise ModelInputError(f"{path}: no row for layer mmp")


def read_breakdown(path):
    """Mean total and stage times per size of the timed messages."""
    cols = ("bytes", "total_us", "sb_link_us") + SB_STAGES
    rows = read_table(path, ",", ("phase",) + cols)
    by_size = {}
    for r in rows:
        if r["phase"] == "timed":
            by_size.setdefault(int(r["bytes"]), []).append(r)
    if not by_size:
        raise ModelInputError(f"{path}: no timed messages (phase 'timed'; a ping-pong with sim.messages=true)")
    return {s: {c: float(np.mean([r[c] for r in rs])) for c in cols} for s, rs in sorted(by_size.items())}


def pingpong_folders(folder):
    """{hops: run folder} of the ping-pong runs present (pingpong-h<H>)."""
    found = {}
    try:
        names = os.listdir(folder)
    except OSError as e:
        raise ModelInputError(f"{folder}: cannot read the folder ({e.strerror})") from None
    for name in names:
        if name.startswith("pingpong-h") and name[10:].isdigit():
            found[int(name[10:])] = os.path.join(folder, name)
    return dict(sorted(found.items()))


def fit_unloaded(breakdowns):
    """Least squares of T(s, h) = a + b s + h (c + d min(s, C)) over the
    ping-pong means {hops: {bytes: {total_us: ...}}}: a + b s the two ends
    (host, PCI, NI firmware, DMA), c + d min(s, C) per switch box on the
    path with its cable (the last chunk's store-and-forward; the chunks
    before it pipeline behind it)."""
    X, y = [], []
    for h, sizes in breakdowns.items():
        for s, m in sizes.items():
            X.append([1.0, s, h, h * min(s, CHUNK_BYTES)])
            y.append(m["total_us"])
    if len({h for h in breakdowns}) < 2:
        raise ModelInputError("ping-pong runs at two hop counts at least are needed (pingpong-h1, pingpong-h2, ...)")
    # Relative residuals: every size counts alike, 16 B as much as 64 KB.
    w = 1 / np.array(y)
    coef, *_ = np.linalg.lstsq(np.array(X) * w[:, None], np.array(y) * w, rcond=None)
    a, b, c, d = (float(v) for v in coef)
    return {"end_us": a, "end_us_per_byte": b, "hop_us": c, "hop_us_per_byte": d}


def hop_components(breakdowns):
    """Per switch box, per size: the stages a message spends in one box
    (analyzer + routing firmware: routing; station + bus: switching) and on
    the cable to the next box, from the runs with the most hops. Reported,
    not used by the model. The breakdown times the message's tail, so from
    256 B up routing is 0: the header was routed while the tail arrived."""
    h = max(breakdowns)
    out = {}
    for s, m in breakdowns[h].items():
        out[s] = {
            "routing_us": (m["sb_analyzer_us"] + m["sb_routing_us"]) / h,
            "switching_us": (m["sb_station_us"] + m["sb_bus_us"]) / h,
            "cable_us": m["sb_link_us"] / (h - 1) if h > 1 else 0.0,
        }
    return out


def unloaded_latency(fit, size, hops):
    return (fit["end_us"] + fit["end_us_per_byte"] * size + hops *
            (fit["hop_us"] + fit["hop_us_per_byte"] * min(size, CHUNK_BYTES)))


def read_scale(path):
    return read_table(path, "\t", ("pattern", "nodes", "bytes", "messages", "mean_us", "min_us", "mbps", "mbps_min"))


def phase_us(row):
    """The measured phase time: the node that receives most (any node of
    the all-to-all and the ring, the hot node) gets its bytes at mbps_min
    (the slowest receiver's rate; for the hot spot the hot node's)."""
    n = int(row["nodes"])
    per_receiver = {"alltoall": row["messages"] / n, "neighbour": row["messages"] / n,
                    "hotspot": row["messages"]}[row["pattern"]]
    return per_receiver * row["bytes"] * 8 / row["mbps_min"]


def rounds_of(row):
    """--msgs: messages per (sender, receiver) pair."""
    n = int(row["nodes"])
    pairs = {"alltoall": n * (n - 1), "neighbour": n * min(2, n - 1), "hotspot": n - 1}[row["pattern"]]
    return max(1, round(row["messages"] / pairs))


def line_fit(points):
    """(intercept, slope) of y = intercept + slope x, least squares of the
    relative error (sizes span 16 B to 64 KB: an absolute fit would leave
    the small sizes to the large ones' rounding)."""
    xs = np.array([p[0] for p in points], dtype=float)
    ys = np.array([max(p[1], 1e-9) for p in points], dtype=float)
    if len(points) == 1:
        return 0.0, float(ys[0] / xs[0])
    slope, intercept = np.polyfit(xs, ys, 1, w=1 / ys)
    return float(intercept), float(slope)


def fit_service_times(folder, fit):
    """Per-message service times, each a line in the size (a + b s), from
    the model's own phase equations (model_predict.py) inverted at the
    resource that limits each microbenchmark:
      g_bi: a node's NI sending and receiving. 8 nodes on one box,
            alltoall: a round is T0 + (7 - 1) g_bi.
      g_r:  the NI receiving only. 8 nodes, hotspot: 7 senders stream into
            node 0, the phase is T0 + (7 M - 1) g_r. Not one line: the
            receiving NI's per-message work overlaps the data's move into
            the host, so the slower of the two sets its rate, max(floor,
            a + b s) (floor_line_fit).
      t_ch: the channel between two boxes. 14 nodes, 7 + 7 on two boxes,
            alltoall: 49 flows per round each way over the one cable, a
            round is T0 + (49 - 1) t_ch."""
    ni = os.path.join(folder, "ni-8", "results.tsv")
    link = os.path.join(folder, "link-14", "results.tsv")
    bi, recv = [], []
    for r in read_scale(ni):
        t0 = unloaded_latency(fit, r["bytes"], 1)
        m = rounds_of(r)
        if r["pattern"] == "alltoall":
            bi.append((r["bytes"], max(phase_us(r) / m - t0, 0.0) / 6))
        elif r["pattern"] == "hotspot":
            recv.append((r["bytes"], max(phase_us(r) - t0, 0.0) / (7 * m - 1)))
    if not bi or not recv:
        raise ModelInputError(f"{ni}: needs alltoall and hotspot rows (scale --patterns alltoall,hotspot)")
    ch = []
    for r in read_scale(link):
        if r["pattern"] == "alltoall":
            # 84 of the 182 ordered pairs stay on their box, 98 cross.
            t0 = unloaded_latency(fit, r["bytes"], (84 * 1 + 98 * 2) / 182)
            ch.append((r["bytes"], max(phase_us(r) / rounds_of(r) - t0, 0.0) / 48))
    if not ch:
        raise ModelInputError(f"{link}: needs alltoall rows")
    out = {}
    for name, pts in (("g_bi", bi), ("t_ch", ch)):
        a, b = line_fit(pts)
        out[name] = {"us": a, "us_per_byte": b, "floor_us": 0.0, "points": pts}
    # g_r's floor is a one-packet message's time: without the smallest
    # size, the next one would pass for it (and move every small hot spot).
    if min(s for s, _ in recv) > FLOOR_BYTES:
        raise ModelInputError(f"{ni}: the hotspot rows need a message of at most {FLOOR_BYTES} bytes (g_r's floor "
                              f"is the smallest message's time, the NI's per-message work alone); sizes found: "
                              f"{', '.join(str(int(s)) for s, _ in sorted(recv))}")
    floor, a, b = floor_line_fit(recv)
    out["g_r"] = {"us": a, "us_per_byte": b, "floor_us": floor, "points": recv}
    return out


def floor_line_fit(points):
    """(floor, intercept, slope) of y = max(floor, intercept + slope x): the
    floor is the smallest size's time (a message of one packet: the per-
    message work alone), the line the relative fit of the larger sizes
    (their data's time). One line through all of ni-8's hot spot points
    was 8% low at 16 B and 9% high at 256 B: its slope there is 0.7 ns/B,
    above 256 B 3.2 ns/B."""
    pts = sorted(points)
    if len(pts) < 3:  # too few sizes for a floor and a line
        return (0.0,) + line_fit(pts)
    a, b = line_fit(pts[1:])
    return pts[0][1], a, b


def chunks(size):
    """MMP chunks (wire headers) of a message of `size` bytes."""
    return max(1, math.ceil(size / CHUNK_BYTES))


def read_stats(path):
    """{source: {key: value}} of a run's stats.tsv."""
    out = {}
    for r in read_table(path, "\t", ("source", "key", "value")):
        out.setdefault(r["source"], {})[r["key"]] = r["value"]
    return out


def fit_sb_header(folder):
    """The switch box's routing firmware time per header: every box's CPU
    busy time (the run's simulated time less its idle_us, the time it dozed
    waiting for a header) over the headers it routed (fw_result0), summed
    over the boxes of the sb-14 run. The boxes there route a 16-byte
    all-to-all of 14 nodes, most of the time busy: at lower load each header
    also pays a wake-up (an upper bound of the time per header of a
    saturated box)."""
    path = os.path.join(folder, "sb-14", "stats.tsv")
    stats = read_stats(path)
    try:
        sim_us = float(stats["run"]["sim_time_us"])
    except (KeyError, ValueError):
        sim_us = math.nan
    if not math.isfinite(sim_us):
        raise ModelInputError(f"{path}: expected a number for run sim_time_us")
    busy = headers = 0.0
    for source, kv in stats.items():
        if not (source.startswith("sb") and source.endswith(".cpu")):
            continue
        try:
            idle, routed = float(kv["idle_us"]), float(kv["fw_result0"])
        except (KeyError, ValueError):
            raise ModelInputError(f"{path}: {source}: expected numbers for idle_us and fw_result0 "
                                  "(headers routed)") from None
        if not (math.isfinite(idle) and math.isfinite(routed)):
            raise ModelInputError(f"{path}: {source}: idle_us and fw_result0 must be finite numbers")
        busy += sim_us - idle
        headers += routed
    if headers <= 0:
        raise ModelInputError(f"{path}: no switch box routed a header (sb*.cpu fw_result0)")
    return {"us_per_header": busy / headers, "busy_us": busy, "headers": int(headers)}


def fit_all(folder):
    """Every parameter of the model from the measurement folder."""
    if not os.path.isdir(folder):
        raise ModelInputError(f"{folder}: no such folder (expected the model's measurement runs)")
    pp = pingpong_folders(folder)
    if not pp:
        raise ModelInputError(f"{folder}: no ping-pong runs (pingpong-h1/messages.csv, pingpong-h2/...)")
    breakdowns = {h: read_breakdown(os.path.join(d, "messages.csv")) for h, d in pp.items()}
    fit = fit_unloaded(breakdowns)
    model = {"logp": read_logp(folder), "unloaded": fit, "hop_components": hop_components(breakdowns),
             "breakdowns": breakdowns}
    model["service"] = fit_service_times(folder, fit)
    model["switch_box"] = fit_sb_header(folder)
    # Imported here: model_match and model_requests read their files with this
    # module's helpers.
    from model_match import read_ni_cpu
    from model_requests import fit_requests
    model["ni_cpu"] = read_ni_cpu(folder)
    model["requests"] = fit_requests(folder)
    return model
