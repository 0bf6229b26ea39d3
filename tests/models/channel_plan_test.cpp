// The library's channel plan: NCCL builds at most model.collective.max_channels ring channels
// (max_p2p_channels for all-to-all), whatever CTA cap allows more (Hopper: 24 and 32, logged on
// 2 x H200, hardware/measurements/partition/h200x2_nccl_debug.log), at any GPU count through a
// switch and on a fully connected node only at its own size; under rp:<n> c3bench caps it at the
// partition's CUs (model.collective.partition_caps_channels).
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "hardware/hardware_loader.h"
#include "models/fit/validation.h"
#include "models/kernels/collective_plan.h"
#include "models/run/c3_simulator.h"
#include "tests/models/model_test_util.h"
#include "workloads/measurement.h"
#include "workloads/scenario.h"

namespace c3sim::models {
namespace {

using testing::two_h200;

wl::Collective coll(wl::CollectiveOp op, std::optional<int> cap = std::nullopt) {
  wl::Collective c;
  c.op = op;
  c.bytes = 512ll << 20;
  c.max_workgroups = cap;
  return c;
}

TEST(ChannelPlan, TheLibrarysChannelsBoundAnyCap) {
  const hw::NodeSpec two = two_h200();
  ASSERT_EQ(two.model.collective.max_channels, 24);
  const auto ag = wl::CollectiveOp::all_gather;
  EXPECT_EQ(plan_collective(coll(ag), two, 2, std::nullopt).workgroups, 24);      // default 32
  EXPECT_EQ(plan_collective(coll(ag, 64), two, 2, std::nullopt).workgroups, 24);  // cap 64
  EXPECT_EQ(plan_collective(coll(ag, 16), two, 2, std::nullopt).workgroups, 16);  // cap 16: 16 built
  EXPECT_EQ(plan_collective(coll(wl::CollectiveOp::all_to_all, 64), two, 2, std::nullopt).workgroups, 32);
  // Through the switch every ring passes each GPU's port once: 8 GPUs build the same 24.
  hw::NodeSpec eight = two;
  eight.interconnect.gpus = 8;
  EXPECT_EQ(plan_collective(coll(ag, 64), eight, 8, std::nullopt).workgroups, 24);
  // On a fully connected node the plan is its own size's: a 2-GPU collective on a 4-GPU file gets
  // the cap.
  hw::NodeSpec mesh = two;
  mesh.interconnect.topology = hw::Topology::fully_connected;
  EXPECT_EQ(plan_collective(coll(ag, 64), mesh, 2, std::nullopt).workgroups, 24);
  mesh.interconnect.gpus = 4;
  EXPECT_EQ(plan_collective(coll(ag, 64), mesh, 2, std::nullopt).workgroups, 64);
}

TEST(ChannelPlan, APartitionCapsTheLibraryWhereThePresetSaysSo) {
  const hw::NodeSpec two = two_h200();
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
  const hw::NodeSpec capped = two_h200();
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

// --cross predicts another node size: on a fully connected node the file's channel plan is its own
// size's, so it is dropped (with a warning) and the 4-GPU predictions equal those of the same file
// without the plan; through a switch it is kept, without a warning.
TEST(ChannelPlan, CrossNodeValidationDropsAMeshPlanAndKeepsASwitchOne) {
  hw::NodeSpec two = two_h200();
  two.interconnect.topology = hw::Topology::fully_connected;
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

  const hw::NodeSpec switched = two_h200();
  hw::NodeSpec switched_no_plan = switched;
  switched_no_plan.model.collective.max_channels = 0;
  switched_no_plan.model.collective.max_p2p_channels = 0;
  const ValidationReport kept = validate_predictions(switched, some, "x4", cross);
  EXPECT_NE(kept.mean_abs_pct_error,
            validate_predictions(switched_no_plan, some, "x4", cross).mean_abs_pct_error);
  for (const auto& w : kept.warnings) EXPECT_EQ(w.find("not used for 4"), std::string::npos) << w;
}

}  // namespace
}  // namespace c3sim::models
