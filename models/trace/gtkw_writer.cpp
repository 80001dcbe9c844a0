#include "trace/gtkw_writer.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <map>

namespace m2 {
namespace {

// GTKWave's trace flags (its save-file format, "@<hex>" lines).
constexpr unsigned kDec = 0x4, kBin = 0x8, kRightJustify = 0x20, kBlank = 0x200;
constexpr unsigned kGroupBegin = 0x800000, kGroupEnd = 0x1000000;

std::string hex(unsigned v) {
  char b[16];
  std::snprintf(b, sizeof b, "@%x", v);
  return b;
}

// The number right after `prefix` at the start of `s`, or -1.
int number_after(const std::string& s, const std::string& prefix) {
  if (s.rfind(prefix, 0) != 0 || s.size() == prefix.size() ||
      !std::isdigit(static_cast<unsigned char>(s[prefix.size()])))
    return -1;
  return std::atoi(s.c_str() + prefix.size());
}

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

DataPathRank data_path_rank(const std::string& c) {
  // Within a node: from the host's PCI bus through the NI to its link.
  auto stage_of = [&]() {
    if (has(c, "pci")) return 0;
    if (has(c, "cpu")) return 1;
    if (has(c, "intc")) return 2;
    if (has(c, "dma")) return 3;
    if (has(c, "netbuf")) return 4;
    if (has(c, "mlcx")) return 5;
    if (has(c, "port")) return 7;
    return 8;
  };
  // Links sit under what they connect: node3.link (after the NI's MLC-X),
  // sb0.port7.link (between switch boxes, after all switch boxes).
  const bool link = c.size() >= 5 && c.compare(c.size() - 5, 5, ".link") == 0;
  int n = number_after(c, "node");
  if (n >= 0) return {0, n, link ? 6 : stage_of()};
  n = number_after(c, "sb");
  if (n >= 0 && link) return {2, n, 0};
  if (n >= 0) return {1, n, stage_of()};
  return {3, 0, 0};
}

std::string format_gtkw(const std::string& vcd_file, const std::string& top, const std::vector<GtkwSignal>& signals,
                        uint64_t from_ps, uint64_t to_ps) {
  // Components (a signal's name without its leaf), in data-path order, each
  // with its signals in the order they were added.
  std::map<std::string, std::vector<const GtkwSignal*>> by_component;
  std::vector<std::string> order;
  for (const GtkwSignal& s : signals) {
    const auto dot = s.name.rfind('.');
    const std::string comp = dot == std::string::npos ? "" : s.name.substr(0, dot);
    auto& list = by_component[comp];
    if (list.empty()) order.push_back(comp);
    list.push_back(&s);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const std::string& a, const std::string& b) { return data_path_rank(a) < data_path_rank(b); });

  // GTKWave shows 200 pixels per "frame" of zoombase^-zoom time units
  // (zoombase 2 by default): about 1000 pixels of waves span the window.
  const double window = static_cast<double>(to_ps > from_ps ? to_ps - from_ps : 1);
  const double zoom = -std::log2(std::max(1.0, window / 5.0));
  std::string f = "[*] GTKWave save file written by m2vp: signals per component in data-path order\n";
  f += "[dumpfile] \"" + vcd_file + "\"\n";
  f += "[timestart] " + std::to_string(from_ps) + "\n";
  f += "[size] 1400 900\n[pos] -1 -1\n";
  char z[64];
  std::snprintf(z, sizeof z, "*%.6f %llu", zoom, static_cast<unsigned long long>(from_ps));
  f += z;
  for (int i = 0; i < 26; ++i) f += " -1";
  f += "\n[sst_width] 250\n[signals_width] 260\n[sst_expanded] 1\n";
  unsigned flags = ~0u;
  auto set_flags = [&](unsigned v) {
    if (v != flags) f += hex(v) + "\n";
    flags = v;
  };
  for (const std::string& comp : order) {
    const std::string label = comp.empty() ? top : comp;
    set_flags(kGroupBegin | kBlank);
    f += "-" + label + "\n";
    for (const GtkwSignal* s : by_component[comp]) {
      set_flags((s->width == 1 ? kBin : kDec) | kRightJustify);
      const auto dot = s->name.rfind('.');
      const std::string leaf = dot == std::string::npos ? s->name : s->name.substr(dot + 1);
      f += "+{" + leaf + "} " + top + "." + s->name + "\n";
    }
    set_flags(kGroupEnd | kBlank);
    f += "-" + label + "\n";
  }
  return f;
}

}  // namespace m2
