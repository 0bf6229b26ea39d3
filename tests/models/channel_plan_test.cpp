// The library's channel plan: NCCL builds at most model.collective.max_channels ring channels
// (max_p2p_channels for all-to-all) on the node it was measured on, whatever CTA cap allows more
// (2 x H200: 24 and 32, hardware/measurements/partition/h200x2_nccl_debug.log), and under rp:<n>
// c3bench caps it at the partition's CUs (model.collective.partition_caps_channels).
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "hardware/hardware_loader.h"
#include "models/fit/validation.h"
#include "models/kernels/collective_plan.h"
#include "models/run/c3_simulator.h"
#include "workloads/measurement.h"
#include "workloads/scenario.h"

namespace c3sim::models {
namespace {

const std::string kTwoGpuNode = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/h200-sxm-x2.yaml";

wl::Collective coll(wl::CollectiveOp op, std::optional<int> cap = std::nullopt) {
  wl::Collective c;
  c.op = op;
  c.bytes = 512ll << 20;
  c.max_workgroups = cap;
  return c;
}

TEST(ChannelPlan, TheNodesChannelsBoundAnyCapOnThatNodeOnly) {
  const hw::NodeSpec two = hw::load_hardware(kTwoGpuNode);
  ASSERT_EQ(two.model.collective.max_channels, 24);
  const auto ag = wl::CollectiveOp::all_gather;
  EXPECT_EQ(plan_collective(coll(ag), two, 2, std::nullopt).workgroups, 24);      // default 32
  EXPECT_EQ(plan_collective(coll(ag, 64), two, 2, std::nullopt).workgroups, 24);  // cap 64
  EXPECT_EQ(plan_collective(coll(ag, 16), two, 2, std::nullopt).workgroups, 16);  // cap 16: 16 built
  EXPECT_EQ(plan_collective(coll(wl::CollectiveOp::all_to_all, 64), two, 2, std::nullopt).workgroups, 32);
  // Another node size (a 4-GPU collective on this file) is not what the plan was measured on.
  hw::NodeSpec four = two;
  four.interconnect.gpus = 4;
  EXPECT_EQ(plan_collective(coll(ag, 64), four, 2, std::nullopt).workgroups, 64);
}

TEST(ChannelPlan, APartitionCapsTheLibraryWhereThePresetSaysSo) {
  const hw::NodeSpec two = hw::load_hardware(kTwoGpuNode);
  ASSERT_TRUE(two.model.collective.partition_caps_channels);
  const auto rs = wl::CollectiveOp::reduce_scatter;
  EXPECT_EQ(partition_channel_cap(coll(rs), two, 16), 16);
  EXPECT_EQ(partition_channel_cap(coll(rs), two, 32), 32);  // then the node's 24 bound it
  EXPECT_EQ(plan_collective(coll(rs), two, 2, partition_channel_cap(coll(rs), two, 32)).workgroups, 24);
  EXPECT_FALSE(partition_channel_cap(coll(rs), two, std::nullopt).has_value());
  EXPECT_FALSE(partition_channel_cap(coll(rs), two, two.compute.total_cus()).has_value());
  // MI300X (the paper's RCCL on a CU-masked stream) keeps its channels and runs them in waves.
  const hw::NodeSpec mi = hw::load_hardware("mi300x");
  EXPECT_FALSE(mi.model.collective.partition_caps_channels);
  EXPECT_FALSE(partition_channel_cap(coll(rs), mi, 32).has_value());
}

// 24 channels on a 16-SM partition would run as a wave of 16 and a tail of 8; capped, NCCL runs 16
// in one wave. The rp:16 collective with the cap must not take longer than without it.
TEST(ChannelPlan, Rp16RunsOneWaveOfSixteenChannels) {
  const hw::NodeSpec capped = hw::load_hardware(kTwoGpuNode);
  hw::NodeSpec waves = capped;
  waves.model.collective.partition_caps_channels = false;
  wl::Scenario sc;
  sc.name = "rs_beside_short_gemm";
  sc.gpus = 2;
  sc.gemm = wl::Gemm{"sq2048", 2048, 2048, 2048, hw::Dtype::bf16, ""};
  sc.collective = coll(wl::CollectiveOp::reduce_scatter);
  SimOptions o;
  o.attribution = false;
  C3Simulator a(capped, o);
  C3Simulator b(waves, o);
  const double one_wave = a.run_named(sc, "rp:16").coll_us;
  const double two_waves = b.run_named(sc, "rp:16").coll_us;
  EXPECT_LT(one_wave, 0.9 * two_waves);
}

// --cross predicts another node size: the file's channel plan is its own node's, so it is dropped
// (with a warning) and the 4-GPU predictions equal those of the same file without the plan.
TEST(ChannelPlan, CrossNodeValidationDropsThePlan) {
  const hw::NodeSpec two = hw::load_hardware(kTwoGpuNode);
  hw::NodeSpec no_plan = two;
  no_plan.model.collective.max_channels = 0;
  no_plan.model.collective.max_p2p_channels = 0;
  const std::string path = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/h200x4_table1.jsonl";
  std::vector<wl::Record> some;
  for (const auto& r : wl::read_measurements(path)) {
    if (std::holds_alternative<wl::C3Record>(r) && some.size() < 12) some.push_back(r);
  }
  ValidationOptions cross;
  cross.cross = true;
  const ValidationReport with = validate_predictions(two, some, "x4", cross);
  const ValidationReport without = validate_predictions(no_plan, some, "x4", cross);
  EXPECT_DOUBLE_EQ(with.mean_abs_pct_error, without.mean_abs_pct_error);
  bool warned = false;
  for (const auto& w : with.warnings) warned = warned || w.find("not used for 4") != std::string::npos;
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace c3sim::models
