"""Per-stage breakdown of message latency (messages.csv): one stacked bar
per message size, each segment the mean time of one stage over the messages
of that size, so a bar's height is their mean total_us. One panel per run."""
import sys

from .figure import human_bytes, plt, save

OTHER = "other"  # time total_us has beyond the stages (gaps between them)
# Below this (us) a difference between total_us and the stages' sum is rounding.
TOLERANCE_US = 1e-3


def bars(run):
    """[(bytes, count, {stage: mean_us}, mean_total_us)] by size, with an
    `other` stage when the stages do not add up to total_us."""
    by_size = {}
    for b, total, parts in run.messages:
        by_size.setdefault(b, []).append((total, parts))
    out = []
    for b in sorted(by_size):
        msgs = by_size[b]
        n = len(msgs)
        means = {s: sum(p[i] for _, p in msgs) / n for i, s in enumerate(run.stages)}
        total = sum(t for t, _ in msgs) / n
        rest = total - sum(means.values())
        if rest > TOLERANCE_US:
            means[OTHER] = rest
        elif rest < -TOLERANCE_US:
            print(f"plot: warning: {run.label}: at {int(b)} bytes the stages add up to {-rest:.3f} us more "
                  f"than total_us (overlapping stages?)", file=sys.stderr)
        out.append((b, n, means, total))
    return out


def plot(runs, out):
    runs = [r for r in runs if r.messages]
    if not runs:
        return []
    data = [bars(r) for r in runs]
    stages = []  # union in path order, `other` last
    for r in runs:
        stages += [s for s in r.stages if s not in stages]
    if any(OTHER in m for d in data for _, _, m, _ in d):
        stages.append(OTHER)
    cmap = plt.get_cmap("tab20" if len(stages) > 10 else "tab10")
    colour = {s: ("0.7" if s == OTHER else cmap(i % cmap.N)) for i, s in enumerate(stages)}
    most = max(len(d) for d in data)
    # Per run: the bars in us (left) and each stage's share of them (right),
    # which keeps the small sizes readable next to the large ones.
    fig, axes = plt.subplots(len(runs), 2, squeeze=False, gridspec_kw={"width_ratios": (3, 2)},
                             figsize=(max(9.0, 3.0 + 0.75 * most), 1.0 + 3.6 * len(runs)))
    rows = []
    for k, (run, d) in enumerate(zip(runs, data)):
        ax, share_ax = axes[k]
        xs = list(range(len(d)))
        bottom = [0.0] * len(d)
        for s_i, s in enumerate(stages):
            h = [m.get(s, 0.0) for _, _, m, _ in d]
            if not any(h):
                continue
            style = dict(width=0.7, color=colour[s], edgecolor="white", linewidth=0.4)
            bc = ax.bar(xs, h, bottom=bottom, label=s, **style)
            for i, rect in enumerate(bc.patches):
                if h[i]:
                    rect.set_gid(f"bar-{k}-{s_i}-{i}")
                else:
                    rect.remove()  # a stage this size does not have: no empty segment
            heights = [sum(m.values()) for _, _, m, _ in d]
            share_ax.bar(xs, [100 * a / t if t else 0 for a, t in zip(h, heights)],
                         bottom=[100 * a / t if t else 0 for a, t in zip(bottom, heights)], **style)
            bottom = [a + b for a, b in zip(bottom, h)]
            rows += [(run.label, b, n, s, m[s], top) for (b, n, m, _), top in zip(d, bottom) if s in m]
        if len(d) <= 16:
            for i, (_, _, _, total) in enumerate(d):
                ax.annotate(f"{total:.3g}", (i, total), ha="center", va="bottom", fontsize=7,
                            xytext=(0, 2), textcoords="offset points")
        for a in (ax, share_ax):
            a.set_xticks(xs)
            a.set_xticklabels([human_bytes(b) for b, _, _, _ in d], rotation=0 if len(d) <= 8 else 60, fontsize=8)
            a.set_xlabel("message size (bytes)")
            a.grid(True, axis="y", alpha=0.3)
            a.set_axisbelow(True)
        ax.set_ylabel("mean time per message (us)")
        ax.margins(y=0.08)
        share_ax.set_ylabel("share of the total (%)")
        share_ax.set_ylim(0, 100)
        suffix = f": {run.label}" if len(runs) > 1 else ""
        ax.set_title(f"per-stage breakdown{suffix}")
        share_ax.set_title(f"stage shares{suffix}")
    handles, labels = [], []
    for ax in axes[:, 0]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    order = sorted(range(len(labels)), key=lambda i: stages.index(labels[i]), reverse=True)  # legend top = bar top
    fig.legend([handles[i] for i in order], [labels[i] for i in order], loc="center left",
               bbox_to_anchor=(1.0, 0.5), fontsize=8, title="stage")
    fig.tight_layout()
    return save(fig, out, "breakdown_stacked", ("series", "bytes", "messages", "stage", "mean_us", "top_us"), rows)
