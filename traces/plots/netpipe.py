"""NetPIPE's three views of a size sweep, several runs overlaid:
throughput vs size, the "signature" (throughput vs time per transfer, log
time) and "saturation" (time vs size, log-log)."""
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from .figure import human_bytes, plt, save, series_id

# name, x (index in a (bytes, mbps, seconds) row, label, log), y (same)
VIEWS = (
    ("netpipe_throughput", (0, "message size (bytes)", True), (1, "throughput (Mbit/s)", False),
     "NetPIPE throughput"),
    ("netpipe_signature", (2, "time per transfer (s)", True), (1, "throughput (Mbit/s)", False),
     "NetPIPE signature"),
    ("netpipe_saturation", (0, "message size (bytes)", True), (2, "time per transfer (s)", True),
     "NetPIPE saturation"),
)
COLUMNS = ("bytes", "mbps", "seconds")


def plot(runs, out):
    """One figure per view over every run with NetPIPE data; the paths."""
    runs = [r for r in runs if r.netpipe]
    if not runs:
        return []
    for run in runs:
        # Sizes and times are on logarithmic axes: a 0-byte row has no place
        # there (the breakdown and the latency plots still show it).
        if any(p[0] == 0 for p in run.netpipe):
            print(f"plot: note: {run.label}: the 0-byte row is left out of the NetPIPE plots (logarithmic size axis)")
    runs_pts = {id(run): sorted(p for p in run.netpipe if p[0] > 0) for run in runs}
    paths = []
    for name, (xi, xlabel, xlog), (yi, ylabel, ylog), title in VIEWS:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        rows = []
        for k, run in enumerate(runs):
            # Sorted by size: with the perturbation (c-p, c, c+p) the file is
            # already in that order, but a hand-made one may not be.
            pts = runs_pts[id(run)]
            xs, ys = [p[xi] for p in pts], [p[yi] for p in pts]
            ax.plot(xs, ys, marker="o", markersize=2.5, linewidth=1, label=run.label, gid=series_id("series", k))
            rows += [(run.label, x, y) for x, y in zip(xs, ys)]
        if xlog:
            ax.set_xscale("log", base=2 if xi == 0 else 10)
        if ylog:
            ax.set_yscale("log")
        if xi == 0:  # sizes: labels at powers of 4, grid lines at powers of 2
            ax.xaxis.set_major_locator(LogLocator(base=4, numticks=40))
            ax.xaxis.set_minor_locator(LogLocator(base=2, numticks=80))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: human_bytes(v) if v >= 1 else f"{v:g}"))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", alpha=0.12)
        ax.legend(fontsize=8)
        fig.tight_layout()
        paths += save(fig, out, name, ("series", COLUMNS[xi], COLUMNS[yi]), rows)
    return paths
