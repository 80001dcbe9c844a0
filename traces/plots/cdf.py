"""Latency distributions of the multi-node experiments (latencies.tsv) as
CDFs: one panel per message size, one line per traffic pattern (colour) and
run (line style); the legend gives each line's median and 99th percentile."""
import math

from .figure import human_bytes, plain_log_ticks, plt, save, series_id

STYLES = ("-", "--", ":", "-.")
# Above this max/min latency ratio the x axis is logarithmic (long tails).
LOG_SPREAD = 30.0


def legend_us(v):
    """A latency for the legend: 3 significant digits, whole µs from 1000 up
    (1285, not 1.28e+03)."""
    return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def percentile(sorted_values, q):
    """The smallest value with at least q of the values at or below it."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def plot(runs, out):
    runs = [r for r in runs if r.latencies]
    if not runs:
        return []
    sizes = sorted({b for r in runs for _, b, _ in r.latencies})
    patterns = list(dict.fromkeys(p for r in runs for p, _, _ in r.latencies))  # first-seen order
    cmap = plt.get_cmap("tab10")
    ncols = min(3, len(sizes))
    nrows = math.ceil(len(sizes) / ncols)
    legend_rows = len(runs) * len(patterns)
    fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                             figsize=(1.0 + 4.2 * ncols, 0.6 + (3.4 + 0.16 * legend_rows) * nrows))
    every = [lat for r in runs for _, _, lat in r.latencies]
    log_x = min(every) > 0 and max(every) / min(every) > LOG_SPREAD
    rows = []
    line = 0
    for s_i, size in enumerate(sizes):
        ax = axes[s_i // ncols][s_i % ncols]
        for k, run in enumerate(runs):
            for p_i, pattern in enumerate(patterns):
                lat = sorted(l for p, b, l in run.latencies if p == pattern and b == size)
                if not lat:
                    continue
                n = len(lat)
                cdf = [(i + 1) / n for i in range(n)]
                name = pattern if len(runs) == 1 else f"{run.label}: {pattern}"
                ax.step([lat[0]] + lat, [0.0] + cdf, where="post", color=cmap(p_i % cmap.N),
                        linestyle=STYLES[k % len(STYLES)], linewidth=1.3, gid=series_id("cdf", line),
                        label=f"{name} (p50 {legend_us(percentile(lat, 0.5))}, p99 {legend_us(percentile(lat, 0.99))})")
                line += 1
                rows += [(run.label, pattern, size, l, c) for l, c in zip(lat, cdf)]
        if log_x:
            ax.set_xscale("log")
            plain_log_ticks(ax.xaxis)
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{human_bytes(size)} bytes", fontsize=10)
        ax.set_xlabel("one-way latency (us)")
        ax.set_ylabel("fraction of messages")
        ax.grid(True, alpha=0.3)
        # Below the panel: inside, it would hide the curves' tails.
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), title="latency (us)",
                  title_fontsize=7, frameon=False)
    for extra in range(len(sizes), nrows * ncols):
        axes[extra // ncols][extra % ncols].set_visible(False)
    fig.suptitle("message latency distribution")
    fig.tight_layout()
    return save(fig, out, "latency_cdf", ("series", "pattern", "bytes", "latency_us", "cdf"), rows)
