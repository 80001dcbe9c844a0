"""The hot spot's program order (docs/experiments.md, experiment 9): in
which order the hot node's NI receives the K = (n - 1) M messages, and from
that how long the application waits behind the ones it takes first.

scale.c's hot node (node 0) waits for its messages in a fixed order: round
0 from node 1, 2, ..., n - 1, then round 1 in the same order, and so on. A
message is observed only once every message before it in that order has
been observed, so a message that arrives at position j (0-based) but waits
behind one that arrives at position j' > j is observed at j'. Its position
in time is the prefix maximum of the arrival positions in the wait order;
the hot spot's mean latency is T0 + mean(prefix maximum) w instead of
T0 + (K - 1) / 2 w (which assumes the arrival order is the wait order).

The arrival order follows from the switch boxes' documented behaviour
(docs/models/switchbox.md, switch-controller.md), a network of FIFO
servers on the routes to the hot node:
  - a box's routing firmware takes the headers from one FIFO header buffer,
    one after another (t_sb per header, chunks(size) headers a message),
    and the fetch unit gives an output to the oldest request for it: a box
    passes messages on in the order their headers reached it;
  - the channel to the next box carries one message at a time (t_ch, the
    model's channel service); a message reaches the next box one box's
    unloaded time (T0's per-box term) after its channel started it;
  - sender i injects its round-r message at i * START_STAGGER_US (scale.c's
    common start) + r * g (LogP's gap, configs/logp.yaml: a sender's time
    between consecutive sends).
The hot node's NI then takes the messages in the order the firmware of its
own box routed them. Nothing here comes from the validation runs: the wait
order and the stagger are the application's code, the rest the model's
fitted service times.
"""
import collections
import functools

import numpy as np

import model_shapes
from model_blocking import destinations_first
from model_fit import chunks, unloaded_latency

# scale.c, START_STAGGER_NS: node i starts its phase i x 100 ns after the
# common start time.
START_STAGGER_US = 0.1


def fifo_done(arrivals, service_us):
    """Completion times of a FIFO server with a fixed service time for
    arrival times sorted ascending: d_i = max(a_i, d_(i-1)) + s, in closed
    form d_i = s (i + 1) + max over k <= i of (a_k - s k)."""
    a = np.asarray(arrivals, dtype=float)
    k = np.arange(len(a))
    return service_us * (k + 1) + np.maximum.accumulate(a - service_us * k)


def topological(paths):
    """Boxes of the routes' union (a tree converging on the hot node's box)
    with every box after all boxes that feed it."""
    succ = {}
    for p in paths.values():
        for a, b in zip(p, p[1:] + [None]):
            succ.setdefault(a, {})
            if b is not None:
                succ[a][b] = True
    try:
        return list(reversed(destinations_first(succ)))
    except ValueError:
        raise ValueError("model_order: the routes to the hot node form a cycle") from None


def arrival_order(paths, inject, box_us, channel_us, transit_us):
    """[(src, round)] in the order the last box of every path (the hot
    node's) routes them. paths: {src: [its box, ..., the hot node's box]};
    inject: {(src, round): time it reaches its first box}. Each box is a
    FIFO server of box_us a message, each channel between boxes one of
    channel_us; a message reaches the next box transit_us after its channel
    started it. Ties go to the lower (time, src, round)."""
    arrivals = collections.defaultdict(list)
    for (s, r), t in inject.items():
        arrivals[paths[s][0]].append((t, s, r))
    index = {s: {b: i for i, b in enumerate(p)} for s, p in paths.items()}
    order = topological(paths)
    for b in order[:-1]:
        arr = sorted(arrivals.pop(b, []))
        done = fifo_done([t for t, _, _ in arr], box_us)
        out = collections.defaultdict(list)
        for (_, s, r), d in zip(arr, done):
            out[paths[s][index[s][b] + 1]].append((d, s, r))
        for nb, lst in out.items():
            lst.sort()
            starts = fifo_done([d for d, _, _ in lst], channel_us) - channel_us
            arrivals[nb] += [(st + transit_us, s, r) for (_, s, r), st in zip(lst, starts)]
    # The hot node's box routes FIFO: its order is its arrivals' order.
    return [(s, r) for _, s, r in sorted(arrivals[order[-1]])]


def mean_prefix_max(order, wait_order):
    """Mean over the wait order of the prefix maximum of the arrival
    positions (0-based): the position at which the application observes
    each message."""
    pos = {m: j for j, m in enumerate(order)}
    seen, total = -1, 0
    for m in wait_order:
        seen = max(seen, pos[m])
        total += seen
    return total / len(wait_order)


def scale_wait_order(nodes, msgs):
    """scale.c's hot node (0): round by round, sources 1, 2, ..., n - 1."""
    return [(s, r) for r in range(msgs) for s in range(1, nodes)]


def hot_spot_paths(shape, nodes):
    """{src: [its box, ..., node 0's box]}: the boxes each sender's messages
    pass to the hot node (len: the path's hop count, T0's h)."""
    sh = model_shapes.build(shape, nodes)
    hot_box = sh.leaf_of[0]
    paths = {s: [sh.leaf_of[s]] + [b for _, b in sh.route_to(sh.leaf_of[s], 0)] for s in range(1, nodes)}
    if any(p[-1] != hot_box for p in paths.values()):
        raise ValueError(f"model_order: a {shape} route of {nodes} nodes does not end at node 0's box")
    return paths


def injection_times(nodes, msgs, gap_us, stagger_us=START_STAGGER_US):
    """{(src, round): when scale.c's sender src sends its round-r message}:
    its start stagger plus r sender's gaps, from the common start (the
    projections pass stagger_us 0: model.py says why)."""
    return {(s, r): s * stagger_us + r * gap_us for s in range(1, nodes) for r in range(msgs)}


@functools.lru_cache(maxsize=None)  # the projections ask for each several times
def _hot_order(shape, nodes, msgs, box_us, channel_us, transit_us, gap_us, stagger_us):
    paths = hot_spot_paths(shape, nodes)
    return tuple(arrival_order(paths, injection_times(nodes, msgs, gap_us, stagger_us), box_us, channel_us, transit_us))


def hot_spot_order(model, shape, nodes, size, msgs, t_ch, stagger_us=START_STAGGER_US):
    """[(src, round)] in the order the hot node's NI receives its (n - 1) M
    messages (the model's network of FIFO boxes and channels)."""
    if nodes < 2:
        return []
    c = chunks(size)
    box_us = model["switch_box"]["us_per_header"] * c
    per_box = unloaded_latency(model["unloaded"], size, 1) - unloaded_latency(model["unloaded"], size, 0)
    transit_us = max(per_box - box_us, 0.0)
    return list(_hot_order(shape, nodes, msgs, box_us, t_ch, transit_us, model["logp"]["g_us"], stagger_us))


def hot_spot_position(model, shape, nodes, size, msgs, t_ch, stagger_us=START_STAGGER_US):
    """The mean position (0-based, in messages) at which scale.c's hot node
    observes its (n - 1) M messages; (K - 1) / 2 if they arrived in its
    wait order."""
    if nodes < 2:
        return 0.0
    return mean_prefix_max(hot_spot_order(model, shape, nodes, size, msgs, t_ch, stagger_us),
                           scale_wait_order(nodes, msgs))
