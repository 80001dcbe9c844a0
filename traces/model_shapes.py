"""Switch-box topologies by shape (chain, tree, fat-tree) as the analytical
model sees them: which switch box each node sits on, the route between two
leaf switch boxes, and from those the hop-count distribution and the load on
each inter-switch-box channel of experiment 6's patterns.

The shapes follow the shared definition (docs/experiments.md, experiment 9;
the topology builder follows the same): `chain` is platform/topology.cpp's
automatic layout, `tree` a tree of P-port boxes of arity P-1, `fat-tree` a
k-ary n-tree with k = P/2 and d-mod-k up*/down* routes. A hop count is the
number of switch boxes a message passes (1: sender and receiver on one box).
"""
import collections
import functools

SHAPES = ("chain", "tree", "fat-tree")


class ShapeError(ValueError):
    """A shape that cannot hold the node count or port count asked for."""


class Shape:
    """A built topology: `leaf_of[i]` is node i's switch box, `route_to(a,
    dst)` the directed inter-box channels ((from, to) box pairs) from leaf a
    to node dst. On chains and trees that route depends on dst's leaf only
    (`route(a, b)`, leaf to leaf, `by_node` False); on a fat tree on dst
    itself (d-mod-k on the node's digits). Boxes are numbered 0..sbs-1."""

    def __init__(self, name, nodes, ports):
        self.name = name
        self.nodes = nodes
        self.ports = ports
        self.leaf_of = []
        self.sbs = 0
        self.by_node = False
        self._routes = {}

    def route(self, a, b):
        key = (a, b)
        r = self._routes.get(key)
        if r is None:
            r = self._routes[key] = self._route(a, b)
        return r

    def route_to(self, a, dst):
        return self.route(a, dst if self.by_node else self.leaf_of[dst])

    def hops(self, src, dst):
        """Switch boxes on the path from node src to node dst."""
        return len(self.route_to(self.leaf_of[src], dst)) + 1

    def leaf_counts(self):
        return collections.Counter(self.leaf_of)


