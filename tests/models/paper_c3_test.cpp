// The paper's concurrent results (Sections IV-C and VI, Figures 8 and 10) over the 30 Table II
// scenarios, from the MI300X preset as fitted to the paper (examples/mi300x_paper_fit.yaml). Bands
// are the issue's: within 5 points of the paper's % of ideal. The grounded preset misses the CU
// policies' bands by 15-25 points (docs/fidelity.md, "MI300X: the paper's characterization"): its Infinity
// Cache and RCCL rates are the measured ones and the interference the paper saw needs a mechanism the model
// lacks. These tests keep the mechanisms that reproduced the paper with the fitted rates.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/paper/paper_report.h"
#include "tests/models/model_test_util.h"

namespace c3sim::models {
namespace {

const PaperReport& report() {
  static const PaperReport r = [] {
    PaperOptions o;
    o.figures_isolated = false;
    o.figure9 = false;
    return make_paper_report(hw::load_hardware(testing::paper_fit_hardware()), o);
  }();
  return r;
}

double percent(const std::string& policy) { return report().summary.at(policy).mean_percent_of_ideal; }
const PolicySummary& by_op(const std::string& policy, const std::string& op) {
  return report().by_collective.at(policy).at(op);
}

TEST(PaperC3, MeanIdealSpeedupNear1_6) {
  EXPECT_EQ(report().summary.at("base").scenarios, 30);
  EXPECT_NEAR(report().summary.at("base").mean_ideal_speedup, 1.6, 0.1);
}

TEST(PaperC3, BaseRealizes21PercentOfIdealAndAllGatherMoreThanAllToAll) {
  EXPECT_NEAR(percent("base"), 21.0, 5.0);
  EXPECT_NEAR(by_op("base", "all_to_all").mean_speedup, 1.05, 0.03);
  EXPECT_GT(by_op("base", "all_gather").mean_percent_of_ideal,
            by_op("base", "all_to_all").mean_percent_of_ideal);
}

TEST(PaperC3, SchedulePrioritizationAndBestCuPolicy) {
  EXPECT_NEAR(percent("sp"), 42.0, 5.0);
  EXPECT_NEAR(percent("c3_best"), 48.0, 5.0);
  EXPECT_GT(percent("sp"), percent("base"));
}

TEST(PaperC3, DmaOffloadRealizes66PercentOfIdeal) {
  EXPECT_NEAR(percent("dma"), 66.0, 5.0);
  EXPECT_NEAR(by_op("dma", "all_to_all").mean_speedup, 1.43, 0.1);
  EXPECT_GE(percent("dma_rp_best"), percent("dma"));
  EXPECT_NEAR(percent("dma_rp_best"), 72.0, 5.0);
}

TEST(PaperC3, PartitioningIsNoBetterThanScheduling) {
  // Paper V-B: c3_rp (best power-of-two split) 41% of ideal; c3_sp_rp no better than c3_sp.
  EXPECT_NEAR(percent("rp_best"), 41.0, 5.0);
  EXPECT_LE(percent("sp_rp_best"), percent("sp"));
}

TEST(PaperC3, ResourcePartitioningHeuristic) {
  // The paper: 24 of 30 picked correctly, at most 1.5% lost otherwise. The model reaches 21 of 30
  // with a worst loss of 12% (docs/known-limits.md); this guards that from getting worse.
  EXPECT_GE(report().rp_heuristic_correct, 20);
  EXPECT_LT(report().rp_heuristic_max_loss_pct, 15.0);
}

}  // namespace
}  // namespace c3sim::models
