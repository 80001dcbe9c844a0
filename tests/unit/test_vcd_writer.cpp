// The VCD writer (models/trace/vcd_writer.*): scopes from dotted names,
// values in binary at their declared width, changes only, and no value
// wider than its signal (it would be written with its top bits cut off).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "trace/vcd_writer.h"

namespace {

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("vcd writer: wide levels are written whole, unchanged samples are dropped", "[trace][vcd]") {
  m2::VcdWriter vcd;
  const unsigned busy = vcd.add_signal("node0.ni.dma.busy", 1);
  const unsigned level = vcd.add_signal("node0.ni.netbuf.rx0_used", 18);  // a 128 KB channel
  vcd.change(busy, 0, 0);
  vcd.change(level, 0, 0);
  vcd.change(level, 1000, 65536);   // one past 16 bits
  vcd.change(level, 2000, 65536);   // no change: not recorded
  vcd.change(level, 3000, 131072);  // the full channel
  vcd.change(busy, 3000, 1);
  CHECK(vcd.changes() == 5);
  const std::string path = std::filesystem::temp_directory_path() / ("m2vp-vcd-" + std::to_string(getpid()) + ".vcd");
  vcd.write(path);
  const std::string text = read_all(path);
  std::remove(path.c_str());
  CHECK(text.find("$var wire 18 ") != std::string::npos);
  CHECK(text.find("rx0_used $end") != std::string::npos);
  CHECK(text.find("b10000000000000000 ") != std::string::npos);   // 65536
  CHECK(text.find("b100000000000000000 ") != std::string::npos);  // 131072
  CHECK(text.find("#2000") == std::string::npos);                 // the unchanged sample
}

TEST_CASE("vcd writer: a value wider than its signal is refused, naming the signal", "[trace][vcd]") {
  m2::VcdWriter vcd;
  const unsigned level = vcd.add_signal("sb0.port1.buffer.tx0_used", 16);
  vcd.change(level, 0, 65535);
  CHECK_THROWS_WITH(vcd.change(level, 10, 65536),
                    Catch::Matchers::Contains("sb0.port1.buffer.tx0_used") && Catch::Matchers::Contains("16 bits"));
  const unsigned wide = vcd.add_signal("x.count", 64);
  CHECK_NOTHROW(vcd.change(wide, 0, ~uint64_t(0)));
}
