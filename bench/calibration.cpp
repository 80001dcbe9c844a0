// Benchmark: the calibration of both calibrated layers, side by side.
//  - NI level: the NI-level ping-pong (experiment 1, configs/ni-pingpong.yaml)
//    against bench/data/ni-pingpong-published.tsv; bands 0.6 us below 256 B
//    (1 us resolution), 10% from 256 B up; peak throughput against the
//    published 2.4 Gbit/s, band 10%.
//  - Host level: the MMP ping-pong between two hosts (configs/mmp-pingpong.yaml,
//    the published testbed's hosts) against bench/data/mmp-netpipe-published.tsv
//    (shared/spec/calibration/mmp-netpipe.tsv); bands 1 us below 256 B, 10%
//    from 256 B up; peak throughput (512 KB - 2 MB) against the published
//    1875 Mbit/s, band 5%; and the same with NetPIPE's own method
//    (configs/netpipe.yaml: sizes c-p, c, c+p, best of three trials).
// Arguments are passed on to both runs, so a parameter change can be judged
// before it becomes a default:
//
//   ./m2vp bench calibration --set 'node*.ni.dma.rate_mbyte_per_s=800'
//
// With --fit (and nothing else) it first fits the host level's two counts
// of firmware work (bench/calibration_fit.h, ip/mmp_fit.h), writes them into
// ip/mmp_fit.h, then prints both levels with the fitted counts.
//
// Not a test: an error outside its band is a result (tests/integration/
// test_ni_pingpong.cpp enforces the NI level's bands, test_mmp.cpp the host
// level's that hold); it exits non-zero only
// when a run fails or prints no table.
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

#include "calibration_fit.h"

namespace fs = std::filesystem;

