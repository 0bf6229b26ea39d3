// Validation scoring on small hand-made record sets, every expected number derived in a comment,
// and the node-size handling (--cross) on the simulator.
#include <algorithm>

#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/fit/validation.h"
#include "models/run/c3_simulator.h"
#include "sim/base/errors.h"

namespace c3sim::models {
namespace {

constexpr std::int64_t MiB = 1024 * 1024;

ValidationRow row(const std::string& scenario, const std::string& policy, double measured, double predicted,
                  const std::string& shape, const std::string& op, std::int64_t bytes, double spread = 0) {
  ValidationRow r;
  r.scenario = scenario;
  r.policy = policy;
  r.gpus = 4;
  r.gemm_shape = shape;
  r.op = op;
  r.bytes = bytes;
  r.measured_us = measured;
  r.measured_spread_us = spread;
  r.predicted_us = predicted;
  r.pct_error = 100.0 * (predicted - measured) / measured;
  return r;
}

// A: base 100 measured / 90 predicted (-10%), sp 105 / 84 (-20%): predicted pick sp, measured best
//    base, cost 105/100 - 1 = 5%.
// B: base 200 / 220 (+10%), sp 202 / 202 (0%, spread 3): pick sp, best base, cost 1%; 202 - 200 <= 3
//    is within the spread, so a match but not an exact one.
// C: base 50 / 60 and rp:32 50 / 60 (+20% each): both times tie, so both go to "base" (sorts first).
std::vector<ValidationRow> three_scenarios() {
  return {row("A", "base", 100, 90, "X", "all_gather", 64 * MiB),
          row("A", "sp", 105, 84, "X", "all_gather", 64 * MiB),
          row("B", "base", 200, 220, "X", "all_to_all", 64 * MiB),
          row("B", "sp", 202, 202, "X", "all_to_all", 64 * MiB, 3),
          row("C", "rp:32", 50, 60, "Y", "all_to_all", MiB),
          row("C", "base", 50, 60, "Y", "all_to_all", MiB)};
}

TEST(Validation, PerPolicyErrorsAreSignedAndAbsolute) {
  const ValidationReport r = score_rows(three_scenarios());
  // Errors: A -10, -20; B +10, 0; C +20, +20. |.| mean 80/6, signed 20/6.
  EXPECT_NEAR(r.mean_abs_pct_error, 80.0 / 6, 1e-9);
  EXPECT_NEAR(r.mean_signed_pct_error, 20.0 / 6, 1e-9);
  // base: -10, +10, +20 -> |.| 40/3, signed 20/3; sp: -20, 0 -> 10, -10; rp:32: +20.
  EXPECT_EQ(r.by_policy.at("base").records, 3);
  EXPECT_NEAR(r.by_policy.at("base").mean_abs_pct_error, 40.0 / 3, 1e-9);
  EXPECT_NEAR(r.by_policy.at("base").mean_signed_pct_error, 20.0 / 3, 1e-9);
  EXPECT_NEAR(r.by_policy.at("sp").mean_abs_pct_error, 10, 1e-9);
  EXPECT_NEAR(r.by_policy.at("sp").mean_signed_pct_error, -10, 1e-9);
  EXPECT_NEAR(r.by_policy.at("rp:32").mean_signed_pct_error, 20, 1e-9);
  EXPECT_NEAR(r.mean_abs_pct_error_by_policy.at("base"), 40.0 / 3, 1e-9);
}

TEST(Validation, BreaksErrorsDownByShapeSizeAndOp) {
  const ValidationReport r = score_rows(three_scenarios());
  // Shape X (A, B): -10, -20, +10, 0 -> |.| 10, signed -5. Shape Y (C): +20, +20.
  EXPECT_EQ(r.by_gemm_shape.at("X").records, 4);
  EXPECT_NEAR(r.by_gemm_shape.at("X").mean_abs_pct_error, 10, 1e-9);
  EXPECT_NEAR(r.by_gemm_shape.at("X").mean_signed_pct_error, -5, 1e-9);
  EXPECT_NEAR(r.by_gemm_shape.at("Y").mean_abs_pct_error, 20, 1e-9);
  // all_gather (A): -10, -20 -> 15, -15; all_to_all (B, C): +10, 0, +20, +20 -> 12.5, +12.5.
  EXPECT_NEAR(r.by_op.at("all_gather").mean_abs_pct_error, 15, 1e-9);
  EXPECT_NEAR(r.by_op.at("all_gather").mean_signed_pct_error, -15, 1e-9);
  EXPECT_NEAR(r.by_op.at("all_to_all").mean_abs_pct_error, 12.5, 1e-9);
  EXPECT_NEAR(r.by_op.at("all_to_all").mean_signed_pct_error, 12.5, 1e-9);
  // 64 MiB is shape X's records, 1 MiB shape Y's.
  EXPECT_NEAR(r.by_collective_bytes.at(64 * MiB).mean_signed_pct_error, -5, 1e-9);
  EXPECT_EQ(r.by_collective_bytes.at(MiB).records, 2);
  const auto j = to_json(r);
  EXPECT_EQ(j["by_collective_bytes"]["1048576"]["records"], 2);
  EXPECT_NE(render_summary(r).find("1 MiB"), std::string::npos);
}

TEST(Validation, CostOfFollowingThePredictedPick) {
  const ValidationReport r = score_rows(three_scenarios());
  ASSERT_EQ(r.scenarios.size(), 3U);
  const auto& a = r.scenarios[0];
  EXPECT_EQ(a.measured_best, "base");
  EXPECT_EQ(a.predicted_best, "sp");
  EXPECT_NEAR(a.pick_cost(), 0.05, 1e-12);
  EXPECT_FALSE(a.good_pick());
  EXPECT_FALSE(a.match());
  const auto& b = r.scenarios[1];
  EXPECT_NEAR(b.pick_cost(), 0.01, 1e-12);
  EXPECT_TRUE(b.good_pick());
  EXPECT_TRUE(b.match());
  EXPECT_FALSE(b.exact_match());
  // Costs 5%, 1%, 0 -> mean 2%, worst 5%; B and C within 2% -> 2/3; exact names: C only -> 1/3;
  // within the spread: B and C -> 2/3.
  EXPECT_NEAR(r.mean_pick_cost, 0.02, 1e-12);
  EXPECT_NEAR(r.max_pick_cost, 0.05, 1e-12);
  EXPECT_NEAR(r.picks_within_2pct, 2.0 / 3, 1e-12);
  EXPECT_NEAR(r.best_policy_accuracy_strict, 1.0 / 3, 1e-12);
  EXPECT_NEAR(r.best_policy_accuracy, 2.0 / 3, 1e-12);
}

TEST(Validation, TiesDoNotDependOnRecordOrder) {
  auto rows = three_scenarios();
  const ValidationReport forward = score_rows(rows);
  std::reverse(rows.begin(), rows.end());
  const ValidationReport backward = score_rows(rows);
  ASSERT_EQ(forward.scenarios.size(), backward.scenarios.size());
  for (size_t i = 0; i < forward.scenarios.size(); ++i) {
    EXPECT_EQ(forward.scenarios[i].measured_best, backward.scenarios[i].measured_best);
    EXPECT_EQ(forward.scenarios[i].predicted_best, backward.scenarios[i].predicted_best);
  }
  // C's equal times go to "base", the name that sorts first, whichever record came first.
  EXPECT_EQ(forward.scenarios[2].measured_best, "base");
  EXPECT_EQ(backward.scenarios[2].predicted_best, "base");
  EXPECT_EQ(to_json(forward)["scenarios"], to_json(backward)["scenarios"]);
}

TEST(Validation, RepeatsOfOnePolicyAreMergedByTheirMean) {
  // base measured 100 and 110 (mean 105), sp 104: the measured best is sp (104 < 105), which
  // neither "first record wins" (100) nor "fastest repeat" (100) would give.
  const ValidationReport r = score_rows({row("D", "base", 100, 90, "X", "all_gather", MiB),
                                         row("D", "sp", 104, 95, "X", "all_gather", MiB),
                                         row("D", "base", 110, 90, "X", "all_gather", MiB)});
  ASSERT_EQ(r.scenarios.size(), 1U);
  EXPECT_EQ(r.scenarios[0].measured_best, "sp");
  EXPECT_EQ(r.scenarios[0].predicted_best, "base");
  EXPECT_NEAR(r.scenarios[0].measured_best_us, 104, 1e-12);
  EXPECT_NEAR(r.scenarios[0].predicted_best_measured_us, 105, 1e-12);  // (100 + 110) / 2
  EXPECT_NEAR(r.scenarios[0].pick_cost(), 105.0 / 104 - 1, 1e-12);
}

wl::C3Record c3_record(int gpus) {
  // Strings built, then moved in: GCC 12 warns (-Wrestrict, a false positive) on assigning a
  // literal to these members once this file shares a unity batch with others.
  wl::C3Record c;
  c.scenario = std::string("s");
  c.policy = std::string("base");
  c.gemm_tag = std::string("g");
  c.m = c.n = c.k = 4096;
  c.op = std::string("all_gather");
  c.bytes = 64 * MiB;
  c.gpus = gpus;
  c.time_us = 1000;
  return c;
}

wl::Scenario scenario_of(const wl::C3Record& c) {
  wl::Scenario s;
  s.name = c.scenario;
  s.gpus = c.gpus;
  s.gemm = wl::Gemm{c.gemm_tag, c.m, c.n, c.k, hw::Dtype::bf16, ""};
  s.collective.op = wl::CollectiveOp::all_gather;
  s.collective.bytes = c.bytes;
  s.collective.impl = wl::CollectiveImpl::cu;
  return s;
}

TEST(Validation, CrossPredictsOnTheRecordsNodeSizeAndWarns) {
  const hw::NodeSpec x4 = hw::load_hardware("h200-sxm-x4");
  ASSERT_EQ(x4.interconnect.gpus, 4);
  const std::vector<wl::Record> two{c3_record(2)};
  // Without --cross: the 2-GPU scenario runs on the 4-GPU node, with a warning that says so.
  const ValidationReport plain = validate_predictions(x4, two, "mem");
  ASSERT_EQ(plain.warnings.size(), 1U);
  EXPECT_NE(plain.warnings[0].find("--cross"), std::string::npos);
  EXPECT_FALSE(plain.cross);
  EXPECT_EQ(plain.rows[0].predicted_us,
            C3Simulator(x4).run_named(scenario_of(c3_record(2)), "base").total_us);
  // With --cross: the node's GPU count is the records'.
  ValidationOptions o;
  o.cross = true;
  const ValidationReport cross = validate_predictions(x4, two, "mem", o);
  hw::NodeSpec x2 = x4;
  x2.interconnect.gpus = 2;
  EXPECT_EQ(cross.rows[0].predicted_us,
            C3Simulator(x2).run_named(scenario_of(c3_record(2)), "base").total_us);
  EXPECT_EQ(cross.hardware_gpus, 4);
  EXPECT_EQ(cross.record_gpus, std::vector<int>{2});
  ASSERT_EQ(cross.warnings.size(), 1U);
  EXPECT_NE(cross.warnings[0].find("describes 4 GPUs, the records use 2"), std::string::npos);
  // Records on the file's own node size warn about nothing.
  EXPECT_TRUE(validate_predictions(x4, {c3_record(4)}, "mem", o).warnings.empty());
}

TEST(Validation, MoreGpusThanTheFileNeedCross) {
  const hw::NodeSpec x4 = hw::load_hardware("h200-sxm-x4");
  const std::vector<wl::Record> eight{c3_record(8)};
  EXPECT_THROW(validate_predictions(x4, eight, "mem"), InputError);
  ValidationOptions o;
  o.cross = true;
  const ValidationReport r = validate_predictions(x4, eight, "mem", o);
  hw::NodeSpec x8 = x4;
  x8.interconnect.gpus = 8;
  EXPECT_EQ(r.rows[0].predicted_us, C3Simulator(x8).run_named(scenario_of(c3_record(8)), "base").total_us);
}

TEST(Validation, ScoringNoRowsIsAModelError) { EXPECT_THROW(score_rows({}), ModelError); }

}  // namespace
}  // namespace c3sim::models
