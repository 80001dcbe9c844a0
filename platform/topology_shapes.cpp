#include "platform/topology_shapes.h"

namespace m2 {

namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// k^e (small: at most the switch boxes of one level).
int power(int k, int e) {
  int p = 1;
  for (int i = 0; i < e; ++i) p *= k;
  return p;
}

}  // namespace

int FatTreeGeometry::next_port(int sb, int dst) const {
  const int level = sb / per_level, w = sb % per_level;
  const int leaf = dst / k;
  const int below = power(k, level);  // leaves under one box of this level share digits level..n-2
  if (w / below == leaf / below) return level == 0 ? dst % k : (leaf / (below / k)) % k;
  // Up by the node's own digit `level` (not the leaf's): the k nodes of one
  // leaf then come down through k different boxes. Any up choice reaches dst,
  // as the way down rewrites digits 0..level of the ancestor (docs/models/cluster.md).
  return k + (dst / below) % k;
}

ShapeLayout tree_layout(int nodes, int ports) {
  ShapeLayout t;
  if (nodes <= ports) {  // one switch box holds them all
    t.switch_boxes = 1;
    t.depth = {0};
    for (int i = 0; i < nodes; ++i) t.cables.push_back({{i, -1, -1}, {-1, 0, i}});
    return t;
  }
  const int arity = ports - 1, up = ports - 1;
  // Levels from the leaves up: first switch box and count of each.
  std::vector<int> first{0}, count{ceil_div(nodes, arity)};
  for (int i = 0; i < nodes; ++i) t.cables.push_back({{i, -1, -1}, {-1, i / arity, i % arity}});
  while (count.back() > ports) {
    const int below_first = first.back(), below = count.back();
    first.push_back(below_first + below);
    count.push_back(ceil_div(below, arity));
    for (int j = 0; j < below; ++j)
      t.cables.push_back({{-1, below_first + j, up}, {-1, first.back() + j / arity, j % arity}});
  }
  t.root = first.back() + count.back();
  for (int j = 0; j < count.back(); ++j) t.cables.push_back({{-1, first.back() + j, up}, {-1, t.root, j}});
  t.switch_boxes = t.root + 1;
  t.depth.assign(static_cast<size_t>(t.switch_boxes), 0);
  const int levels = static_cast<int>(count.size());
  for (int l = 0; l < levels; ++l)
    for (int j = 0; j < count[static_cast<size_t>(l)]; ++j)
      t.depth[static_cast<size_t>(first[static_cast<size_t>(l)] + j)] = levels - l;
  return t;
}

ShapeLayout fat_tree_layout(int nodes, int ports) {
  ShapeLayout t;
  FatTreeGeometry& g = t.fat_tree;
  g.k = ports / 2;
  g.n = 1;
  for (int capacity = g.k; capacity < nodes; capacity *= g.k) ++g.n;
  g.per_level = power(g.k, g.n - 1);
  t.switch_boxes = g.n * g.per_level;
  t.root = g.sb(0, g.n - 1);
  t.depth.assign(static_cast<size_t>(t.switch_boxes), 0);
  for (int s = 0; s < t.switch_boxes; ++s) t.depth[static_cast<size_t>(s)] = g.n - 1 - s / g.per_level;
  for (int i = 0; i < nodes; ++i) t.cables.push_back({{i, -1, -1}, {-1, g.sb(i / g.k, 0), i % g.k}});
  for (int l = 0; l + 1 < g.n; ++l) {
    const int unit = power(g.k, l);  // the value of digit l
    for (int w = 0; w < g.per_level; ++w) {
      const int digit = (w / unit) % g.k;
      for (int j = 0; j < g.k; ++j) {
        const int parent = w + (j - digit) * unit;  // w with digit l := j
        t.cables.push_back({{-1, g.sb(w, l), g.k + j}, {-1, g.sb(parent, l + 1), digit}});
      }
    }
  }
  return t;
}

}  // namespace m2
