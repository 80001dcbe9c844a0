"""Messages per round that each switch box routes, per shape and pattern
(docs/experiments.md, experiment 9): the load of the switch boxes' routing
firmware, whose header-by-header rate is the model's switch-box bound.

A box's firmware routes the header of every chunk of every message whose
path passes the box, the first and the last box included. The shapes and
routes are model_shapes.py's (fat trees: d-mod-k, routes per destination
node).
"""
import collections
import functools

import model_shapes

# Walking every route costs time and the shapes' route cache memory; above
# this many routes a fat tree's all-to-all takes the leaf boxes' load (the
# busiest boxes of a full fat tree, fat_tree_level_alltoall; otherwise a
# lower bound).
WALK_ROUTES = 70000


def _parents(sh):
    """{box: the next box towards the last box} of a chain or tree: the
    first channel of the route there."""
    root = sh.sbs - 1
    return {b: sh.route(b, root)[0][1] for b in range(sh.sbs) if b != root}


def subtrees(sh):
    """(parent, below) of a chain or tree: {box: the next box towards the
    last box} and {box: nodes at or below it, seen from the last box}."""
    parent = _parents(sh)
    below = collections.Counter(sh.leaf_counts())  # nodes cabled to each box
    depth = {}
    for b in range(sh.sbs):  # the depth orders boxes leaves-first
        d, x = 0, b
        while x in parent:
            x, d = parent[x], d + 1
        depth[b] = d
    for b in sorted(parent, key=lambda b: -depth[b]):
        below[parent[b]] += below[b]
    return parent, below


def alltoall_by_components(sh):
    """{box: messages per all-to-all round} of a chain or tree without
    walking routes: the box graph is a tree, so a pair avoids box b exactly
    when both ends lie in one part of what is left without b (a neighbour
    box's side; a node cabled to b is a part of its own), and
    through(b) = N(N - 1) - sum over those parts of m(m - 1)."""
    n = sh.nodes
    parent, sub = subtrees(sh)
    children = collections.defaultdict(list)
    for b, p in parent.items():
        children[p].append(b)
    pairs = lambda m: m * (m - 1)  # noqa: E731
    return {b: pairs(n) - sum(pairs(sub[c]) for c in children[b]) - pairs(n - sub[b]) for b in range(sh.sbs)}


def walked(sh, pattern):
    """{box: messages per round} by walking the route of every message of
    the pattern, aggregated per route as model_shapes.route_keys gives them
    (leaf pairs; on fat trees leaf and destination node, d-mod-k)."""
    load = collections.Counter()
    for (a, b), flows in model_shapes.route_keys(sh, pattern):
        if flows:
            load[a] += flows
            for _, to in sh.route(a, b):
                load[to] += flows
    return load


def routes_to_walk(sh):
    """How many routes the all-to-all walks: leaf pairs, or leaves times
    destination nodes where routes depend on the node (fat trees)."""
    leaves = len(sh.leaf_counts())
    return leaves * (sh.nodes if sh.by_node else leaves)


def leaf_boxes_alltoall(sh):
    """{leaf box: messages per all-to-all round}: every message from or to
    one of its c nodes, 2c(N - 1) - c(c - 1)."""
    n = sh.nodes
    return {b: 2 * c * (n - 1) - c * (c - 1) for b, c in sh.leaf_counts().items()}


def fat_tree_level_alltoall(nodes, level, ports=8):
    """Messages per all-to-all round at a box of `level` of a full k-ary
    n-tree (nodes = k^n) with d-mod-k routes. A box at level l >= 1 is on
    the way down to k destinations (the nodes equal to it but for digit l),
    each reached through it by the N - k^l senders outside its subtree at
    level l - 1; by symmetry as many flows climb through it; the
    k(k^(l+1) - k^l) whose ancestor it is turn there and count once:
    2k(N - k^l) - k^(l+1)(k - 1). At l = 0 (a leaf) that is
    2k(N - 1) - k(k - 1), every message from or to its nodes. It falls with
    l, so the leaves are the busiest boxes."""
    k, _ = model_shapes.fat_tree_levels(nodes, ports)
    return 2 * k * (nodes - k ** level) - k ** (level + 1) * (k - 1)


@functools.lru_cache(maxsize=None)  # the projections ask for each several times
def busiest_box(shape, nodes, pattern, ports=8):
    """{'messages': per round at the busiest box, 'box', 'how'} for the
    pattern's rounds (scale.c: every pair of the pattern once per round)."""
    sh = model_shapes.build(shape, nodes, ports)
    if pattern == "alltoall" and shape in ("chain", "tree"):
        load, how = alltoall_by_components(sh), "closed form"
    elif pattern == "alltoall" and routes_to_walk(sh) > WALK_ROUTES:
        full = sh.k ** sh.levels == nodes  # then the leaves are the busiest (above)
        load, how = leaf_boxes_alltoall(sh), "leaf boxes (the busiest)" if full else "leaf boxes (lower bound)"
    else:
        load, how = walked(sh, pattern), "routes walked"
    box = max(load, key=lambda b: (load[b], -b), default=0)
    return {"messages": load.get(box, 0), "box": box, "how": how}
