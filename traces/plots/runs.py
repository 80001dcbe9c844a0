"""What each input holds: a run folder (np.out, results.tsv, messages.csv,
latencies.tsv) or one such file given directly, read into a Run."""
import os

from .figure import shown
from .readers import InputError, read_latencies, read_messages, read_netpipe, results_as_netpipe


class Run:
    """One input's plottable data; None for what it does not have."""

    def __init__(self, path, folder):
        self.path = path
        self.folder = folder          # the run folder (a file's own folder)
        self.label = None
        self.netpipe = None           # [(bytes, mbps, seconds)]
        self.netpipe_source = None    # the file it came from
        self.stages = None            # stage names of messages.csv
        self.messages = None          # [(bytes, total_us, [stage_us])]
        self.latencies = None         # [(pattern, bytes, latency_us)]

    def empty(self):
        return self.netpipe is None and self.messages is None and self.latencies is None


def _read_file(run, path):
    name = os.path.basename(path)
    if name.endswith(".out"):
        run.netpipe, run.netpipe_source = read_netpipe(path), path
    elif name.endswith(".csv"):
        run.stages, run.messages = read_messages(path)
    elif name == "latencies.tsv" or name.startswith("latencies"):
        run.latencies = read_latencies(path)
    elif name.endswith(".tsv"):
        rows = results_as_netpipe(path)
        if rows is None:
            raise InputError(path, 1, "not a sweep over sizes "
                                      "(expected columns bytes and latency_us, one row per size)")
        run.netpipe, run.netpipe_source = rows, path
    else:
        raise InputError(path, 0, "unknown kind of file (expected NetPIPE output *.out such as np.out, "
                                  "messages.csv, latencies.tsv or results.tsv)")


def _read_folder(run, folder):
    def has(name):
        path = os.path.join(folder, name)
        if os.path.exists(path) and not os.path.isfile(path):
            raise InputError(path, 0, "not a file (a folder or a device where the run writes a file)")
        return os.path.isfile(path)

    if has("np.out"):
        run.netpipe_source = os.path.join(folder, "np.out")
        run.netpipe = read_netpipe(run.netpipe_source)
    elif has("results.tsv"):
        # The same three views from a run's measurement table, for runs
        # without NetPIPE's file (ping-pong experiments).
        run.netpipe = results_as_netpipe(os.path.join(folder, "results.tsv"))
        run.netpipe_source = os.path.join(folder, "results.tsv") if run.netpipe else None
    if has("messages.csv"):
        run.stages, run.messages = read_messages(os.path.join(folder, "messages.csv"))
    if has("latencies.tsv"):
        run.latencies = read_latencies(os.path.join(folder, "latencies.tsv"))
    if run.empty():
        raise InputError(folder, 0, "nothing to plot (no np.out, messages.csv, latencies.tsv, "
                                    "nor a results.tsv sweep: columns bytes and latency_us, one row per size)")


def read_run(path):
    if os.path.isdir(path):
        run = Run(path, path)
        _read_folder(run, path)
    elif os.path.isfile(path):
        run = Run(path, os.path.dirname(path) or ".")
        _read_file(run, path)
    elif os.path.exists(path):
        raise InputError(path, 0, "not a regular file or a folder (expected a run folder or one of its files)")
    else:
        raise InputError(path, 0, "no such file or folder")
    return run


def _default_label(run):
    folder = os.path.basename(os.path.abspath(run.folder))
    if os.path.isfile(run.path):
        stem = os.path.splitext(os.path.basename(run.path))[0]
        if stem not in ("np", "messages", "latencies", "results"):
            return f"{folder}/{stem}"   # e.g. netpipe --out np_pci.out
    return folder


def label_runs(runs, labels):
    """Labels from --label (one per input, in order) or the folder names,
    made unique by taking more of the path where two runs' names clash."""
    if labels:
        if len(labels) != len(runs):
            raise InputError("--label", 0, f"give one label per input: {len(labels)} labels for {len(runs)} inputs")
        for r, l in zip(runs, labels):
            r.label = shown(l)
        return
    for r in runs:
        r.label = _default_label(r)
    parents = {id(r): os.path.dirname(os.path.abspath(r.folder)) for r in runs}
    for _ in range(16):
        groups = {}
        for r in runs:
            groups.setdefault(r.label, []).append(r)
        grew = False
        for group in groups.values():
            if len(group) < 2 or len({parents[id(r)] for r in group}) < 2:
                continue
            for r in group:
                head, tail = os.path.split(parents[id(r)])
                if tail:
                    r.label = f"{tail}/{r.label}"
                    parents[id(r)] = head
                    grew = True
        if not grew:
            break
    seen = {}
    for r in runs:  # the same path given twice
        r.label = shown(r.label)
        seen[r.label] = seen.get(r.label, 0) + 1
        if seen[r.label] > 1:
            r.label = f"{r.label} #{seen[r.label]}"
