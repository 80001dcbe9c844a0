// `./m2vp bench calibration --fit`: the host level's fit of what no public
// source gives (docs/experiments.md, "Host-level calibration", states the
// rule): at most two quantities of real work, here the NI firmware's
// instructions per request taken and per chunk sent or received
// (ip/mmp_fit.h), found by least squares of NetPIPE's one-way latency
// (configs/netpipe.yaml) against the published curve, 32 B to 4 KB.
// Gauss-Newton on the simulator's answers, then a compass search: the
// latencies are close to linear in both counts (each instruction is 1/300
// us of the 603e), so one Gauss-Newton step from zero (slopes by finite
// differences) lands near the minimum; but they are piecewise (work that
// fits in a wait costs nothing), so the search then tries steps of 64, 32,
// ..., 1 instructions up and down in each count and keeps what lowers the
// rms, down to whole instructions. Deterministic: the same tree gives the
// same counts. They are written between the markers of ip/mmp_fit.h with
// the date and the command.
#pragma once

#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "core/output_file.h"

namespace calibration_fit {

namespace fs = std::filesystem;

using Counts = std::array<double, 2>;  // instructions per request, per chunk
// NetPIPE's latency (us) per size for the given counts.
using Measure = std::function<std::map<unsigned, double>(const Counts&)>;

constexpr const char* kNames[2] = {"instructions per request", "instructions per chunk"};
constexpr double kStep = 400;       // finite-difference step (instructions)
constexpr int kMaxIterations = 2;   // Gauss-Newton steps before the search
constexpr double kConverged = 2.0;  // instructions
constexpr int kSearchFrom = 64;     // the compass search's first step

struct Fit {
  Counts x{0, 0};
  std::map<unsigned, double> model;  // latency at x
  double rms = 0;
};

inline std::vector<double> residuals(const std::map<unsigned, double>& model,
                                     const std::map<unsigned, double>& published) {
  std::vector<double> r;
  for (const auto& [bytes, us] : published) {
    const auto m = model.find(bytes);
    r.push_back(m == model.end() ? NAN : m->second - us);
  }
  return r;
}

inline double rms(const std::vector<double>& r) {
  double s = 0;
  for (double v : r) s += v * v;
  return std::sqrt(s / static_cast<double>(r.size()));
}

// The residuals of a measurement, refusing one that lacks a published size
// (its NaN would make every comparison false and the fit meaningless).
inline std::vector<double> checked_residuals(const std::map<unsigned, double>& model,
                                             const std::map<unsigned, double>& published) {
  for (const auto& [bytes, us] : published)
    if (!model.count(bytes) || !std::isfinite(model.at(bytes)))
      throw std::runtime_error("the run has no finite latency for " + std::to_string(bytes) +
                               " bytes, a published size");
  return residuals(model, published);
}

// Least squares from zero; logs each step to `log`.
inline Fit fit(const Measure& measure, const std::map<unsigned, double>& published, std::FILE* log) {
  Fit f;
  f.model = measure(f.x);
  auto r = checked_residuals(f.model, published);
  for (int it = 0; it < kMaxIterations; ++it) {
    // Slopes (us per instruction) per size, by a step up in each count.
    std::array<std::vector<double>, 2> J;
    for (int k = 0; k < 2; ++k) {
      Counts y = f.x;
      y[k] += kStep;
      const auto ry = checked_residuals(measure(y), published);
      for (size_t i = 0; i < r.size(); ++i) J[k].push_back((ry[i] - r[i]) / kStep);
    }
    // Normal equations of the 2x2 problem: J^T J d = -J^T r.
    double a = 0, b = 0, c = 0, g0 = 0, g1 = 0;
    for (size_t i = 0; i < r.size(); ++i) {
      a += J[0][i] * J[0][i];
      b += J[0][i] * J[1][i];
      c += J[1][i] * J[1][i];
      g0 -= J[0][i] * r[i];
      g1 -= J[1][i] * r[i];
    }
    const double det = a * c - b * b;
    Counts d{0, 0};
    if (std::fabs(det) > 1e-18) {
      d = {(c * g0 - b * g1) / det, (a * g1 - b * g0) / det};
    }
    Counts next{std::round(f.x[0] + d[0]), std::round(f.x[1] + d[1])};
    // A count that would go below zero stays at zero; the other is fitted
    // alone with it there (the 1-D normal equation).
    for (int k = 0; k < 2; ++k) {
      if (next[k] >= 0) continue;
      const int o = 1 - k;
      const double dk = -f.x[k], go = o == 0 ? g0 : g1, aoo = o == 0 ? a : c;
      next[k] = 0;
      next[o] = aoo > 0 ? std::max(0.0, std::round(f.x[o] + (go - b * dk) / aoo)) : f.x[o];
    }
    const double moved = std::fabs(next[0] - f.x[0]) + std::fabs(next[1] - f.x[1]);
    const auto model = measure(next);
    const auto rn = checked_residuals(model, published);
    std::fprintf(log, "  step %d: %.0f, %.0f -> rms %.3f us\n", it + 1, next[0], next[1], rms(rn));
    std::fflush(log);
    if (rms(rn) >= rms(r)) break;  // no better: keep the last
    f.x = next;
    f.model = model;
    r = rn;
    if (moved < kConverged) break;
  }
  // Compass search around the Gauss-Newton point.
  double best = rms(r);
  for (int step = kSearchFrom; step >= 1; step /= 2) {
    for (bool moved = true; moved;) {
      moved = false;
      for (int k = 0; k < 2 && !moved; ++k) {
        for (int sign : {1, -1}) {
          Counts y = f.x;
          y[k] += sign * step;
          if (y[k] < 0) continue;
          const auto model = measure(y);
          const double e = rms(checked_residuals(model, published));
          if (e < best - 1e-9) {
            std::fprintf(log, "  search: %.0f, %.0f -> rms %.3f us\n", y[0], y[1], e);
            std::fflush(log);
            best = e;
            f.x = y;
            f.model = model;
            moved = true;
            break;
          }
        }
      }
    }
  }
  f.rms = best;
  return f;
}

// Replaces the lines between "fit: begin" and "fit: end" in `header`.
inline void write_header(const fs::path& header, const Fit& f, const std::string& command) {
  std::ifstream in(header);
  if (!in) throw std::runtime_error("cannot read " + header.string());
  std::ostringstream out;
  bool inside = false, seen = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("fit: end") != std::string::npos) inside = false;
    if (inside) continue;
    out << line << "\n";
    if (line.find("fit: begin") != std::string::npos) {
      inside = seen = true;
      char date[16];
      const std::time_t now = std::time(nullptr);
      std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
      char buf[512];
      std::snprintf(buf, sizeof buf,
                    "/* %s, %s: rms %.2f us over the published sizes */\n"
                    "#define MMP_REQUEST_INSNS_DEFAULT %.0fu /* instructions per request taken */\n"
                    "#define MMP_CHUNK_INSNS_DEFAULT %.0fu   /* instructions per chunk sent or received */\n",
                    date, command.c_str(), f.rms, f.x[0], f.x[1]);
      out << buf;
    }
  }
  if (!seen || inside) throw std::runtime_error(header.string() + ": no 'fit: begin' ... 'fit: end' markers");
  // Written whole or not at all (core/output_file.h: a new file, renamed).
  m2::OutputFile o(header.string(), "the fitted counts");
  o.stream() << out.str();
  o.commit();
}

}  // namespace calibration_fit
