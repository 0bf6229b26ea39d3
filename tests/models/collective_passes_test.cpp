// Copy passes per sent byte by collective: measured per op where the preset gives them (NCCL on
// H200), derived from the all-gather's otherwise (MI300X), the local block each channel writes
// beside its sends, and the channel rate they set.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/kernels/collective_plan.h"
#include "workloads/collective.h"

namespace c3sim::models {
namespace {

constexpr std::int64_t GiB = std::int64_t{1} << 30;

CollectivePlan plan(wl::CollectiveOp op, const hw::NodeSpec& spec) {
  return plan_collective({op, GiB, wl::CollectiveImpl::cu, {}}, spec, 2, std::nullopt);
}

// h200-sxm: all-gather 1 pass; reduce-scatter 0.733 and all-reduce 0.846 (the 1-CTA sweep on
// 2 x H200, 15.24 / 18.42 / 21.06 GB/s of sent bytes, less each channel's local block). A
// reduce-scatter channel then sends 1 / (0.733 / 23.55 + 1 / 43.17) = 18.4 GB/s and an all-reduce
// one 1 / (0.846 / 23.55 + 0.5 / 43.17) = 21.1: faster than an all-gather channel's 15.2, as
// measured (the derived +1 / +0.5 passes gave 10 and 13.3).
TEST(CollectivePasses, HopperReductionsUseTheMeasuredPasses) {
  const hw::NodeSpec h200 = hw::load_hardware("h200-sxm");
  const auto& cm = h200.model.collective;
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_gather, h200).copy_passes, 1.0);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::reduce_scatter, h200).copy_passes, 0.733);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_reduce, h200).copy_passes, 0.846);
  EXPECT_NEAR(plan(wl::CollectiveOp::all_gather, h200).channel_rate(cm) / 1e9, 15.24, 0.02);
  EXPECT_NEAR(plan(wl::CollectiveOp::reduce_scatter, h200).channel_rate(cm) / 1e9, 18.42, 0.02);
  EXPECT_NEAR(plan(wl::CollectiveOp::all_reduce, h200).channel_rate(cm) / 1e9, 21.06, 0.02);
}

// Beside each byte it sends, a channel writes its GPU's own block locally: as much as it sends to
// one peer's share, 1 / (g - 1) (all-gather, all-to-all, reduce-scatter), half that for an
// all-reduce (its reduced block once, over two passes of sends). With the local write priced, one
// channel sends 19.93 / 15.24 = 1.31x faster on 4 GPUs than on 2, as NCCL capped at one CTA does
// (h200x4_sweep_ctas.jsonl, conditioned/h200x2_warmcoll_sweep_ctas.jsonl); without it (MI300X's
// preset, which has no local rate) the channel rate does not depend on the node size.
TEST(CollectivePasses, TheLocalBlockPerSentByteFallsWithTheNodeSize) {
  const hw::NodeSpec h200 = hw::load_hardware("h200-sxm");
  const auto on = [&](wl::CollectiveOp op, int gpus, const hw::NodeSpec& spec) {
    return plan_collective({op, GiB, wl::CollectiveImpl::cu, {}}, spec, gpus, std::nullopt);
  };
  for (auto op :
       {wl::CollectiveOp::all_gather, wl::CollectiveOp::all_to_all, wl::CollectiveOp::reduce_scatter}) {
    EXPECT_DOUBLE_EQ(on(op, 2, h200).local_bytes_per_byte_sent, 1.0);
    EXPECT_DOUBLE_EQ(on(op, 4, h200).local_bytes_per_byte_sent, 1.0 / 3);
    EXPECT_DOUBLE_EQ(on(op, 8, h200).local_bytes_per_byte_sent, 1.0 / 7);
  }
  EXPECT_DOUBLE_EQ(on(wl::CollectiveOp::all_reduce, 2, h200).local_bytes_per_byte_sent, 0.5);
  EXPECT_DOUBLE_EQ(on(wl::CollectiveOp::all_reduce, 8, h200).local_bytes_per_byte_sent, 1.0 / 14);

  const auto& cm = h200.model.collective;
  const double two = on(wl::CollectiveOp::all_gather, 2, h200).channel_rate(cm);
  const double four = on(wl::CollectiveOp::all_gather, 4, h200).channel_rate(cm);
  EXPECT_NEAR(four / two, 19.93 / 15.24, 0.01);
  EXPECT_LT(four, cm.workgroup_copy_bw);

  const hw::NodeSpec mi = hw::load_hardware("mi300x");
  ASSERT_EQ(mi.model.collective.workgroup_local_copy_bw, 0.0);
  const auto& mc = mi.model.collective;
  EXPECT_DOUBLE_EQ(on(wl::CollectiveOp::all_gather, 2, mi).channel_rate(mc), mc.workgroup_copy_bw);
  EXPECT_DOUBLE_EQ(on(wl::CollectiveOp::all_gather, 8, mi).channel_rate(mc), mc.workgroup_copy_bw);
}

// mi300x gives no per-op passes: reduce-scatter = all-gather's 1 + 1 = 2, all-reduce 1 + 0.5.
TEST(CollectivePasses, WithoutMeasuredPassesReductionsAreDerived) {
  const hw::NodeSpec mi = hw::load_hardware("mi300x");
  ASSERT_EQ(mi.model.collective.copy_passes[wl::CollectiveOp::reduce_scatter], 0.0);
  ASSERT_EQ(mi.model.collective.copy_passes[wl::CollectiveOp::all_gather], 1.0);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::reduce_scatter, mi).copy_passes, 2.0);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_reduce, mi).copy_passes, 1.5);
}

// An op's own protocol efficiency, where the file gives one, sets that op's payload share of the
// link; the others keep model.collective.protocol_efficiency (the all-gather's).
TEST(CollectivePasses, AnOpsOwnProtocolEfficiencyOverridesTheCommonOne) {
  hw::NodeSpec h200 = hw::load_hardware("h200-sxm");
  ASSERT_EQ(h200.model.collective.protocol_efficiency[wl::CollectiveOp::all_reduce], 0.0);
  const double common = h200.model.collective.protocol_efficiency[wl::CollectiveOp::all_gather];
  for (auto op : {wl::CollectiveOp::all_gather, wl::CollectiveOp::all_to_all,
                  wl::CollectiveOp::reduce_scatter, wl::CollectiveOp::all_reduce}) {
    EXPECT_DOUBLE_EQ(plan(op, h200).link_efficiency, common);
  }
  h200.model.collective.protocol_efficiency[wl::CollectiveOp::all_reduce] = 0.95;
  h200.model.collective.protocol_efficiency[wl::CollectiveOp::all_to_all] = 0.9;
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_reduce, h200).link_efficiency, 0.95);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_to_all, h200).link_efficiency, 0.9);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::reduce_scatter, h200).link_efficiency, common);
  EXPECT_DOUBLE_EQ(plan(wl::CollectiveOp::all_gather, h200).link_efficiency, common);
}

}  // namespace
}  // namespace c3sim::models
