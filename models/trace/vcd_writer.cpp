#include "trace/vcd_writer.h"

#include <algorithm>
#include <stdexcept>
#include <map>

#include "core/output_file.h"
#include "core/params.h"

namespace m2 {
namespace {

// VCD identifiers: printable ASCII 33..126, base 94.
std::string vcd_id(unsigned n) {
  std::string id;
  do {
    id += static_cast<char>(33 + n % 94);
    n /= 94;
  } while (n);
  return id;
}

std::string binary(uint64_t v, unsigned width) {
  std::string b;
  for (unsigned i = width; i-- > 0;) b += (v >> i) & 1 ? '1' : '0';
  const auto first = b.find('1');
  return first == std::string::npos ? "0" : b.substr(first);
}

// Scopes as a tree, so that each dotted prefix is opened once.
struct Scope {
  std::map<std::string, Scope> children;
  std::vector<std::pair<std::string, unsigned>> vars;  // leaf name, signal index
};

void write_scope(std::ostream& f, const std::string& name, const Scope& s,
                 const std::vector<std::pair<std::string, unsigned>>& widths) {
  f << "$scope module " << name << " $end\n";
  for (const auto& [leaf, idx] : s.vars)
    f << "$var wire " << widths[idx].second << " " << vcd_id(idx) << " " << leaf << " $end\n";
  for (const auto& [child, sub] : s.children) write_scope(f, child, sub, widths);
  f << "$upscope $end\n";
}

}  // namespace

unsigned VcdWriter::add_signal(const std::string& name, unsigned width) {
  m_signals.push_back({name, width ? width : 1, 0, false});
  return static_cast<unsigned>(m_signals.size() - 1);
}

std::vector<std::pair<std::string, unsigned>> VcdWriter::signal_list() const {
  std::vector<std::pair<std::string, unsigned>> r;
  for (const Signal& s : m_signals) r.emplace_back(s.name, s.width);
  return r;
}

void VcdWriter::change(unsigned signal, uint64_t time_ps, uint64_t value) {
  Signal& s = m_signals.at(signal);
  // A value wider than its signal would be written with its top bits cut
  // off: a probe declared too narrow is a bug, not a dump to trust.
  if (s.width < 64 && (value >> s.width) != 0)
    throw std::logic_error("VCD signal " + s.name + ": value " + std::to_string(value) + " does not fit its " +
                           std::to_string(s.width) + " bits");
  if (s.seen && s.last == value) return;
  s.seen = true;
  s.last = value;
  m_changes.push_back({time_ps, signal, value});
}

void VcdWriter::write(const std::string& path) const {
  OutputFile file(path, "the VCD file");
  std::ostream& f = file.stream();
  f << "$date simulated by m2vp $end\n$version m2vp signal sampler $end\n$timescale 1ps $end\n";
  Scope root;
  std::vector<std::pair<std::string, unsigned>> widths;
  for (unsigned i = 0; i < m_signals.size(); ++i) {
    widths.emplace_back(m_signals[i].name, m_signals[i].width);
    Scope* s = &root;
    std::string name = m_signals[i].name;
    for (size_t dot; (dot = name.find('.')) != std::string::npos; name = name.substr(dot + 1))
      s = &s->children[name.substr(0, dot)];
    s->vars.emplace_back(name, i);
  }
  write_scope(f, kTopScope, root, widths);
  f << "$enddefinitions $end\n";
  std::vector<Change> sorted = m_changes;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Change& a, const Change& b) { return a.time_ps < b.time_ps; });
  bool first = true;
  uint64_t now = 0;
  for (const Change& c : sorted) {
    if (first || c.time_ps != now) {
      f << "#" << c.time_ps << "\n";
      now = c.time_ps;
      first = false;
    }
    const Signal& s = m_signals[c.signal];
    if (s.width == 1) f << (c.value ? '1' : '0') << vcd_id(c.signal) << "\n";
    else f << "b" << binary(c.value, s.width) << " " << vcd_id(c.signal) << "\n";
  }
  file.commit();
}

}  // namespace m2
