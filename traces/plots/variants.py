"""A sweep's overlay plot (traces/sweep.py): the metric per size, one line per
variant and row kind (experiment 6's pattern). Colour says the variant,
marker and line style the kind, so every line stays distinguishable past the
ten colours of the palette; a failed variant says so in the legend and its
points are drawn hollow."""
import math

from runs import is_number  # traces/runs.py

from .figure import plt, save, series_id, shown
from .readers import LARGEST

# The default palette (tab10): a variant's colour.
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
STYLES = ("-", "--", ":", "-.")


def line_look(variant, kind, kinds):
    """(colour, line style, marker) of variant number `variant`'s line of
    row kind number `kind` (of `kinds`). Variants ten apart share a colour
    and are told apart by their shapes: shape number (variant // 10) * kinds
    + kind, a different marker and line style pair for each of the first
    len(MARKERS) * len(STYLES) = 32 shapes."""
    shape = (variant // len(COLOURS)) * kinds + kind
    marker = shape % len(MARKERS)
    # Each next run of len(MARKERS) shapes shifts the style, so that the pair
    # (marker, style) repeats only after 32 shapes and neighbours differ in both.
    style = (shape % len(STYLES) + shape // len(MARKERS)) % len(STYLES)
    return COLOURS[variant % len(COLOURS)], STYLES[style], MARKERS[marker]


def failure(row):
    """The legend's note for a variant that failed, "" for one that did not."""
    return f" (failed: exit {row['exit']})" if row["exit"] else ""


def plottable(size, value):
    """A cell worth a point: a size and a finite value within any plot's
    range (a damaged cell: text, nan, inf, 1e308, is left out)."""
    return (size.isascii() and size.isdigit() and int(size) <= LARGEST and is_number(value)
            and math.isfinite(float(value)) and abs(float(value)) <= LARGEST)


def plot(out, metric, rows, points):
    """rows: the variants ({"variant", "exit"}); points: per variant,
    {row key ("alltoall:16" or "16"): value}. Writes sweep_<metric>.png,
    .svg and .tsv (figure.save) and returns the lines drawn, as
    (legend label, colour, line style, marker, hollow), in legend order;
    [] with nothing to plot (no file written)."""
    lines = []  # (row, variant number, kind, [(bytes, value)])
    for i, (row, values) in enumerate(zip(rows, points)):
        per_kind = {}
        for key, v in values.items():
            kind, _, b = key.rpartition(":")
            if plottable(b, v):
                per_kind.setdefault(kind, []).append((int(b), float(v)))
        lines += [(row, i, kind, sorted(pts)) for kind, pts in per_kind.items()]
    if not lines:
        return []
    kinds = list(dict.fromkeys(kind for _, _, kind, _ in lines))  # first-seen order: one look per kind
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = []
    data = []
    for row, i, kind, pts in lines:
        colour, style, marker = line_look(i, kinds.index(kind), len(kinds))
        hollow = bool(row["exit"])
        label = shown(row["variant"] + (f", {kind}" if kind else "") + failure(row))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=colour, linestyle=style, marker=marker,
                markersize=4, markerfacecolor="none" if hollow else colour, label=label,
                gid=series_id("sweep", len(drawn)))
        drawn.append((label, colour, style, marker, hollow))
        data += [(label, b, v) for b, v in pts]
    # A failed variant with no value to plot still gets its legend entry:
    # a sweep's plot names every variant that failed, with or without points.
    with_points = {i for _, i, _, _ in lines}
    for i, row in enumerate(rows):
        if row["exit"] and i not in with_points:
            colour, _, marker = line_look(i, 0, len(kinds))
            label = shown(row["variant"] + failure(row)[:-1] + ", nothing to plot)")
            ax.plot([], [], color=colour, linestyle="none", marker=marker, markerfacecolor="none", label=label)
            drawn.append((label, colour, "none", marker, True))
    ax.set_xscale("log")
    ax.set_xlabel("bytes")
    ax.set_ylabel(metric)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    save(fig, out, f"sweep_{metric}", ["variant", "bytes", metric], data)
    return drawn
