// The host level's fit (bench/calibration_fit.h): least squares of two
// counts of firmware work against a published curve, and the rewrite of
// ip/mmp_fit.h's marked lines. The simulator is stood in for by models
// whose best counts are known.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/calibration_fit.h"
#include "temp_dir.h"

namespace cf = calibration_fit;
namespace fs = std::filesystem;

namespace {

const std::map<unsigned, double> kPublished = {{32, 13},  {64, 13},   {128, 13},  {256, 14},
                                               {512, 16}, {1024, 20}, {2048, 25}, {4096, 33}};

// A linear stand-in: each request costs 2 x 1/300 us per one-way trip, each
// chunk 2 x 1/300 us per chunk of 2016 bytes; exact at (r, c).
cf::Measure linear_model(double r, double c, int* calls = nullptr) {
  return [=](const cf::Counts& x) {
    if (calls) ++*calls;
    std::map<unsigned, double> us;
    for (const auto& [bytes, pub] : kPublished) {
      const double chunks = std::ceil(bytes / 2016.0);
      us[bytes] = pub + 2 * (x[0] - r) / 300 + 2 * chunks * (x[1] - c) / 300;
    }
    return us;
  };
}

}  // namespace

TEST_CASE("calibration fit: recovers the counts of a linear model to the instruction", "[calibration_fit]") {
  std::FILE* log = std::fopen("/dev/null", "w");
  int calls = 0;
  const cf::Fit f = cf::fit(linear_model(219, 99, &calls), kPublished, log);
  std::fclose(log);
  CHECK(f.x[0] == Approx(219).margin(1));
  CHECK(f.x[1] == Approx(99).margin(1));
  CHECK(f.rms < 0.01);
  CHECK(calls < 60);  // Gauss-Newton lands next to it; the search only polishes
}

TEST_CASE("calibration fit: a count whose best value is below zero stays at zero", "[calibration_fit]") {
  std::FILE* log = std::fopen("/dev/null", "w");
  // The model is already too slow without any per-chunk work: the chunk
  // count would go negative.
  const cf::Fit f = cf::fit(linear_model(300, -150, nullptr), kPublished, log);
  std::fclose(log);
  CHECK(f.x[1] == 0);
  CHECK(f.x[0] >= 0);
  // The rms at the fit is no worse than at either count moved by one.
  for (int k = 0; k < 2; ++k)
    for (int d : {-1, 1}) {
      cf::Counts y = f.x;
      y[k] += d;
      if (y[k] < 0) continue;
      CHECK(cf::rms(cf::residuals(linear_model(300, -150)(y), kPublished)) >= f.rms - 1e-12);
    }
}

TEST_CASE("calibration fit: the header's marked lines are replaced, the rest kept", "[calibration_fit]") {
  TempDir dir{"m2vp-fit"};
  const fs::path h = dir.path / "mmp_fit.h";
  std::ofstream(h) << "/* head */\n/* fit: begin */\n#define OLD 1u\n/* fit: end */\n#endif\n";
  cf::Fit f;
  f.x = {219, 99};
  f.rms = 0.37;
  cf::write_header(h, f, "./m2vp bench calibration --fit");
  std::ifstream in(h);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  CHECK(s.find("/* head */\n/* fit: begin */\n/* 20") == 0);
  CHECK(s.find("./m2vp bench calibration --fit: rms 0.37 us") != std::string::npos);
  CHECK(s.find("#define MMP_REQUEST_INSNS_DEFAULT 219u") != std::string::npos);
  CHECK(s.find("#define MMP_CHUNK_INSNS_DEFAULT 99u") != std::string::npos);
  CHECK(s.find("OLD") == std::string::npos);
  CHECK(s.find("/* fit: end */\n#endif\n") != std::string::npos);
  // No markers: an error naming the file, the file untouched.
  std::ofstream(h) << "#define X 1\n";
  CHECK_THROWS_WITH(cf::write_header(h, f, "x"), Catch::Contains(h.string()));
}
