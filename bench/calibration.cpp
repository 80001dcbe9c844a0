// Benchmark: calibration of the NI-level ping-pong (experiment 1). Runs
// configs/ni-pingpong.yaml with the simulator and prints, per size, the
// published one-way latency (bench/data/ni-pingpong-published.tsv), the
// model's, the error and whether it is within the band: 0.6 us below 256 B
// (the published values have 1 us resolution), 10% from 256 B up; then the
// model's peak throughput against the published 2.4 Gbit/s (band 10%).
// Arguments are passed on to the simulator, so a parameter change can be
// judged before it becomes a default:
//
//   ./m2vp bench calibration --set 'node*.ni.dma.rate_mbps=800'
//
// Not a test: an error outside its band is a result (tests/integration/
// test_ni_pingpong.cpp enforces the bands); it exits non-zero only when the
// run fails or prints no table.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

namespace fs = std::filesystem;

namespace {

constexpr double kPublishedPeakMbps = 2400;  // 75% of the 3.2 Gbit/s link
constexpr double kSmallBandUs = 0.6;         // below kRelativeFromBytes
constexpr double kRelativeBand = 0.10;
constexpr unsigned kRelativeFromBytes = 256;

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "calibration: error: %s\n", why.c_str());
  std::exit(1);
}

// Rows of a TSV file without comment lines and header: the numbers of each.
std::vector<std::vector<double>> read_numbers(const fs::path& p) {
  std::ifstream f(p);
  if (!f) die("cannot read " + p.string());
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#' || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
    std::istringstream in(line);
    std::vector<double> row;
    for (double v; in >> v;) row.push_back(v);
    rows.push_back(row);
  }
  return rows;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  const fs::path src = M2VP_SOURCE_DIR;
  const fs::path out = fs::temp_directory_path() / "m2vp-bench-calibration";
  std::string cmd = quote(M2VP_SIM) + " run " + quote((src / "configs/ni-pingpong.yaml").string()) + " --quiet --out " +
                    quote(out.string());
  for (int i = 1; i < argc; ++i) cmd += " " + quote(argv[i]);
  std::printf("calibration: NI-level ping-pong (configs/ni-pingpong.yaml) against the published values\n");
  std::fflush(stdout);
  if (std::system((cmd + " > /dev/null 2>&1").c_str()) != 0) die("the run failed: " + cmd);

  std::map<unsigned, double> published;
  for (const auto& r : read_numbers(src / "bench/data/ni-pingpong-published.tsv"))
    if (r.size() >= 2) published[static_cast<unsigned>(r[0])] = r[1];
  std::map<unsigned, double> model_us;
  double peak = 0;
  unsigned peak_bytes = 0;
  for (const auto& r : read_numbers(out / "results.tsv")) {
    if (r.size() < 3) continue;
    model_us[static_cast<unsigned>(r[0])] = r[1];
    if (r[2] > peak) peak = r[2], peak_bytes = static_cast<unsigned>(r[0]);
  }
  if (model_us.empty()) die("the run printed no table (" + (out / "results.tsv").string() + ")");

  std::printf("  %7s  %9s  %9s  %10s  %8s\n", "bytes", "published", "model", "error", "band");
  unsigned outside = 0;
  for (const auto& [bytes, pub] : published) {
    const auto m = model_us.find(bytes);
    if (m == model_us.end()) {
      std::printf("  %7u  %6.0f us  %9s\n", bytes, pub, "missing");
      ++outside;
      continue;
    }
    const double err = m->second - pub;
    bool ok;
    char error[32], band[32];
    if (bytes < kRelativeFromBytes) {
      ok = std::fabs(err) <= kSmallBandUs;
      std::snprintf(error, sizeof error, "%+.2f us", err);
      std::snprintf(band, sizeof band, "%.1f us", kSmallBandUs);
    } else {
      ok = std::fabs(err) <= kRelativeBand * pub;
      std::snprintf(error, sizeof error, "%+.1f %%", 100 * err / pub);
      std::snprintf(band, sizeof band, "%.0f %%", 100 * kRelativeBand);
    }
    outside += !ok;
    std::printf("  %7u  %6.0f us  %6.2f us  %10s  %8s  %s\n", bytes, pub, m->second, error, band,
                ok ? "ok" : "OUTSIDE");
  }
  const double perr = (peak - kPublishedPeakMbps) / kPublishedPeakMbps;
  const bool peak_ok = std::fabs(perr) <= kRelativeBand;
  outside += !peak_ok;
  std::printf("  peak throughput: model %.0f Mbit/s (at %u B) vs published %.0f Mbit/s: %+.1f %% (band %.0f %%) %s\n",
              peak, peak_bytes, kPublishedPeakMbps, 100 * perr, 100 * kRelativeBand, peak_ok ? "ok" : "OUTSIDE");
  std::printf("  %s\n", outside ? (std::to_string(outside) + " value(s) outside their band").c_str()
                                : "every value within its band");
  std::error_code ec;
  fs::remove_all(out, ec);
  return 0;
}
