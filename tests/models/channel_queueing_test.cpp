// Channels of a library collective sharing one link as a closed queueing network
// (models/node/channel_queueing.h, model.collective.channel_queueing): the network's rate by hand, and
// the collective model's bound following the channels that hold CUs (waves, several XCDs).
#include <gtest/gtest.h>

#include <memory>

#include "hardware/hardware_loader.h"
#include "models/kernels/collective_plan.h"
#include "models/kernels/cu_collective.h"
#include "models/node/channel_queueing.h"
#include "models/node/interference_state.h"
#include "models/node/node_resources.h"
#include "sim/base/units.h"
#include "sim/engine/cu_mask.h"
#include "sim/engine/gpu_dispatcher.h"
#include "workloads/collective.h"

namespace c3sim::models {
namespace {

// One channel alone runs at its own rate; two, by hand: D = 1/300, Z = 1/15 - 1/300 = 19/300;
// n = 1: R = D, Q = D / (Z + D) = 1/20; n = 2: R = 1.05 D, X = 2 / (19/300 + 1.05/300) = 600 / 20.05.
TEST(ChannelQueueing, OneAndTwoChannelsByHand) {
  EXPECT_DOUBLE_EQ(closed_network_rate(1, 15.0, 300.0), 15.0);
  EXPECT_NEAR(closed_network_rate(2, 15.0, 300.0), 600.0 / 20.05, 1e-9);
}

// Below min(n x lone, link) everywhere, rising with n, and the link's rate in the limit; the knee
// is soft: at n = 16 (n x lone = 240 of a 300 link) the network moves about 10% less.
TEST(ChannelQueueing, BelowTheHardKneeAndApproachesTheLink) {
  double before = 0;
  for (int n = 1; n <= 256; ++n) {
    const double x = closed_network_rate(n, 15.0, 300.0);
    EXPECT_LE(x, std::min(n * 15.0, 300.0) * (1 + 1e-12)) << n;
    if (n <= 32) {
      EXPECT_GT(x, before) << n;
    } else {
      EXPECT_GE(x, before * (1 - 1e-12)) << n;  // at the link, within rounding
    }
    before = x;
  }
  EXPECT_GT(closed_network_rate(256, 15.0, 300.0), 0.999 * 300.0);
  const double x16 = closed_network_rate(16, 15.0, 300.0);
  EXPECT_GT(x16, 0.85 * 240.0);
  EXPECT_LT(x16, 0.95 * 240.0);
}

TEST(ChannelQueueing, ChannelFasterThanTheLinkOrNothingToDo) {
  EXPECT_DOUBLE_EQ(closed_network_rate(4, 500.0, 300.0), 300.0);
  EXPECT_DOUBLE_EQ(closed_network_rate(0, 15.0, 300.0), 0.0);
  EXPECT_DOUBLE_EQ(closed_network_rate(4, 0.0, 300.0), 0.0);
}

// The collective alone on `cus` CUs of `spec` (as many on every XCD); microseconds from launch to
// the end less the kernel's launch and a fixed start of `start_s` held on the CUs (no steps), so
// the bytes' time shows.
double collective_us(hw::NodeSpec spec, wl::CollectiveOp op, double bytes, int channels, int cus,
                     double start_s = 0) {
  auto& c = spec.model.collective;
  c.channel_queueing = true;
  c.launch_latency = spec.model.dispatch.kernel_launch_latency + start_s;
  c.step_latency = 0;
  c.memory_stall_fraction = 0;
  c.link_stall_fraction = 0;
  c.ll_protocol_efficiency = 0;
  const wl::Collective coll{op, static_cast<std::int64_t>(bytes), wl::CollectiveImpl::cu, channels};
  const CollectivePlan plan = plan_collective(coll, spec, spec.interconnect.gpus, std::nullopt);
  engine::Simulation sim;
  NodeResources res(sim, spec, false);
  InterferenceState state(spec.compute.xcds);
  engine::GpuDispatcher gpu(sim, engine::GpuConfig{0, spec.compute.xcds, spec.compute.cus_per_xcd, 1});
  gpu.set_residency_listener([&](engine::GpuDispatcher& g) {
    for (int x = 0; x < spec.compute.xcds; ++x) state.set_resident(0, x, g.resident(0, x));
    g.refresh_all();
  });
  const engine::StreamId stream = gpu.add_stream(
      {"comm", 0,
       engine::CuMask::per_xcd(spec.compute.xcds, spec.compute.cus_per_xcd, cus / spec.compute.xcds, true)});
  auto model = std::make_shared<CuCollectiveModel>(plan, spec, res, state);
  TimePs end = -1;
  gpu.launch(stream,
             engine::KernelDesc{"comm", plan.workgroups, 1, model->launch_latency(),
                                engine::FlowOwner{0, engine::KernelKind::cu_collective}},
             model, [&](TimePs t) { end = t; });
  sim.run();
  return ps_to_us(end) - (spec.model.dispatch.kernel_launch_latency + start_s) * 1e6;
}

// 2 GPUs, one NVLink port: 16 channels at 15 GB/s each over a 300 GB/s payload rate send the
// all-gather's half (1.2 GB of 2.4 GB) at the network's rate for 16, not at min(240, 300).
hw::NodeSpec two_gpus() {
  hw::NodeSpec s = hw::load_hardware("h200-sxm");
  s.interconnect.gpus = 2;
  s.model.collective.workgroup_copy_bw = 15e9;
  s.model.collective.workgroup_local_copy_bw = 0;  // the channel rate is 15 GB/s, local block included
  s.model.collective.copy_passes[wl::CollectiveOp::all_gather] = 1;
  s.model.collective.link_bw = 300e9;
  s.model.collective.protocol_efficiency[wl::CollectiveOp::all_gather] = 1.0;
  s.model.collective.max_channels = 0;  // the channels asked for, not the family's 24 built
  return s;
}

TEST(ChannelQueueing, SixteenChannelsMoveAtTheNetworksRate) {
  const double us = collective_us(two_gpus(), wl::CollectiveOp::all_gather, 2.4e9, 16, 132);
  EXPECT_NEAR(us, 1.2e9 / closed_network_rate(16, 15e9, 300e9) * 1e6, 0.01 * us);
}

// 32 channels on 16 SMs run in two waves of 16, each at the rate of 16 (not of 32, which the
// channels launched would say): 2 x (0.6 GB / X(16)).
TEST(ChannelQueueing, WavesRunAtTheRateOfTheChannelsHoldingCus) {
  const double us = collective_us(two_gpus(), wl::CollectiveOp::all_gather, 2.4e9, 32, 16);
  EXPECT_NEAR(us, 2 * 0.6e9 / closed_network_rate(16, 15e9, 300e9) * 1e6, 0.01 * us);
}

// Several XCDs start their cohorts in one dispatch round, each during the collective's start: the
// bound must count every XCD's channels (64 on MI300X's 8 XCDs), not the few dispatched before it.
TEST(ChannelQueueing, ChannelsOnEveryXcdCount) {
  hw::NodeSpec s = hw::load_hardware("mi300x");
  s.model.collective.workgroup_copy_bw = 5e9;
  s.model.collective.copy_passes[wl::CollectiveOp::all_gather] = 1;
  const double bytes = 8 * 0.8e9;  // 7/8 of it sent, over the 7 links
  // A 20 us start held on the CUs: every cohort's flow begins after the round that dispatched them all.
  const double us = collective_us(s, wl::CollectiveOp::all_gather, bytes, 64, s.compute.total_cus(), 20e-6);
  const double link =
      s.model.collective.link_bw * s.model.collective.protocol_efficiency[wl::CollectiveOp::all_gather] * 7;
  // (Counting only the cohorts dispatched before each gives 0.65% less.)
  EXPECT_NEAR(us, bytes * 7 / 8 / closed_network_rate(64, 5e9, link) * 1e6, 0.001 * us);
}

}  // namespace
}  // namespace c3sim::models
