// Library data in the model: a listed shape runs at its own efficiency, and `calibrate` derives
// the entries from isolated GEMM records after (and without changing) the hardware fit.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/fit/calibration.h"
#include "models/fit/gemm_library_fit.h"
#include "models/run/c3_simulator.h"
#include "models/run/simulated_runner.h"
#include "workloads/measurement.h"

namespace c3sim::models {
namespace {

const std::string kDir = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/";

double alone_us(const hw::NodeSpec& spec, const wl::Gemm& g) {
  SimOptions o;
  o.attribution = false;
  C3Simulator sim(spec, o);
  return sim.iso_gemm(g).time_us;
}

TEST(GemmLibraryModel, AListedShapeRunsAtItsOwnEfficiencyAndOthersDoNot) {
  hw::NodeSpec spec = hw::load_hardware("h200-sxm-x4");
  const wl::Gemm listed{"a", 16384, 8192, 16384, Dtype::bf16, ""};
  const wl::Gemm other{"b", 8192, 8192, 16384, Dtype::bf16, ""};
  const double listed_before = alone_us(spec, listed);
  const double other_before = alone_us(spec, other);
  spec.gemm_library.set(
      {listed.m, listed.n, listed.k, Dtype::bf16, spec.model.gemm.matrix_efficiency * 0.9, 0, 0});
  // A compute-bound shape: 10% less efficiency, ~11% longer (the tile's memory part does not move).
  EXPECT_GT(alone_us(spec, listed), listed_before * 1.08);
  EXPECT_LT(alone_us(spec, listed), listed_before * 1.12);
  EXPECT_DOUBLE_EQ(alone_us(spec, other), other_before);
  // The entry is per dtype.
  EXPECT_DOUBLE_EQ(
      alone_us(spec, wl::Gemm{"c", 16384, 8192, 16384, Dtype::fp16, ""}),
      alone_us(hw::load_hardware("h200-sxm-x4"), wl::Gemm{"c", 16384, 8192, 16384, Dtype::fp16, ""}));
}

TEST(GemmLibraryModel, FitReproducesEachShapeAloneWithinAPercent) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm-x4");
  std::vector<MeasuredGemmAlone> shapes{{wl::Gemm{"cb1", 8192, 8192, 8192, Dtype::bf16, ""}, 1460.3, 9},
                                        {wl::Gemm{"k256", 8192, 8192, 256, Dtype::bf16, ""}, 66.7, 1},
                                        {wl::Gemm{"long", 16384, 8192, 106496, Dtype::bf16, ""}, 38178.8, 1}};
  const GemmLibraryFit fit = fit_gemm_library(spec, shapes);
  ASSERT_EQ(fit.library.size(), shapes.size());
  EXPECT_TRUE(fit.warnings.empty());
  hw::NodeSpec with = spec;
  with.gemm_library = fit.library;
  for (const auto& s : shapes) {
    EXPECT_NEAR(alone_us(with, s.gemm) / s.time_us, 1.0, 0.01) << s.gemm.shape_string();
    const hw::GemmLibraryEntry* e = fit.library.find(s.gemm.m, s.gemm.n, s.gemm.k, s.gemm.dtype);
    ASSERT_NE(e, nullptr);
    EXPECT_NEAR(e->time_alone, s.time_us * 1e-6, 1e-12);
    EXPECT_EQ(e->records, s.records);
  }
  EXPECT_LT(fit.rms_log_after, 0.01);
  EXPECT_GT(fit.rms_log_before, fit.rms_log_after);
}

TEST(GemmLibraryModel, AShapeFasterThanThePeakAllowsIsClampedWithAWarning) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm-x4");
  // 8192^3 at 989 TFLOP/s peak takes 1.11 ms: 500 us is not reachable.
  const GemmLibraryFit fit =
      fit_gemm_library(spec, {{wl::Gemm{"x", 8192, 8192, 8192, Dtype::bf16, ""}, 500.0, 1}});
  ASSERT_EQ(fit.warnings.size(), 1u);
  EXPECT_NE(fit.warnings[0].find("8192x8192x8192 bf16"), std::string::npos) << fit.warnings[0];
  EXPECT_DOUBLE_EQ(fit.library.find(8192, 8192, 8192, Dtype::bf16)->efficiency, 1.0);
}