namespace {

// One calibrated layer: what runs, what it is compared with, its bands.
struct Level {
  const char* name;
  const char* config;     // below configs/
  const char* run_args;   // added before the user's arguments
  const char* published;  // below bench/data/
  double small_band_us;   // absolute band below kRelativeFromBytes
  double peak_mbps, peak_band;
  unsigned peak_from, peak_to;  // sizes (bytes) whose best throughput is the peak
  bool runs_mmp;                // its NIs run the MMP firmware (takes the fitted counts)
};

constexpr double kRelativeBand = 0.10;
constexpr unsigned kRelativeFromBytes = 256;

const Level kLevels[] = {
    {"NI level (experiment 1)", "ni-pingpong.yaml", "", "ni-pingpong-published.tsv", 0.6, 2400, 0.10, 0, ~0u, false},
    {"host level (MMP, experiment 2)", "mmp-pingpong.yaml",
     "--set 'node*.host.args=--sizes 32,64,128,256,512,1k,2k,4k,512k,1M,2M --iters 10 --warmup 2'",
     "mmp-netpipe-published.tsv", 1.0, 1875, 0.05, 512 * 1024, 2 * 1024 * 1024, true},
    {"host level (NetPIPE over MMP, experiment 2)", "netpipe.yaml", "--set 'node*.host.args=--max 2M'",
     "mmp-netpipe-published.tsv", 1.0, 1875, 0.05, 512 * 1024 - 3, 2 * 1024 * 1024 + 3, true},
};

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

struct Row {
  double published = NAN, model = NAN;
  std::string error, band;
  bool ok = false;
};

struct LevelResult {
  std::map<unsigned, Row> rows;
  double peak = 0;
  unsigned peak_bytes = 0;
  bool peak_ok = false;
  unsigned outside = 0;
};

// Runs a config; its results.tsv rows (bytes, latency_us, mbps, ...).
std::vector<std::vector<double>> run_config(const fs::path& src, const char* config, const std::string& args) {
  const fs::path out = fs::temp_directory_path() / ("m2vp-bench-calibration-" + std::string(config));
  const std::string cmd = quote(M2VP_SIM) + " run " + quote((src / "configs" / config).string()) + " --quiet --out " +
                          quote(out.string()) + " " + args;
  if (std::system((cmd + " > /dev/null 2>&1").c_str()) != 0) die("the run failed: " + cmd);
  auto rows = read_numbers(out / "results.tsv");
  if (rows.empty()) die("the run printed no table (" + (out / "results.tsv").string() + ")");
  std::error_code ec;
  fs::remove_all(out, ec);
  return rows;
}

LevelResult run_level(const Level& L, const fs::path& src, const std::string& user_args) {
  std::map<unsigned, double> model_us;
  LevelResult res;
  for (const auto& r : run_config(src, L.config, L.run_args + user_args)) {
    if (r.size() < 3) continue;
    const auto bytes = static_cast<unsigned>(r[0]);
    model_us[bytes] = r[1];
    if (bytes >= L.peak_from && bytes <= L.peak_to && r[2] > res.peak) res.peak = r[2], res.peak_bytes = bytes;
  }
  for (const auto& r : read_numbers(src / "bench/data" / L.published)) {
    if (r.size() < 2) continue;
    const auto bytes = static_cast<unsigned>(r[0]);
    Row& row = res.rows[bytes];
    row.published = r[1];
    const auto m = model_us.find(bytes);
    if (m == model_us.end()) {
      row.error = "missing";
      ++res.outside;
      continue;
    }
    row.model = m->second;
    const double err = row.model - row.published;
    char e[32], b[32];
    if (bytes < kRelativeFromBytes) {
      row.ok = std::fabs(err) <= L.small_band_us;
      std::snprintf(e, sizeof e, "%+.2f us", err);
      std::snprintf(b, sizeof b, "%.1f us", L.small_band_us);
    } else {
      row.ok = std::fabs(err) <= kRelativeBand * row.published;
      std::snprintf(e, sizeof e, "%+.1f %%", 100 * err / row.published);
      std::snprintf(b, sizeof b, "%.0f %%", 100 * kRelativeBand);
    }
    row.error = e;
    row.band = b;
    res.outside += !row.ok;
  }
  res.peak_ok = std::fabs(res.peak - L.peak_mbps) <= L.peak_band * L.peak_mbps;
  res.outside += !res.peak_ok;
  return res;
}

// The firmware arguments that set the two counts, the others at their
// defaults (ip/mmp_protocol.h: bypass 0, 2 channels, 2 KB chunks, quiet, no
// marks).
std::string counts_args(const calibration_fit::Counts& x) {
  char buf[128];
  std::snprintf(buf, sizeof buf, " --set 'node*.ni.simctrl.args=0,2,2048,0,0,%.0f,%.0f'", x[0], x[1]);
  return buf;
}

// The fit; returns the arguments that give its counts to the runs after it.
std::string fit_host_level(const fs::path& src) {
  std::map<unsigned, double> published;
  for (const auto& r : read_numbers(src / "bench/data/mmp-netpipe-published.tsv"))
    if (r.size() >= 2) published[static_cast<unsigned>(r[0])] = r[1];
  const auto measure = [&](const calibration_fit::Counts& x) {
    std::map<unsigned, double> us;
    for (const auto& r : run_config(src, "netpipe.yaml", "--set 'node*.host.args=--max 4k'" + counts_args(x)))
      if (r.size() >= 2) us[static_cast<unsigned>(r[0])] = r[1];  // NetPIPE's c row (last of a repeated size)
    return us;
  };
  std::printf(
      "fit: NetPIPE over MMP (configs/netpipe.yaml) against bench/data/mmp-netpipe-published.tsv, "
      "32 B - 4 KB, least squares of the one-way latency\n");
  std::fflush(stdout);
  calibration_fit::Fit f;
  try {
    f = calibration_fit::fit(measure, published, stdout);
  } catch (const std::exception& e) {
    die(std::string("fit: ") + e.what());
  }
  std::printf("fit: %s %.0f, %s %.0f (%.2f + %.2f us of the 603e at 300 MHz); rms %.2f us\n",
              calibration_fit::kNames[0], f.x[0], calibration_fit::kNames[1], f.x[1], f.x[0] / 300, f.x[1] / 300,
              f.rms);
  std::printf("  %7s %9s %9s %9s\n", "bytes", "published", "model", "residual");
  for (const auto& [bytes, us] : published) {
    const auto m = f.model.find(bytes);
    const double model = m == f.model.end() ? NAN : m->second;
    std::printf("  %7u %6.1f us %6.2f us %+7.2f us\n", bytes, us, model, model - us);
  }
  const fs::path header = src / "ip/mmp_fit.h";
  try {
    calibration_fit::write_header(header, f, "./m2vp bench calibration --fit");
  } catch (const std::exception& e) {
    die(std::string("fit: ") + e.what());
  }
  std::printf("fit: written to %s (the firmware takes them as defaults from its next build)\n\n",
              header.string().c_str());
  return counts_args(f.x);
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  const fs::path src = M2VP_SOURCE_DIR;
  std::string user_args, host_args;  // to every level; to the MMP levels only
  if (argc > 1 && std::string(argv[1]) == "--fit") {
    if (argc > 2) die("--fit takes no other arguments: it fits the default host level");
    host_args = fit_host_level(src);
  } else {
    for (int i = 1; i < argc; ++i) user_args += " " + quote(argv[i]);
  }
  std::printf("calibration: each calibrated layer against its published microbenchmark\n");
  std::fflush(stdout);
  std::vector<LevelResult> results;
  for (const Level& L : kLevels) results.push_back(run_level(L, src, user_args + (L.runs_mmp ? host_args : "")));

  // One table: the sizes of either level, each level's columns side by side.
  std::map<unsigned, bool> sizes;
  for (const LevelResult& r : results)
    for (const auto& [bytes, row] : r.rows) sizes[bytes] = true;
  std::printf("  %7s", "bytes");
  for (const Level& L : kLevels) std::printf("  | %-44s", L.name);
  std::printf("\n  %7s", "");
  for (size_t i = 0; i < std::size(kLevels); ++i)
    std::printf("  | %9s %9s %9s %6s %7s", "published", "model", "error", "band", "");
  std::printf("\n");
  for (const auto& [bytes, unused] : sizes) {
    std::printf("  %7u", bytes);
    for (const LevelResult& r : results) {
      const auto it = r.rows.find(bytes);
      if (it == r.rows.end()) {
        std::printf("  | %44s", "");
        continue;
      }
      const Row& row = it->second;
      std::printf("  | %6.0f us %6.2f us %9s %6s %7s", row.published, row.model, row.error.c_str(), row.band.c_str(),
                  row.ok ? "ok" : "OUTSIDE");
    }
    std::printf("\n");
  }
  unsigned outside = 0;
  for (size_t i = 0; i < std::size(kLevels); ++i) {
    const Level& L = kLevels[i];
    const LevelResult& r = results[i];
    std::printf(
        "  %s peak throughput: model %.0f Mbit/s (at %u B) vs published %.0f Mbit/s: %+.1f %% (band %.0f %%) %s\n",
        L.name, r.peak, r.peak_bytes, L.peak_mbps, 100 * (r.peak - L.peak_mbps) / L.peak_mbps, 100 * L.peak_band,
        r.peak_ok ? "ok" : "OUTSIDE");
    std::printf("  %s: %s\n", L.name,
                r.outside ? (std::to_string(r.outside) + " value(s) outside their band").c_str()
                          : "every value within its band");
    outside += r.outside;
  }
  std::printf("  in all: %u value(s) outside their band\n", outside);
  return 0;
}
