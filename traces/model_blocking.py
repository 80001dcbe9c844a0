"""The blocking term of the channel bound (docs/experiments.md, experiment 9,
"The model"): how long a channel between switch boxes is held per message
when the next channel of the message's path is busy.

A switch box forwards the messages of one input channel in order, each once
its request owns the output channel (docs/models/switch-controller.md:
per source channel in order, destination ownership until the message is
complete). So a message holds its input channel for its own time t plus the
wait for the next channel n of its path. As in the wormhole and
virtual-cut-through channel-service models (Dally 1990; Draper and Ghosh
1994) n is found busy with probability rho and then has a mean residual of
t*_n / 2 (one size a phase: deterministic service), applied from the
destinations back:

    t*_c = t + sum over next channels n of  F_cn / L_c * rho_cn * t*_n / 2

L_c the flows per round on c, F_cn those of them that go on over n. A
message cannot find n held by the ones of its own input ahead of it: they
release n's ownership as they leave the input, before this message can ask
for n. So rho_cn is n's busy share from its other inputs (the box's nodes
and its other channels):

    rho_cn = (L_n - F_cn) t*_n / B,   B = max(D g_bi, H t_sb, max_c L_c t*_c)

B is the round's busiest resource's busy time (closed rounds: it is busy the
whole round), a fixed point since the t* enter it. The channel's queue of
the round is max_c (L_c - 1) t*_c. The node links are not in it: their
blocking (the receiving NI) is inside t_ch, fitted on two boxes whose
channel ends at the nodes.

The channels' loads and how their flows go on come from the routes: walked
(model_shapes.route_keys), or for the all-to-all of chains and trees from
their cuts and of full fat trees per level in closed form.
"""
import collections
import functools

import model_boxes
import model_shapes

# A fat tree's all-to-all walks every (leaf, destination node) route only up
# to this many (the switch boxes' limit); beyond it full fat trees take the
# per-level closed form.
WALK_ROUTES = model_boxes.WALK_ROUTES


class ChannelGraph:
    """Channels between switch boxes with their flows per round (`load`)
    and, per channel, the flows that go on over each next channel (`onward`:
    {next: flows}). A channel may stand for a class of alike channels
    (full fat trees): then `onward` lists one of each class's next channels
    with `count` of them alike. `order` lists every channel after all the
    channels that follow it on some path (destinations first)."""

    def __init__(self, load, onward, count=None):
        self.load = dict(load)
        self.onward = {c: dict(onward.get(c, {})) for c in self.load}
        self.count = count or {}
        self.order = destinations_first(self.onward)


def destinations_first(onward):
    """Post-order of a dependency graph {node: its successors} (channels
    under up*/down* and chain routes, boxes on the routes to a node): every
    node after all nodes that follow it; a cycle is an error, not an
    endless recursion."""
    order, state = [], {}
    for root in onward:
        if root in state:
            continue
        stack = [(root, iter(onward[root]))]
        state[root] = "open"
        while stack:
            c, it = stack[-1]
            n = next(it, None)
            if n is None:
                stack.pop()
                state[c] = "done"
                order.append(c)
            elif state.get(n) == "open":
                raise ValueError(f"channel dependency cycle through {c} -> {n}")
            elif n not in state:
                state[n] = "open"
                stack.append((n, iter(onward[n])))
    return order


def walked(sh, pattern):
    """The graph by walking every route of one round of the pattern."""
    load = collections.Counter()
    onward = collections.defaultdict(collections.Counter)
    for (a, b), flows in model_shapes.route_keys(sh, pattern):
        if flows == 0:
            continue
        r = sh.route(a, b)
        for ch in r:
            load[ch] += flows
        for ch, nxt in zip(r, r[1:]):
            onward[ch][nxt] += flows
    return ChannelGraph(load, onward)


def tree_alltoall(sh):
    """The all-to-all of a chain or tree (its boxes form a tree, one route
    per pair): channel u -> v carries every pair with the source on u's side
    of the cable and the destination on v's, m(N - m) flows with m the nodes
    on u's side; of them those whose destination lies beyond the next cable
    v -> w go on over it, m times the nodes on w's side."""
    n = sh.nodes
    parent, below = model_boxes.subtrees(sh)
    side = {}  # (u, v): nodes on u's side of the cable u - v
    neighbours = collections.defaultdict(list)
    for child, up in parent.items():
        side[(child, up)] = below[child]
        side[(up, child)] = n - below[child]
        neighbours[child].append(up)
        neighbours[up].append(child)
    load = {ch: m * (n - m) for ch, m in side.items()}
    onward = {(u, v): {(v, w): side[(u, v)] * side[(w, v)] for w in neighbours[v] if w != u}
              for (u, v) in side}
    return ChannelGraph(load, onward)


