// A GTKWave save file (.gtkw) for a VCD of the platform's signals: GTKWave
// opens it with the signals grouped per component (netbuf, MLC-X, link, ...)
// in data-path order (each node from its PCI bus to its link, then the switch
// boxes, then the links between them), each trace named by its leaf
// ("tx0_used"), and the view zoomed to the traced window:
//   gtkwave signals.vcd signals.gtkw
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace m2 {

struct GtkwSignal {
  std::string name;  // dotted, as in the VCD below its top scope ("node0.ni.netbuf.tx0_used")
  unsigned width;
};

// The save file's text. `top` is the VCD's top scope ("m2vp"); the window is
// [from_ps, to_ps] (to_ps > from_ps).
std::string format_gtkw(const std::string& vcd_file, const std::string& top, const std::vector<GtkwSignal>& signals,
                        uint64_t from_ps, uint64_t to_ps);

// The component's place in data-path order: (group, index, stage), e.g.
// node3's DMA engine (0, 3, 3), link_node3 (0, 3, 6), sb1's port 2 (1, 1, 7).
struct DataPathRank {
  int group, index, stage;
  bool operator<(const DataPathRank& o) const {
    return group != o.group ? group < o.group : index != o.index ? index < o.index : stage < o.stage;
  }
};
DataPathRank data_path_rank(const std::string& component);

}  // namespace m2
