// Unit tests for the run's measurement table (models/core/result_table.*):
// @columns / @row console lines become results.tsv.
#include <catch2/catch.hpp>

#include "core/result_table.h"
#include "core/text_output.h"

TEST_CASE("result table: @columns and @row lines from any console", "[results]") {
  m2::ResultTable& t = m2::ResultTable::instance();
  t.clear();
  m2::TextOutput fw("node0.ni.cpu"), host("node1.host");
  fw.write("hello\n@columns bytes latency_us mbps\n@row 32 4.2 60.9\n");
  host.write("@columns bytes latency_us mbps\n@row 64 5.10 100.4\n");
  host.write("@row 1 2\n");            // wrong width: dropped (logged)
  host.write("@columns size time\n");  // other columns: ignored (logged)
  host.write("@row 128 6.0 170.7\n");
  REQUIRE(t.columns() == std::vector<std::string>{"bytes", "latency_us", "mbps"});
  REQUIRE(t.rows().size() == 3);
  CHECK(t.rows()[0] == std::vector<std::string>{"32", "4.2", "60.9"});
  CHECK(t.rows()[2][0] == "128");
  CHECK(fw.lines().size() == 3);  // the lines stay in the output too
  CHECK(t.format() ==
        "bytes  latency_us   mbps\n"
        "   32         4.2   60.9\n"
        "   64        5.10  100.4\n"
        "  128         6.0  170.7\n");
}
