"""Matplotlib set-up and saving: every figure goes out as NAME.png, NAME.svg
and NAME.tsv (the plotted numbers, for checking and for other tools)."""
import csv
import os

import runs  # traces/runs.py: the run folder's manifest
from output_files import output_folder, replacing

try:
    import matplotlib
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
except ImportError:  # reported by plot.py with what to install
    matplotlib = plt = None

if matplotlib:
    # Same input, same SVG: fixed element ids, no date.
    matplotlib.rcParams["svg.hashsalt"] = "m2vp"
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text (labels searchable)


def shown(text):
    """A label as matplotlib can draw it: bytes that are not UTF-8 (a folder
    name or argument holding them arrives as surrogate escapes) become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def series_id(kind, index):
    """The SVG id of one plotted series (a line, or one stage's bars)."""
    return f"{kind}-{index}"


def plain_log_ticks(axis):
    """Ticks at 1, 2, 5 x 10^n labelled as plain numbers (a log axis over one
    or two decades otherwise shows a single label)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def human_bytes(b):
    """4096 -> 4K, 1048576 -> 1M; other sizes as they are."""
    b = int(b)
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale}{unit}"
    return str(b)


def number(v):
    """A value for the .tsv: as short as it goes without losing digits."""
    return repr(float(v)) if not float(v).is_integer() or abs(v) >= 1e16 else str(int(v))


def save(fig, out, name, columns, rows):
    """Writes the figure and its data (never through a symlink:
    output_files.replacing); returns the paths written. Raises OutputError
    naming the path when one cannot be written."""
    try:
        output_folder(out)
        paths = []
        for ext, meta in (("png", {"Software": None}), ("svg", {"Date": None})):
            p = os.path.join(out, f"{name}.{ext}")
            with replacing(p, "wb") as f:
                fig.savefig(f, format=ext, metadata=meta, bbox_inches="tight", dpi=120)
            paths.append(p)
    finally:
        plt.close(fig)
    p = os.path.join(out, f"{name}.tsv")
    with replacing(p, newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow([number(x) if isinstance(x, (int, float)) else x for x in r])
    paths.append(p)
    runs.add_to_run_manifest(out, paths)
    return paths
