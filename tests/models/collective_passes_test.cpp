// Copy passes per sent byte by collective: measured per op where the preset gives them (NCCL on
// H200), derived from the all-gather's otherwise (MI300X), and the channel rate they set.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/collective_plan.h"

namespace c3sim::models {
namespace {

constexpr std::int64_t GiB = std::int64_t{1} << 30;

CollectivePlan plan(wl::CollectiveOp op, const hw::NodeSpec& spec) {
  return plan_collective({op, GiB, wl::CollectiveImpl::cu, {}}, spec, 2, std::nullopt);
}

// h200-sxm: all-gather 1 pass; reduce-scatter 0.83 and all-reduce 0.72 (the 1-CTA sweep on
// 2 x H200: 15.2 / 18.4 and 15.2 / 21.1 GB/s of sent bytes). With the preset's 20 GB/s per
// workgroup a reduce-scatter channel sends 20 / 0.83 = 24.1 GB/s, an all-reduce one 27.8: faster
// than an all-gather channel's 20, as measured (the derived +1 / +0.5 passes gave 10 and 13.3).
TEST(CollectivePasses, HopperReductionsUseTheMeasuredPasses) {
  const hw::NodeSpec h200 = hw::load_hardware("h200-sxm");
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_gather, h200).copy_passes, 1.0);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::reduce_scatter, h200).copy_passes, 0.83);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_reduce, h200).copy_passes, 0.72);
  EXPECT_NEAR(h200.model.collective.workgroup_copy_bw / 0.83 / 1e9, 24.1, 0.05);
}

// mi300x gives no per-op passes: reduce-scatter = all-gather's 1 + 1 = 2, all-reduce 1 + 0.5.
TEST(CollectivePasses, WithoutMeasuredPassesReductionsAreDerived) {
  const hw::NodeSpec mi = hw::load_hardware("mi300x");
  ASSERT_EQ(mi.model.collective.reduce_scatter_copy_passes, 0.0);
  ASSERT_EQ(mi.model.collective.all_gather_copy_passes, 1.0);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::reduce_scatter, mi).copy_passes, 2.0);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_reduce, mi).copy_passes, 1.5);
}

// An op's own protocol efficiency, where the file gives one, sets that op's payload share of the
// link; the others keep model.collective.protocol_efficiency (the all-gather's).
TEST(CollectivePasses, AnOpsOwnProtocolEfficiencyOverridesTheCommonOne) {
  hw::NodeSpec h200 = hw::load_hardware("h200-sxm");
  ASSERT_EQ(h200.model.collective.all_reduce_protocol_efficiency, 0.0);
  const double common = h200.model.collective.protocol_efficiency;
  for (auto op : {wl::CollectiveOp::all_gather, wl::CollectiveOp::all_to_all,
                  wl::CollectiveOp::reduce_scatter, wl::CollectiveOp::all_reduce}) {
    EXPECT_DOUBLE_EQ(plan(op, h200).link_efficiency, common);
  }
  h200.model.collective.all_reduce_protocol_efficiency = 0.95;
  h200.model.collective.all_to_all_protocol_efficiency = 0.9;
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_reduce, h200).link_efficiency, 0.95);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_to_all, h200).link_efficiency, 0.9);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::reduce_scatter, h200).link_efficiency, common);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_gather, h200).link_efficiency, common);
}

}  // namespace
}  // namespace c3sim::models