def fat_tree_alltoall(nodes, ports=8):
    """The all-to-all of a full k-ary n-tree (N = k^n, d-mod-k) per channel
    class: ('up', l) from level l to l + 1 and ('down', l) from l + 1 to l,
    each carrying N - k^(l+1) flows (model_shapes.fat_tree_alltoall). Of an
    up channel's flows, those whose nearest common ancestor is at level
    l + 1 turn down there, k^(l+1) into each of the k - 1 down channels to
    the other boxes of level l; the others climb, (N - k^(l+2)) / k over
    each of the k up channels (the destination's digit l + 1). A down
    channel carries one destination's flows (d-mod-k), so they all go on
    over one down channel of the box it enters."""
    k, levels = model_shapes.fat_tree_levels(nodes, ports)
    if k ** levels != nodes:
        raise model_shapes.ShapeError(f"fat_tree_alltoall: {nodes} is not a power of {k}")
    load, onward, count = {}, {}, {}
    for l in range(levels - 1):
        flows = nodes - k ** (l + 1)
        load[("up", l)] = load[("down", l)] = flows
        up_next = {}
        if l + 1 < levels - 1:
            up_next[("up", l + 1)] = (nodes - k ** (l + 2)) // k
        up_next[("down", l)] = k ** (l + 1)
        onward[("up", l)] = up_next
        onward[("down", l)] = {("down", l - 1): flows} if l > 0 else {}
        count[(("up", l), ("up", l + 1))] = k
        count[(("up", l), ("down", l))] = k - 1
    return ChannelGraph(load, onward, count)


@functools.lru_cache(maxsize=None)  # the projections ask for each several times
def channel_graph(shape, nodes, pattern, ports=8):
    sh = model_shapes.build(shape, nodes, ports)
    if pattern == "alltoall" and shape in ("chain", "tree"):
        return tree_alltoall(sh)
    if pattern == "alltoall" and shape == "fat-tree" and model_boxes.routes_to_walk(sh) > WALK_ROUTES:
        return fat_tree_alltoall(nodes, ports)
    return walked(sh, pattern)


def held_times(graph, t, busy):
    """{channel: t*} for a channel's own time t per message and the round's
    busiest resource busy for `busy` us (B above)."""
    held = {}
    for c in graph.order:  # every next channel's t* is known before c's
        lc = graph.load[c]
        wait = 0.0
        for n, f in graph.onward[c].items():
            alike = graph.count.get((c, n), 1)
            rho = min(1.0, (graph.load[n] - f) * held[n] / busy) if busy > 0 else 0.0
            wait += alike * f / lc * rho * held[n] / 2
        held[c] = t + wait
    return held


def path_wait(graph, t, busy, path):
    """The mean time a message waits at the channels of its path for the
    other flows of each (docs/experiments.md, experiment 9, "The farthest
    pairs' waits on their cables"): the blocking term's channel service
    applied to the message entering each channel c of its path, which finds
    c held by one of c's L_c - 1 other flows of the round with probability
    rho_c = (L_c - 1) t*_c / busy and then waits half its holding time t*_c
    (deterministic service):

        W = sum over c of  rho_c t*_c / 2

    busy is B of the round (channel_queue's busy_us): the other flows are
    sent within the same round as this message, spread over the sending
    NIs' busy time as it is. Channels the graph does not know (or a path
    between nodes on one box) add nothing."""
    if busy <= 0 or not path:
        return 0.0
    held = held_times(graph, t, busy)
    wait = 0.0
    for c in path:
        if c not in graph.load:
            continue
        rho = min(1.0, (graph.load[c] - 1) * held[c] / busy)
        wait += rho * held[c] / 2
    return wait


def channel_queue(graph, t, other_busy):
    """{'queue_us': max_c (L_c - 1) t*_c, 'held_us': that channel's t*,
    'channel', 'busy_us': B} of one closed round. other_busy is the round's
    busy time at the NIs and the boxes (D g_bi, H t_sb): B solves
    B = max(other_busy, max_c L_c t*_c(B)), whose right side falls as B
    grows; bisection between no blocking and the blocking it gives."""
    if not graph.load or t <= 0:
        return {"queue_us": 0.0, "held_us": t, "channel": None, "busy_us": other_busy}

    def busiest(b):
        held = held_times(graph, t, b)
        return max(other_busy, max(graph.load[c] * held[c] for c in graph.load)), held

    lo = max(other_busy, max(graph.load.values()) * t)
    hi, _ = busiest(lo)
    for _ in range(60):
        mid = (lo + hi) / 2
        if busiest(mid)[0] > mid:
            lo = mid
        else:
            hi = mid
    busy = hi
    held = held_times(graph, t, busy)
    c = max(graph.load, key=lambda ch: ((graph.load[ch] - 1) * held[ch], graph.load[ch]))
    return {"queue_us": (graph.load[c] - 1) * held[c], "held_us": held[c], "channel": c, "busy_us": busy}
