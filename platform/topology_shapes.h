// The cabling of the switch-box shapes `tree` and `fat-tree` (topology.shape),
// computed from the node count and the ports per switch box alone. The same
// definition is followed by the analytical model (./m2vp model), so a change
// here is a change of both (docs/models/cluster.md, "Shapes").
//
// tree (arity a = P-1): ceil(N/a) leaves, node i on leaf i/a, port i%a; each
// further level groups the one below in order, a children per box (child j
// on port j%a, the child's up port P-1), until a level has at most P boxes,
// which one root takes on ports 0..count-1. N <= P: one switch box.
//
// fat-tree: a k-ary n-tree, k = P/2, n the fewest levels with k^n >= N; n
// levels of k^(n-1) boxes. Down ports 0..k-1, up ports k..2k-1; up port k+j
// of <w, l> goes to down port w_l of <w with digit l := j, l+1>.
// Unicast climbs by the destination node's digit l at level l (d-mod-k) to
// the lowest common level, then descends by the destination leaf's digits.
#pragma once

#include <vector>

#include "platform/link_end.h"

namespace m2 {

// A k-ary n-tree's numbering and routes: switch box <w, l> (w < k^(n-1), its
// base-k digits w_0..w_{n-2}; l the level, 0 = leaves) is sb l * k^(n-1) + w.
struct FatTreeGeometry {
  int k = 0;
  int n = 0;
  int per_level = 0;  // k^(n-1)

  int sb(int w, int level) const { return level * per_level + w; }
  // Output port of switch box `sb` towards node `dst`: down when dst lies
  // below it, else up by dst's digit at this level (d-mod-k).
  int next_port(int sb, int dst) const;
};

struct ShapeLayout {
  int switch_boxes = 0;
  std::vector<Cable> cables;  // the nodes' cables first, then those between switch boxes
  std::vector<int> depth;     // per switch box: levels below the top (root or top level: 0)
  int root = 0;               // the spanning tree's root (broadcast, multicast, up*/down*)
  FatTreeGeometry fat_tree;   // k = 0 unless a fat tree (its unicast replaces up*/down*)
};

// Callers check the port counts first (tree: P >= 3; fat-tree: P even, >= 4).
ShapeLayout tree_layout(int nodes, int ports);
ShapeLayout fat_tree_layout(int nodes, int ports);

}  // namespace m2
