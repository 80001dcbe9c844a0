// The GTKWave save file (models/trace/gtkw_writer.*): data-path order of the
// components, one group per component, trace formats, the window's zoom.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "trace/gtkw_writer.h"

using namespace m2;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> r;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    r.push_back(text.substr(start, nl - start));
  return r;
}

}  // namespace

TEST_CASE("gtkw: components in data-path order, node by node, then switch boxes and their links", "[gtkw]") {
  CHECK(data_path_rank("node0.pci") < data_path_rank("node0.ni.dma"));
  CHECK(data_path_rank("node0.ni.dma") < data_path_rank("node0.ni.netbuf"));
  CHECK(data_path_rank("node0.ni.netbuf") < data_path_rank("node0.ni.mlcx"));
  CHECK(data_path_rank("node0.ni.mlcx") < data_path_rank("node0.link"));
  CHECK(data_path_rank("node0.link") < data_path_rank("node1.pci"));
  CHECK(data_path_rank("node2.ni.mlcx") < data_path_rank("node10.pci"));  // numbers, not text
  CHECK(data_path_rank("node15.ni.mlcx") < data_path_rank("sb0.port0"));
  CHECK(data_path_rank("sb0.port7") < data_path_rank("sb0"));
  CHECK(data_path_rank("sb0") < data_path_rank("sb1.port0"));
  CHECK(data_path_rank("sb2") < data_path_rank("sb0.port7.link"));
}

TEST_CASE("gtkw: one group per component with leaf names, decimal vectors and binary bits, zoomed to the window",
          "[gtkw]") {
  const std::vector<GtkwSignal> sigs = {{"sb0.bus_busy", 1},
                                        {"node1.ni.netbuf.tx0_used", 16},
                                        {"node0.ni.netbuf.tx0_used", 16},
                                        {"node0.ni.netbuf.rx0_used", 16},
                                        {"node0.pci.busy", 1}};
  const std::string g = format_gtkw("signals.vcd", "m2vp", sigs, 20000000, 80000000);
  const auto l = lines_of(g);
  CHECK(g.find("[dumpfile] \"signals.vcd\"\n") != std::string::npos);
  CHECK(g.find("[timestart] 20000000\n") != std::string::npos);
  // Zoom: a frame of 200 pixels spans 2^-zoom ps; five frames (about 1000
  // pixels) span the 60 us window.
  std::string zoom_line;
  for (const auto& s : l)
    if (!s.empty() && s[0] == '*') zoom_line = s;
  REQUIRE(!zoom_line.empty());
  const double zoom = std::stod(zoom_line.substr(1));
  CHECK(5 * std::pow(2.0, -zoom) == Approx(60e6).epsilon(1e-6));
  // Groups in data-path order, each opened and closed, node0's signals in
  // the order given.
  const std::vector<std::string> expected = {"@800200",
                                             "-node0.pci",
                                             "@28",
                                             "+{busy} m2vp.node0.pci.busy",
                                             "@1000200",
                                             "-node0.pci",
                                             "@800200",
                                             "-node0.ni.netbuf",
                                             "@24",
                                             "+{tx0_used} m2vp.node0.ni.netbuf.tx0_used",
                                             "+{rx0_used} m2vp.node0.ni.netbuf.rx0_used",
                                             "@1000200",
                                             "-node0.ni.netbuf",
                                             "@800200",
                                             "-node1.ni.netbuf",
                                             "@24",
                                             "+{tx0_used} m2vp.node1.ni.netbuf.tx0_used",
                                             "@1000200",
                                             "-node1.ni.netbuf",
                                             "@800200",
                                             "-sb0",
                                             "@28",
                                             "+{bus_busy} m2vp.sb0.bus_busy",
                                             "@1000200",
                                             "-sb0"};
  size_t first = 0;
  while (first < l.size() && l[first] != "@800200") ++first;
  REQUIRE(l.size() >= first + expected.size());
  CHECK(std::vector<std::string>(l.begin() + first, l.begin() + first + expected.size()) == expected);
}