// `c3sim run`'s isolated GEMM record says when its time alone came from library data.
TEST(GemmLibraryModel, RunRecordsNameTheLibraryEfficiencyTheyUsed) {
  const auto iso_extra = [](const hw::NodeSpec& spec) {
    SimulatedRunner runner(spec);
    wl::RunRequest req;
    req.scenario.name = "s";
    req.scenario.gemm = wl::Gemm{"cb2", 16384, 8192, 16384, Dtype::bf16, ""};
    req.scenario.collective.op = wl::CollectiveOp::all_gather;
    req.scenario.collective.bytes = 1 << 20;
    req.policies = {"base"};
    for (const auto& rec : runner.run(req)) {
      if (const auto* g = std::get_if<wl::IsoGemmRecord>(&rec)) return g->extra;
    }
    return nlohmann::json{};
  };
  hw::NodeSpec spec = hw::load_hardware("h200-sxm-x4");
  EXPECT_FALSE(iso_extra(spec).contains("gemm_library_efficiency"));
  spec.gemm_library.set({16384, 8192, 16384, Dtype::bf16, 0.7, 0, 0});
  const nlohmann::json extra = iso_extra(spec);
  ASSERT_TRUE(extra.contains("gemm_library_efficiency"));
  EXPECT_DOUBLE_EQ(extra["gemm_library_efficiency"].get<double>(), 0.7);
}

std::vector<MeasurementFile> refit_files() {
  std::vector<MeasurementFile> out;
  for (const char* f : {"gemm_refit/h200x1_refit_gemm_full.jsonl", "h200x1_sweep_gemm_rest_a.jsonl"}) {
    out.push_back({kDir + f, wl::read_measurements(kDir + f)});
  }
  return out;
}

// The hardware parameters do not depend on whether the library data is derived; a shape left out
// (--exclude-gemm) gets no entry; the calibrated file holds the entries and loads back to them.
TEST(GemmLibraryModel, CalibrateDerivesEntriesAfterTheHardwareFit) {
  const hw::NodeSpec base = hw::load_hardware("h200-sxm-x4");
  const auto files = refit_files();
  CalibrationOptions off;
  off.gemm_library = false;
  const CalibrationResult without = calibrate(base, files, off);
  CalibrationOptions on;
  on.exclude_gemm_tags = {"g8192x8192x256"};
  const CalibrationResult with = calibrate(base, files, on);
  CalibrationOptions all;
  const CalibrationResult full = calibrate(base, files, all);
  EXPECT_TRUE(without.gemm_library.empty());
  EXPECT_TRUE(without.spec.gemm_library.empty());
  EXPECT_EQ(full.spec.model.gemm.matrix_efficiency, without.spec.model.gemm.matrix_efficiency);
  EXPECT_EQ(full.spec.model.memory.hbm_bw, without.spec.model.memory.hbm_bw);
  EXPECT_EQ(full.gemm_library.size(), 19u);  // the 19 shapes on all 132 SMs
  EXPECT_EQ(with.gemm_library.size(), 18u);
  EXPECT_EQ(with.spec.gemm_library.find(8192, 8192, 256, Dtype::bf16), nullptr);
  EXPECT_LT(full.gemm_library_rms_after, full.gemm_library_rms_before);
  const std::string yaml = calibrated_yaml(full, "h200-sxm-x4", {"h200x1_refit_gemm_full.jsonl"});
  EXPECT_NE(yaml.find("gemm_library:\n  - {shape: 2048x2048x2048, dtype: bf16, efficiency: "),
            std::string::npos);
  EXPECT_EQ(calibrated_yaml(without, "h200-sxm-x4", {}).find("gemm_library"), std::string::npos);
  const hw::NodeSpec loaded = hw::load_hardware_from_string(yaml, "calibrated.yaml");
  EXPECT_EQ(loaded.gemm_library, full.spec.gemm_library);
}

}  // namespace
}  // namespace c3sim::models
