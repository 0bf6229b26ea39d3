// A CU collective on a partition with fewer CUs than channels: one channel per CU (NCCL's and
// RCCL's kernels take a whole SM/CU), so the channels run in waves; the collective's start (fixed
// cost and steps' latency) is paid once per collective, not once per wave.
#include <gtest/gtest.h>

#include <memory>

#include "hardware/hardware_loader.h"
#include "models/kernels/collective_plan.h"
#include "models/kernels/cu_collective.h"
#include "models/node/interference_state.h"
#include "models/node/node_resources.h"
#include "sim/base/units.h"
#include "sim/engine/cu_mask.h"
#include "sim/engine/gpu_dispatcher.h"
#include "workloads/collective.h"

namespace c3sim::models {
namespace {

// 2 x H200 with round numbers: an all-gather of 640 MB sends 320 MB (half of it, to the one peer)
// as 32 channels of 10 MB; no queueing stretch; the kernel arrives 4 us after its launch and then
// spends 100 us of fixed start + 1 step x 50 us = 150 us holding its CUs before the first byte.
hw::NodeSpec two_h200(double wg_copy_bw, double link_bw) {
  hw::NodeSpec s = hw::load_hardware("h200-sxm");
  s.interconnect.gpus = 2;
  auto& c = s.model.collective;
  c.workgroup_copy_bw = wg_copy_bw;
  c.workgroup_local_copy_bw = 0;  // the channel rate is wg_copy_bw, local block included
  c.link_bw = link_bw;
  c.protocol_efficiency[wl::CollectiveOp::all_gather] = 1.0;
  c.ll_protocol_efficiency = 0;
  c.launch_latency = 104e-6;
  c.step_latency = 50e-6;
  c.default_workgroups_all_gather = 32;
  c.max_channels = 0;  // 32 channels, not the family's 24 built
  c.copy_passes[wl::CollectiveOp::all_gather] = 1;
  c.memory_stall_fraction = 0;
  c.link_stall_fraction = 0;
  c.channel_queueing = false;  // min(channels x rate, link): channel_queueing_test.cpp has the network
  s.model.dispatch.kernel_launch_latency = 4e-6;
  return s;
}

// The collective alone on `cus` SMs (a CU mask, as rp:<cus> gives it); its end in microseconds.
double collective_us(const hw::NodeSpec& spec, int cus) {
  const wl::Collective ag{wl::CollectiveOp::all_gather, 640'000'000, wl::CollectiveImpl::cu, {}};
  const CollectivePlan plan = plan_collective(ag, spec, 2, std::nullopt);
  engine::Simulation sim;
  NodeResources res(sim, spec, false);
  InterferenceState state(spec.compute.xcds);
  engine::GpuDispatcher gpu(sim, engine::GpuConfig{0, spec.compute.xcds, spec.compute.cus_per_xcd, 1});
  const engine::StreamId stream = gpu.add_stream(
      {"comm", 0, engine::CuMask::per_xcd(spec.compute.xcds, spec.compute.cus_per_xcd, cus, true)});
  auto model = std::make_shared<CuCollectiveModel>(plan, spec, res, state);
  TimePs end = -1;
  gpu.launch(stream,
             engine::KernelDesc{"comm:ag", plan.workgroups, 1, model->launch_latency(),
                                engine::FlowOwner{0, engine::KernelKind::cu_collective}},
             model, [&](TimePs t) { end = t; });
  sim.run();
  return ps_to_us(end);
}

// Copy-rate bound: 10 GB/s per channel, 32 x 10 = 320 GB/s under the 391 GB/s link. On 32 SMs
// every channel runs at once: 4 + 150 + 10 MB / 10 GB/s (1000 us) = 1154 us. On 16 SMs one
// channel per SM leaves two waves of 16, each 1000 us: 4 + 150 + 2000 = 2154 us (a start charged
// per wave would add another 150 us: 2304). Co-residency could not help here either: each
// channel's own copy rate is the bound.
TEST(CuCollectiveStart, CopyRateBoundChannelsRunInWavesWithOneStart) {
  const hw::NodeSpec spec = two_h200(10e9, 391e9);
  EXPECT_NEAR(collective_us(spec, 32), 1154.0, 0.5);
  EXPECT_NEAR(collective_us(spec, 16), 2154.0, 0.5);
}

// Link bound: 100 GB/s per channel, 16 x 100 = 1600 GB/s over a 200 GB/s link. The link sets the
// rate however many channels run: 320 MB / 200 GB/s = 1600 us after the start, on 132, 32 or 16
// SMs alike (two waves of 16 on 16 SMs each move 160 MB at the link's rate): 4 + 150 + 1600 =
// 1754 us. Charged per wave, the 16-SM run would take 1904 us.
TEST(CuCollectiveStart, LinkBoundPartitionTakesTheFullGpusTime) {
  const hw::NodeSpec spec = two_h200(100e9, 200e9);
  EXPECT_NEAR(collective_us(spec, 132), 1754.0, 0.5);
  EXPECT_NEAR(collective_us(spec, 32), 1754.0, 0.5);
  EXPECT_NEAR(collective_us(spec, 16), 1754.0, 0.5);
}

// A later wave still waits for what is left of the start: with 8 SMs and 32 channels of 10 MB at
// 10 GB/s, four waves of 1000 us follow one 150 us start: 4 + 150 + 4000 = 4154 us.
TEST(CuCollectiveStart, FourWavesPayTheStartOnce) {
  EXPECT_NEAR(collective_us(two_h200(10e9, 391e9), 8), 4154.0, 0.5);
}

}  // namespace
}  // namespace c3sim::models