def chain(nodes, ports=8):
    """platform/topology.cpp, build_automatic: one box while the nodes fit,
    else box j's last port cabled to box j+1's second-to-last, the nodes
    spread evenly (the first boxes take the rounding up). No box limit here:
    projections go past the builder's 64 boxes."""
    if nodes < 1 or ports < 3:
        raise ShapeError(f"chain: {nodes} nodes on {ports}-port switch boxes cannot be built")
    s = 1
    while s * ports - 2 * (s - 1) < nodes:
        s += 1
    sh = Shape("chain", nodes, ports)
    sh.sbs = s
    node = 0
    for j in range(s):
        free = ports - (0 if s == 1 else (1 if j in (0, s - 1) else 2))
        want = min(free, -(-(nodes - node) // (s - j)))
        sh.leaf_of += [j] * want
        node += want

    def route(a, b):
        step = 1 if b > a else -1
        return [(j, j + step) for j in range(a, b, step)]

    sh._route = route
    sh.path_boxes = lambda a, b: abs(a - b) + 1
    prefix = [sh.leaf_of.count(j) for j in range(s)]
    sh.cut_sizes = lambda: [sum(prefix[: j + 1]) for j in range(s - 1)]
    return sh


def tree(nodes, ports=8):
    """Leaves of ports-1 nodes, each further level grouping ports-1 boxes of
    the level below in order, until a level has at most `ports` boxes: one
    root takes them. nodes <= ports: a single box."""
    if nodes < 1 or ports < 3:
        raise ShapeError(f"tree: {nodes} nodes on {ports}-port switch boxes cannot be built")
    sh = Shape("tree", nodes, ports)
    if nodes <= ports:
        sh.sbs = 1
        sh.leaf_of = [0] * nodes
        sh._route = lambda a, b: []
        sh.path_boxes = lambda a, b: 1
        sh.cut_sizes = lambda: []
        return sh
    a = ports - 1
    parent = {}
    level = list(range(-(-nodes // a)))
    sh.leaf_of = [i // a for i in range(nodes)]
    next_id = len(level)
    while len(level) > ports:
        upper = list(range(next_id, next_id + -(-len(level) // a)))
        for j, box in enumerate(level):
            parent[box] = upper[j // a]
        next_id += len(upper)
        level = upper
    if len(level) > 1:
        root = next_id
        next_id += 1
        for box in level:
            parent[box] = root
    sh.sbs = next_id

    def ancestors(box):
        chain_up = [box]
        while chain_up[-1] in parent:
            chain_up.append(parent[chain_up[-1]])
        return chain_up

    def route(x, y):
        up_x, up_y = ancestors(x), ancestors(y)
        common = set(up_y)
        i = next(i for i, box in enumerate(up_x) if box in common)
        top = up_x[i]
        j = up_y.index(top)
        up = [(up_x[t], up_x[t + 1]) for t in range(i)]
        down = [(up_y[t + 1], up_y[t]) for t in reversed(range(j))]
        return up + down

    ups = {}

    def path_boxes(x, y):
        for box in (x, y):
            if box not in ups:
                ups[box] = {b: i for i, b in enumerate(ancestors(box))}
        ux, uy = ups[x], ups[y]
        return min(i + uy[b] for b, i in ux.items() if b in uy) + 1

    def cut_sizes():
        below = collections.Counter()
        for leaf in sh.leaf_of:
            for box in ancestors(leaf)[:-1]:
                below[box] += 1
        return list(below.values())

    sh._route = route
    sh.path_boxes = path_boxes
    sh.cut_sizes = cut_sizes
    return sh


def fat_tree_levels(nodes, ports=8):
    """(k, n): k = ports/2, n the smallest level count with k^n >= nodes."""
    k = ports // 2
    n = 1
    while k ** n < nodes:
        n += 1
    return k, n


def fat_tree(nodes, ports=8):
    """k-ary n-tree: n levels of k^(n-1) boxes <w, l> (w: n-1 base-k digits);
    node i on leaf i / k, so a leaf's digit l is its nodes' digit l + 1. Up
    port k+j of <w, l> goes to <w with digit l = j, l+1>; a route climbs to
    the nearest common ancestor level m (the highest differing leaf digit +
    1), taking at level l the destination node's digit l (d-mod-k), then
    descends by the destination leaf's digits. The way down rewrites digits
    0..m-1 of the ancestor, so any up choice reaches the destination; with
    d-mod-k the box at level l on the way down is the destination with its
    digit l left out, whoever sends. `route(a, dst)` takes the destination
    node (by_node)."""
    if nodes < 1 or ports < 4 or ports % 2:
        raise ShapeError(f"fat-tree: {nodes} nodes on {ports}-port switch boxes cannot be built "
                         "(an even port count of at least 4 is needed)")
    k, n = fat_tree_levels(nodes, ports)
    per_level = k ** (n - 1)
    sh = Shape("fat-tree", nodes, ports)
    sh.sbs = n * per_level
    sh.leaf_of = [i // k for i in range(nodes)]
    sh.k, sh.levels = k, n
    sh.by_node = True

    def box(w, level):
        return level * per_level + w

    def digit(w, l):
        return (w // k ** l) % k

    def with_digit(w, l, d):
        return w + (d - digit(w, l)) * k ** l

    def route(a, dst):
        b = dst // k
        if a == b:
            return []
        m = max(l for l in range(n - 1) if digit(a, l) != digit(b, l)) + 1
        path, w = [], a
        for l in range(m):
            w2 = with_digit(w, l, digit(dst, l))  # up by the node's digit l
            path.append((box(w, l), box(w2, l + 1)))
            w = w2
        for l in range(m, 0, -1):
            w2 = with_digit(w, l - 1, digit(b, l - 1))  # down by the leaf's digit l-1
            path.append((box(w, l), box(w2, l - 1)))
            w = w2
        return path

    sh._route = route
    return sh


def build(shape, nodes, ports=8):
    builders = {"chain": chain, "tree": tree, "fat-tree": fat_tree}
    if shape not in builders:
        raise ShapeError(f"unknown shape '{shape}' (expected one of {', '.join(SHAPES)})")
    return builders[shape](nodes, ports)


def pattern_pairs(pattern, nodes, hot=0):
    """(src, dst) pairs of one round of experiment 6's pattern
    (sw/apps/scale.c)."""
    if pattern == "alltoall":
        return [(i, (i + d) % nodes) for i in range(nodes) for d in range(1, nodes)]
    if pattern == "neighbour":
        if nodes == 2:
            return [(0, 1), (1, 0)]
        return [(i, (i + d) % nodes) for i in range(nodes) for d in (1, nodes - 1)]
    if pattern == "hotspot":
        return [(i, hot) for i in range(nodes) if i != hot]
    raise ValueError(f"unknown pattern '{pattern}' (expected alltoall, neighbour or hotspot)")


def route_keys(sh, pattern):
    """((leaf a, b), flows) of one round of the pattern, aggregated per
    route: b is the destination's leaf (chains, trees) or the destination
    node (fat trees, whose routes depend on it); `sh.route(a, b)` is the
    route. Same-leaf pairs of the all-to-all have no channel (a == b)."""
    if pattern != "alltoall":
        for s, d in pattern_pairs(pattern, sh.nodes):
            yield (sh.leaf_of[s], d if sh.by_node else sh.leaf_of[d]), 1
        return
    counts = sorted(sh.leaf_counts().items())
    if sh.by_node:
        for a, ca in counts:
            for d in range(sh.nodes):
                yield (a, d), ca - (1 if sh.leaf_of[d] == a else 0)
        return
    for a, ca in counts:
        for b, cb in counts:
            yield (a, b), ca * cb - (ca if a == b else 0)


def pattern_traffic(sh, pattern):
    """(hop histogram {hops: flows}, {channel: flows}) of one round. The
    all-to-all is aggregated per leaf pair, on fat trees per leaf and
    destination node (fast enough to 4096 nodes on chains and trees; full
    fat trees take fat_tree_alltoall's closed form instead)."""
    hist = collections.Counter()
    load = collections.Counter()
    for (a, b), flows in route_keys(sh, pattern):
        if flows == 0:
            continue
        r = sh.route(a, b)
        hist[len(r) + 1] += flows
        for ch in r:
            load[ch] += flows
    return hist, load


def fat_tree_alltoall(nodes, ports=8):
    """The all-to-all's hop histogram and largest channel load of a full
    k-ary n-tree (nodes = k^n) in closed form: a pair whose nearest common
    ancestor is at level m passes 2m+1 boxes; there are N(k^(m+1) - k^m)
    such ordered pairs (N(k-1) at m = 0: same leaf). The up port at level l
    is the destination node's digit l (d-mod-k), as the builder does
    (FatTreeGeometry::next_port). Then a channel between levels l and l+1
    carries flows of one destination node only (down) or from one group
    of k^(l+1) senders sharing digits l+1.. (up): the down channel into
    the box "dst without digit l" is taken by the senders that differ from
    dst in a digit above l, N - k^(l+1) of them; an up channel likewise by
    k^(l+1) senders times the k^(n-1-l) - 1 destinations outside their
    subtree. The busiest channels are those between levels 0 and 1:
    N - k flows each (a node's own link carries N - 1)."""
    k, n = fat_tree_levels(nodes, ports)
    if k ** n != nodes:
        raise ShapeError(f"fat_tree_alltoall: {nodes} is not a power of {k}")
    hist = {1: nodes * (k - 1)}
    for m in range(1, n):
        hist[2 * m + 1] = nodes * (k ** (m + 1) - k ** m)
    max_load = nodes - k if n > 1 else 0
    return hist, max_load


def alltoall_by_cuts(sh):
    """The all-to-all round of a chain or tree without walking each route:
    the hop histogram from leaf pairs (route lengths only), and the load of
    the channel over each cut. Cutting the chain between boxes j and j+1, or
    a tree at a box's up link, parts the nodes m | N - m, and every ordered
    pair across the cut crosses that one channel pair: m(N - m) flows each
    way."""
    counts = sorted(sh.leaf_counts().items())
    hist = collections.Counter()
    for a, ca in counts:
        for b, cb in counts:
            flows = ca * cb - (ca if a == b else 0)
            if flows:
                hist[sh.path_boxes(a, b)] += flows
    n = sh.nodes
    return hist, max((m * (n - m) for m in sh.cut_sizes()), default=0)


@functools.lru_cache(maxsize=None)  # the projections ask for each several times
def traffic_summary(shape, nodes, pattern, ports=8):
    """Mean hop count, hop histogram, flows per round and the largest
    channel load (flows per round on the busiest inter-box channel)."""
    k, n = fat_tree_levels(nodes, ports)
    if shape == "fat-tree" and pattern == "alltoall" and k ** n == nodes:
        hist, max_load = fat_tree_alltoall(nodes, ports)
        sbs = n * k ** (n - 1)
    elif shape in ("chain", "tree") and pattern == "alltoall":
        sh = build(shape, nodes, ports)
        hist, max_load = alltoall_by_cuts(sh)
        sbs = sh.sbs
    else:
        sh = build(shape, nodes, ports)
        hist, load = pattern_traffic(sh, pattern)
        max_load = max(load.values(), default=0)
        sbs = sh.sbs
    flows = sum(hist.values())
    mean = sum(h * c for h, c in hist.items()) / flows if flows else 0.0
    return {"mean_hops": mean, "max_hops": max(hist, default=0), "hist": dict(sorted(hist.items())),
            "flows": flows, "max_load": max_load, "sbs": sbs}


@functools.lru_cache(maxsize=None)  # the projections ask for each several times
def farthest_pairs(shape, nodes, pattern, ports=8):
    """((src, dst), route) of every pair of one round of the pattern whose
    path passes the most switch boxes (the ring's wrap-around pair, the
    pairs over a tree's top), route the inter-box channels of its path.
    Walks every pair: for the ring and the hot spot (n - 1 or 2n pairs), not
    for the all-to-all."""
    if pattern == "alltoall":
        raise ValueError("farthest_pairs: the all-to-all's pairs are not walked one by one")
    sh = build(shape, nodes, ports)
    routes = [((s, d), tuple(sh.route_to(sh.leaf_of[s], d))) for s, d in pattern_pairs(pattern, nodes)]
    longest = max((len(r) for _, r in routes), default=0)
    return tuple((pair, r) for pair, r in routes if len(r) == longest)


def links_string(sh):
    """The `topology.links` cabling of a tree or fat-tree built here, for
    running these shapes before the builder knows them (node i is cabled
    to its leaf box's port as in the definition)."""
    if sh.name == "chain":
        raise ShapeError("links_string: chains are the builder's automatic layout")
    ends = []
    P = sh.ports
    if sh.name == "tree":
        a = P - 1 if sh.sbs > 1 else P  # one box: every port takes a node
        for i in range(sh.nodes):
            ends.append(f"node{i}:sb{i // a}.{i % a}")
        # Parents from routes: a leaf's first up channel, and so on level by level.
        children = collections.defaultdict(list)
        for box in range(sh.sbs):
            r = sh.route(box, sh.sbs - 1) if box != sh.sbs - 1 else []
            if r:
                children[r[0][1]].append(box)
        root = sh.sbs - 1
        for parent, kids in sorted(children.items()):
            for j, kid in enumerate(sorted(kids)):
                port = j if parent == root else j % a
                ends.append(f"sb{kid}.{P - 1}:sb{parent}.{port}")
        return " ".join(ends)
    k, n = sh.k, sh.levels
    per = k ** (n - 1)
    for i in range(sh.nodes):
        ends.append(f"node{i}:sb{i // k}.{i % k}")
    for level in range(n - 1):
        for w in range(per):
            for j in range(k):
                d = (w // k ** level) % k
                w2 = w + (j - d) * k ** level
                ends.append(f"sb{level * per + w}.{k + j}:sb{(level + 1) * per + w2}.{d}")
    return " ".join(ends)


def closed_form_bisection(shape, nodes, ports=8):
    """Channels across the middle cut (one direction) and the flows of an
    all-to-all round over it, by shape: a chain and a tree cut at one channel
    near the middle (its root side), a fat tree at N/2 channels."""
    half = nodes // 2
    if shape == "fat-tree":
        return max(1, half), half * (nodes - half)
    return 1, half * (nodes - half)


def mean_hops_alltoall(shape, nodes, ports=8):
    return traffic_summary(shape, nodes, "alltoall", ports)["mean_hops"]


def describe(shape, nodes, ports=8):
    """One line like the builder's description: boxes and path lengths."""
    s = traffic_summary(shape, nodes, "alltoall", ports)
    return (f"{shape}: {nodes} nodes, {s['sbs']} switch boxes, at most {s['max_hops']} on a path, "
            f"mean {s['mean_hops']:.3f} (all-to-all)")


if __name__ == "__main__":
    import sys
    for a in sys.argv[1:] or ["16", "64", "256"]:
        for shp in SHAPES:
            print(describe(shp, int(a)))
