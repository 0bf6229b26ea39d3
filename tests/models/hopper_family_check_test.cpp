// The Hopper family file's mechanisms (hardware/presets/families/hopper.yaml) against C3 records
// that nothing was fitted to: the H100 measurement script (hardware/measurements/h100x2/) run on
// 2 x H100 and on 2 x H200 (hardware/measurements/h200x2_family_check/), Table I under base, sp,
// prio, rp:16, rp:32, dma and dma_sp, predicted by the `h100-sxm` / `h200-sxm` preset with the
// node's GPU count set to the records' (--cross). The targets are the family's: C3 mean |error| <= 6% and the
// predicted best policy within 2% of the measured best in >= 90% of scenarios. Both GPUs' picks meet that
// target; each scenario whose pick costs more than 2% is listed below with the records' reason, and a
// listed scenario must still miss, so closing one means deleting its line.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "hardware/hardware_loader.h"
#include "models/fit/validation.h"
#include "workloads/measurement.h"

namespace c3sim::models {
namespace {

const std::string kFamilyCheck =
    std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/h200x2_family_check/h200x2_table1.jsonl";
const std::string kH100Check =
    std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/h100x2/h100x2_table1.jsonl";

constexpr double kTargetMeanAbsPct = 6.0;
constexpr double kTargetGoodPicks = 0.90;

// The file's isolated records and its C3 records under the policies the H100 check scores
// (vendor_zero_cta and vendor_zero_cta_sp, NCCL's zero-CTA path, are left out as in its README).
std::vector<wl::Record> scored_records(const std::string& file = kFamilyCheck) {
  const std::set<std::string> policies{"base", "sp", "prio", "rp:16", "rp:32", "dma", "dma_sp"};
  std::vector<wl::Record> out;
  for (wl::Record& r : wl::read_measurements(file)) {
    const auto* c3 = std::get_if<wl::C3Record>(&r);
    if (c3 == nullptr || policies.contains(c3->policy)) out.push_back(std::move(r));
  }
  return out;
}

ValidationReport family_check() {
  ValidationOptions options;
  options.cross = true;
  return validate_predictions(hw::load_hardware("h200-sxm"), scored_records(), "h200x2_family_check",
                              options);
}

TEST(HopperFamilyCheck, TwoH200TableOneMeetsTheErrorTarget) {
  const ValidationReport r = family_check();
  ASSERT_EQ(r.rows.size(), 392U);  // 56 scenarios x 7 policies
  ASSERT_EQ(r.scenarios.size(), 56U);
  EXPECT_LE(r.mean_abs_pct_error, kTargetMeanAbsPct);
  // c3sim is fast on every policy here: the same bias that the H200 calibrations remove.
  for (const auto& [policy, stats] : r.by_policy) EXPECT_LT(stats.mean_signed_pct_error, 0.0) << policy;
}

// Scenario -> why following its predicted best costs more than 2% of the measured best.
const std::map<std::string, std::string>& known_bad_picks() {
  static const std::map<std::string, std::string> gaps{
      // sp beside the 8192^3 GEMM at 2-4 GiB ends with the collective: the all-to-all beside the
      // GEMM measures 3547 us at 2 GiB against 3215 alone where the model charges 1.4%. sp is then
      // picked over the copy-engine policies, predicted within 1.2%. (The all-gathers of the same
      // scenarios pick right once NCCL's 24 channels, not 32, run them: 3490 us predicted alone
      // for 2 GiB, 3828 measured, where 32 channels gave 3204.)
      {"cb1_2G_a2a", "sp fast"},
      {"cb1_4G_a2a", "sp fast"},
      // dma and dma_sp are predicted within 0.2% of each other at 1 GiB; under dma_sp the copies,
      // launched before the GEMM, end 35-63 us later than under dma (2.1-3.7%).
      {"cb1_1G_ag", "dma_sp tie"},
      {"cb1_1G_a2a", "dma_sp tie"},
  };
  return gaps;
}

TEST(HopperFamilyCheck, TwoH200PicksMissOnlyTheKnownScenarios) {
  const ValidationReport r = family_check();
  std::set<std::string> bad;
  for (const ScenarioVerdict& v : r.scenarios)
    if (!v.good_pick()) bad.insert(v.scenario);
  for (const std::string& s : bad)
    EXPECT_TRUE(known_bad_picks().contains(s)) << s << ": a new pick more than 2% off the measured best";
  for (const auto& [s, why] : known_bad_picks())
    EXPECT_TRUE(bad.contains(s)) << s << " (" << why << ") now picks within 2%: delete its line";
  EXPECT_GE(r.picks_within_2pct, kTargetGoodPicks);
  EXPECT_NEAR(r.picks_within_2pct, 1.0 - static_cast<double>(known_bad_picks().size()) / 56.0, 1e-12);
}

ValidationReport h100_check() {
  ValidationOptions options;
  options.cross = true;
  return validate_predictions(hw::load_hardware("h100-sxm"), scored_records(kH100Check), "h100x2", options);
}

// 2 x H100, no refit: the error target is missed (6.3%, c3sim fast on every policy, -4.6% on rp:16
// to -7.3% on prio; hardware/measurements/h100x2/README.md). Most of what the H100 loses beyond the
// H200 is in the kernels alone as the records time them (the GEMMs alone predicted 2.9% fast against
// 0.7% on H200, NCCL's all-to-all alone 4-5 points and the copy-engine collectives 5-6 more) and in
// the collective after a GEMM running slower than alone (base and prio, 1.03-1.27x at 2-4 GiB), not
// in the GEMM's interference: its memory stall, in HBM utilization, carries from H200 to H100
// (gemm_memory_stall_test.cpp).
TEST(HopperFamilyCheck, TwoH100TableOneMissesTheErrorTarget) {
  const ValidationReport r = h100_check();
  ASSERT_EQ(r.rows.size(), 392U);
  ASSERT_EQ(r.scenarios.size(), 56U);
  EXPECT_GT(r.mean_abs_pct_error, kTargetMeanAbsPct)
      << "meets the target now: update the README and this test";
  EXPECT_LT(r.mean_abs_pct_error, 9.0);
  for (const auto& [policy, stats] : r.by_policy) EXPECT_LT(stats.mean_signed_pct_error, 0.0) << policy;
}

// The H100's picks meet the target (53 of 56 within 2%, 94.6%) and miss where the H200's do, for the
// family's reasons (above): sp fast beside the 8192^3 GEMM's all-to-all at 2-4 GiB, and the dma /
// dma_sp tie at 1 GiB (all-to-all only here).
TEST(HopperFamilyCheck, TwoH100PicksMeetTheTargetAndMissWhereTheFamilyDoes) {
  const ValidationReport r = h100_check();
  EXPECT_GE(r.picks_within_2pct, kTargetGoodPicks);
  const std::set<std::string> known{"cb1_1G_a2a", "cb1_2G_a2a", "cb1_4G_a2a"};
  std::set<std::string> bad;
  for (const ScenarioVerdict& v : r.scenarios)
    if (!v.good_pick()) bad.insert(v.scenario);
  EXPECT_EQ(bad, known);
  for (const std::string& s : bad) EXPECT_TRUE(known_bad_picks().contains(s)) << s << ": not a miss on H200";
}

}  // namespace
}  // namespace c3sim::models
