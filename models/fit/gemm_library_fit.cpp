#include "models/fit/gemm_library_fit.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/kernels/gemm_kernel.h"
#include "models/run/c3_simulator.h"

namespace c3sim::models {

namespace {

// Times alone of every shape at the library's current entries (one simulator: shapes do not
// interact when each runs alone).
std::vector<double> times_alone(const hw::NodeSpec& spec, const std::vector<MeasuredGemmAlone>& shapes) {
  SimOptions o;
  o.attribution = false;
  C3Simulator sim(spec, o);
  std::vector<double> out;
  out.reserve(shapes.size());
  for (const auto& s : shapes) out.push_back(sim.iso_gemm(s.gemm).time_us);
  return out;
}

double rms_log(const std::vector<double>& predicted, const std::vector<MeasuredGemmAlone>& shapes) {
  if (shapes.empty()) return 0;
  double sum = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const double r = std::log(predicted[i] / shapes[i].time_us);
    sum += r * r;
  }
  return std::sqrt(sum / static_cast<double>(shapes.size()));
}

double four_digits(double v) { return std::stod(fmt::format("{:.4g}", v)); }

}  // namespace

GemmLibraryFit fit_gemm_library(const hw::NodeSpec& spec, const std::vector<MeasuredGemmAlone>& shapes) {
  GemmLibraryFit fit;
  hw::NodeSpec work = spec;
  work.gemm_library = {};
  std::vector<double> predicted = times_alone(work, shapes);
  fit.rms_log_before = rms_log(predicted, shapes);

  // Fixed point: a compute-bound tile's time is inversely proportional to the efficiency, so
  // scaling it by predicted / measured lands in one step; the memory-bound part of a tile moves
  // less, and the next steps close the rest (residuals fall ~10x per step on the H200 sets).
  constexpr double kMaxEfficiency = 1.0;
  constexpr double kMinEfficiency = 0.01;
  constexpr int kSteps = 8;
  std::vector<double> eff(shapes.size());
  // Start from what the model uses without library data (`work` has none).
  for (std::size_t i = 0; i < shapes.size(); ++i) eff[i] = gemm_efficiency(shapes[i].gemm, work);
  std::vector<bool> clamped(shapes.size(), false);
  for (int step = 0; step < kSteps; ++step) {
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const double wanted = eff[i] * predicted[i] / shapes[i].time_us;
      eff[i] = std::clamp(wanted, kMinEfficiency, kMaxEfficiency);
      clamped[i] = eff[i] != wanted;
      const wl::Gemm& g = shapes[i].gemm;
      work.gemm_library.set(hw::GemmLibraryEntry{g.m, g.n, g.k, g.dtype, four_digits(eff[i]), 0, 0});
    }
    predicted = times_alone(work, shapes);
  }
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const wl::Gemm& g = shapes[i].gemm;
    fit.library.set(hw::GemmLibraryEntry{g.m, g.n, g.k, g.dtype, four_digits(eff[i]),
                                         shapes[i].time_us * 1e-6, shapes[i].records});
    if (clamped[i]) {
      fit.warnings.push_back(fmt::format(
          "gemm library: {} {} measured {:.4g} us alone would need an efficiency outside ({}, {}]; set to {} "
          "(predicted {:.4g} us): the tile model lacks a mechanism this shape shows",
          g.shape_string(), to_string(g.dtype), shapes[i].time_us, kMinEfficiency, kMaxEfficiency, eff[i],
          predicted[i]));
    }
  }
  fit.rms_log_after = rms_log(predicted, shapes);
  return fit;
}

}  // namespace c3sim::models
