// Calibration from the committed H200 measurements: reproducibility of the committed calibrated
// file, leave-one-GEMM-out generalization, and run time.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/fit/calibration.h"
#include "models/fit/validation.h"
#include "workloads/collective.h"

namespace c3sim::models {
namespace {

const std::string kDir = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/";
const std::vector<std::string> kFiles{
    "h200x4_table1.jsonl",           "h200x4_sweep_gemm.jsonl",        "h200x4_sweep_ctas.jsonl",
    "h200x4_sweep_dma.jsonl",        "h200x4_sweep_dma_engines.jsonl", "h200x1_sweep_gemm_rest_a.jsonl",
    "h200x1_sweep_gemm_rest_b.jsonl"};

std::vector<MeasurementFile> load_files() {
  std::vector<MeasurementFile> out;
  out.reserve(kFiles.size());
  for (const auto& f : kFiles) out.push_back({kDir + f, wl::read_measurements(kDir + f)});
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// (Its speed is tests/bench/bench_calibration.cpp's.)
TEST(Calibration, RecalibratingReproducesTheCommittedFile) {
  const CalibrationResult r = calibrate(hw::load_hardware("h200-sxm-x4"), load_files());
  const std::string committed =
      read_text(std::string(C3SIM_SOURCE_DIR) + "/hardware/calibrated/h200-sxm-x4.yaml");
  EXPECT_EQ(calibrated_yaml(r, "h200-sxm-x4", kFiles), committed);
  // Every stage must improve on the base file.
  for (const auto& s : r.stages) EXPECT_LT(s.rms_log_after, s.rms_log_before) << s.name;
  // The committed file loads back to the fitted spec.
  const hw::NodeSpec loaded =
      hw::load_hardware(std::string(C3SIM_SOURCE_DIR) + "/hardware/calibrated/h200-sxm-x4.yaml");
  EXPECT_EQ(loaded.model.dma.engine_bw, r.spec.model.dma.engine_bw);
  EXPECT_EQ(loaded.model.gemm.matrix_efficiency, r.spec.model.gemm.matrix_efficiency);
}

// Leaving one GEMM shape's isolated records out of the fit must predict that shape's C3 runs
// about as well as the full fit of the hardware model does (the shape's own iso records are not
// what makes the hardware model right). The full fit here has no library data: with it, a shape's
// own time alone is input (hardware/gemm_library.h), which a left-out shape cannot have.
TEST(Calibration, LeaveOneGemmOutPredictsItsC3RunsAsWellAsTheFullFit) {
  const auto files = load_files();
  const hw::NodeSpec base = hw::load_hardware("h200-sxm-x4");
  CalibrationOptions hardware_only;
  hardware_only.gemm_library = false;
  const CalibrationResult full = calibrate(base, files, hardware_only);
  std::map<std::string, std::vector<wl::Record>> by_tag;
  for (const auto& rec : files.front().records) {
    if (const auto* c = std::get_if<wl::C3Record>(&rec)) by_tag[c->gemm_tag].push_back(rec);
  }
  ASSERT_EQ(by_tag.size(), 7u);
  for (const auto& [tag, records] : by_tag) {
    CalibrationOptions o;
    o.exclude_gemm_tags = {tag};
    const CalibrationResult loo = calibrate(base, files, o);
    const double e_loo = validate_predictions(loo.spec, records, tag).mean_abs_pct_error;
    const double e_full = validate_predictions(full.spec, records, tag).mean_abs_pct_error;
    std::printf("leave-one-out %-4s: MAE %.2f%% (full fit %.2f%%)\n", tag.c_str(), e_loo, e_full);
    EXPECT_LT(e_loo, e_full + 3.0) << tag;
    EXPECT_LT(e_loo, 15.0) << tag;  // the leave-one-out bound
  }
}

// The targets on the committed H200 data, and what the partition stage contributes.
TEST(Calibration, CalibratedModelMeetsTheValidationTargets) {
  const auto files = load_files();
  const CalibrationResult r = calibrate(hw::load_hardware("h200-sxm-x4"), files);
  const ValidationReport v = validate_predictions(r.spec, files.front().records, kFiles.front());
  EXPECT_LT(v.mean_abs_pct_error, 8.0);
  EXPECT_GE(v.best_policy_accuracy, 0.85);
  EXPECT_LE(v.best_policy_accuracy_strict, v.best_policy_accuracy);
  for (const auto& s : v.scenarios) {
    if (s.match() && !s.exact_match()) {
      EXPECT_GT(s.predicted_best_measured_us, s.measured_best_us) << s.scenario;
      EXPECT_LT(s.predicted_best_measured_us, 1.05 * s.measured_best_us) << s.scenario << ": a wide 'tie'";
    }
  }
  // The GEMM measured beside a partition runs slower than in a group of the same size: the fit
  // must find that, and the rp policies must predict better with it than without it. Checked on
  // the ordered-launch 2 x H200 Table I (h200x2_ordered_table1.jsonl, predicted with the node's GPU
  // count set to 2): on these simultaneous-release 4 x H200 records the rp policies, with the
  // GEMM's memory stall behind the collective, come out +4-5% slow with it and -5-6% fast without
  // it, where the ordered records tell the two apart (rp:16 6.2% against 10.8%, rp:32 10.1% against
  // 12.6%).
  EXPECT_LT(r.spec.model.gemm.beside_partition_efficiency, 0.95);
  hw::NodeSpec without = r.spec;
  without.model.gemm.beside_partition_efficiency = 1.0;
  const std::string ordered = kDir + "h200x2_ordered_table1.jsonl";
  ValidationOptions cross;
  cross.cross = true;
  const ValidationReport vo = validate_predictions(r.spec, wl::read_measurements(ordered), ordered, cross);
  const ValidationReport wo = validate_predictions(without, wl::read_measurements(ordered), ordered, cross);
  for (const char* p : {"rp:16", "rp:32"}) {
    EXPECT_LT(vo.mean_abs_pct_error_by_policy.at(p), wo.mean_abs_pct_error_by_policy.at(p)) << p;
  }
}

// Records the fit cannot use are counted, per stage and reason, in the warnings the CLI prints.
TEST(Calibration, UnusedRecordsAreCountedInTheWarnings) {
  const auto files = load_files();
  int c3 = 0, cb1_gemm = 0, gemm = 0;
  for (const auto& f : files) {
    for (const auto& rec : f.records) {
      c3 += std::holds_alternative<wl::C3Record>(rec) ? 1 : 0;
      if (const auto* g = std::get_if<wl::IsoGemmRecord>(&rec); g && !g->extra.contains("partition")) {
        ++gemm;
        cb1_gemm += g->tag == "cb1" ? 1 : 0;
      }
    }
  }
  ASSERT_GT(cb1_gemm, 0);
  CalibrationOptions o;
  o.exclude_gemm_tags = {"cb1"};
  const CalibrationResult r = calibrate(hw::load_hardware("h200-sxm-x4"), files, o);
  const auto has = [&](const std::string& text) {
    return std::any_of(r.warnings.begin(), r.warnings.end(),
                       [&](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  EXPECT_EQ(r.c3_records_ignored, c3);
  EXPECT_TRUE(has(fmt::format("{} c3 records not used", c3)));
  EXPECT_TRUE(
      has(fmt::format("stage 'gemm': {} of {} records not used: GEMM tag excluded (cb1)", cb1_gemm, gemm)));
  // The committed DMA sweep also holds other DMA configurations than the c3 runs' (36 records).
  EXPECT_TRUE(has("stage 'dma': 36 of"));
  EXPECT_EQ(r.stages.front().skipped, cb1_gemm);
  EXPECT_NE(calibrated_yaml(r, "h200-sxm-x4", kFiles).find("skipped 36: another DMA configuration"),
            std::string::npos);
}

// GEMMs measured 20x slower than the model's fastest plan can explain push the matrix efficiency
// to its lower bound (0.3): the value is the bound itself, printed as 0.3, and a warning.
TEST(Calibration, AParameterAtItsBoundIsAWarningAndReadsAsTheBound) {
  auto files = load_files();
  for (auto& f : files) {
    for (auto& rec : f.records) {
      if (auto* g = std::get_if<wl::IsoGemmRecord>(&rec)) g->time_us *= 20;
    }
  }
  const CalibrationResult r = calibrate(hw::load_hardware("h200-sxm-x4"), files);
  EXPECT_EQ(r.spec.model.gemm.matrix_efficiency, 0.3);
  EXPECT_TRUE(r.stages.front().params.front().at_bound);
  EXPECT_EQ(r.stages.front().params.front().after, "0.3");
  EXPECT_TRUE(std::any_of(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
    return w.find("model.gemm.matrix_efficiency ended at its lower bound, 0.3 (range 0.3 .. 1)") !=
           std::string::npos;
  }));
  EXPECT_NE(calibrated_yaml(r, "h200-sxm-x4", kFiles).find("matrix_efficiency: 0.3 "), std::string::npos);
}

// NCCL's ops saturate the link at different shares (2 x H200, 32-64 CTAs, 2 GiB: all-gather 278,
// reduce-scatter 285, all-reduce 340, all-to-all 335 GB/s sent per GPU; the same rate per CTA below
// the knee). Calibrated on that CTA sweep, each op gets its own efficiency, and link x efficiency
// lands within 10% of its measured 2 GiB rate (the sweep runs 16 MiB - 2 GiB, and the measured rate
// still grows with size: reduce-scatter 247 GB/s at 256 MiB, 274 at 1 GiB; one latency plus one
// rate fits the whole range at 8% below the largest). With one efficiency for all ops the fit put
// the all-reduce 17% slow and the reduce-scatter 16% fast at the sizes c3 runs use.
TEST(Calibration, EachCollectiveOpWithRecordsGetsItsOwnLinkShare) {
  const std::string path = kDir + "conditioned/h200x2_warmcoll_sweep_ctas.jsonl";
  std::vector<MeasurementFile> files{{path, wl::read_measurements(path)}};
  hw::NodeSpec base = hw::load_hardware("h200-sxm-x4");
  base.interconnect.gpus = 2;
  const CalibrationResult r = calibrate(base, files);
  const auto& cm = r.spec.model.collective;
  const std::map<std::string, std::pair<double, double>> rate_measured{
      {"all_gather", {cm.protocol_efficiency[wl::CollectiveOp::all_gather], 278e9}},
      {"reduce_scatter", {cm.protocol_efficiency[wl::CollectiveOp::reduce_scatter], 285e9}},
      {"all_reduce", {cm.protocol_efficiency[wl::CollectiveOp::all_reduce], 340e9}},
      {"all_to_all", {cm.protocol_efficiency[wl::CollectiveOp::all_to_all], 335e9}}};
  for (const auto& [op, em] : rate_measured) {
    ASSERT_GT(em.first, 0) << op;
    EXPECT_NEAR(cm.link_bw * em.first / em.second, 1.0, 0.10) << op;
  }
  EXPECT_GT(cm.protocol_efficiency[wl::CollectiveOp::all_reduce],
            1.1 * cm.protocol_efficiency[wl::CollectiveOp::all_gather]);
  const std::string yaml = calibrated_yaml(r, "h200-sxm-x2.yaml", {path});
  EXPECT_NE(yaml.find("all_reduce_protocol_efficiency: "), std::string::npos);
  EXPECT_NE(yaml.find("(base protocol_efficiency's 0.865)"), std::string::npos);
}

TEST(Calibration, ACalibratedFileKeepsItsNameWhenCalibratedAgain) {
  EXPECT_EQ(calibrated_name("h200-sxm-x4"), "h200-sxm-x4-calibrated");
  EXPECT_EQ(calibrated_name("h200-sxm-x4-calibrated"), "h200-sxm-x4-calibrated");
  EXPECT_EQ(calibrated_name("calibrated"), "calibrated-calibrated");  // no "-" before it: not a suffix
}

TEST(Calibration, NoIsolatedRecordsIsAnInputError) {
  std::vector<MeasurementFile> none{{"empty.jsonl", {}}};
  EXPECT_THROW(calibrate(hw::load_hardware("h200-sxm-x4"), none), InputError);
}

}  // namespace
}  // namespace c3sim::models
