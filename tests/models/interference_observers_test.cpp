// The interference observers work on typed owners: per-kernel memory loads with "others" = every
// other running kernel, and bandwidth attribution per kernel. Expected values derived by hand.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/node/bottleneck_tally.h"
#include "models/node/interference_state.h"
#include "models/node/memory_load_observer.h"
#include "models/node/node_resources.h"

namespace c3sim::models {
namespace {

using engine::FlowOwner;
using engine::KernelKind;

// A bound-limited flow of `rate` bytes/s on one resource (1 byte per unit of work).
engine::FlowSpec stream_on(engine::ResourceId r, double rate, FlowOwner owner) {
  engine::FlowSpec f;
  f.work = 1e30;  // never finishes within the test
  f.demands = {{r, 1.0}};
  f.bound = rate;
  f.owner = owner;
  return f;
}

TEST(MemoryLoadObserver, EachKernelSeesTheSumOfEveryOtherKernelsLoad) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  engine::Simulation sim;
  NodeResources res(sim, spec, /*private_memory=*/false);
  const engine::ResourceId llc = res.queueing_level(KernelClass::gemm);
  const double cap = sim.solver().capacity(llc);
  InterferenceState state(spec.compute.xcds);
  int refreshes = 0;
  MemoryLoadObserver obs(res, state, [&] { ++refreshes; });
  // Three kernels at 20%, 10% and 5% of the LLC (together 35%: nothing saturates, each runs at
  // its bound). Two flows for kernel 0 (two cohorts) at 10% each.
  const auto g1 = sim.start_flow(stream_on(llc, 0.10 * cap, {0, KernelKind::gemm}), nullptr);
  (void)sim.start_flow(stream_on(llc, 0.10 * cap, {0, KernelKind::gemm}), nullptr);
  (void)sim.start_flow(stream_on(llc, 0.10 * cap, {1, KernelKind::cu_collective}), nullptr);
  const auto m = sim.start_flow(stream_on(llc, 0.05 * cap, {2, KernelKind::memory}), nullptr);
  obs.settle(sim);
  ASSERT_EQ(state.memory_load.size(), 3u);
  EXPECT_NEAR(state.memory_load[0], 0.20, 1e-12);
  EXPECT_NEAR(state.memory_load[1], 0.10, 1e-12);
  EXPECT_NEAR(state.memory_load[2], 0.05, 1e-12);
  // The GEMM's others: 0.10 + 0.05; the collective's: 0.20 + 0.05; the memory kernel's: 0.30.
  EXPECT_NEAR(state.memory_load_of_others(0), 0.15, 1e-12);
  EXPECT_NEAR(state.memory_load_of_others(1), 0.25, 1e-12);
  EXPECT_NEAR(state.memory_load_of_others(2), 0.30, 1e-12);
  EXPECT_EQ(refreshes, 1);

  // Nothing changed: no refresh. A move below the 1% threshold (5% -> 5.5%): none either.
  obs.settle(sim);
  sim.update_flow(m, {{llc, 1.0}}, 0.055 * cap);
  obs.settle(sim);
  EXPECT_EQ(refreshes, 1);
  EXPECT_NEAR(state.memory_load[2], 0.05, 1e-12);  // the applied value stays until a refresh
  // Kernel 0 loses a cohort (20% -> 10%): above the threshold, all loads are re-applied.
  sim.solver().remove_flow(g1, sim.now());
  obs.settle(sim);
  EXPECT_EQ(refreshes, 2);
  EXPECT_NEAR(state.memory_load[0], 0.10, 1e-12);
  EXPECT_NEAR(state.memory_load[2], 0.055, 1e-12);
}

TEST(InterferenceState, LoadOfOthersSumsOnlyTheKernelsWithALoad) {
  InterferenceState state(1);
  state.memory_load.assign(6, 0.0);
  state.hbm_load.assign(6, 0.0);
  state.set_load(4, 0.25, 0.0);
  state.set_load(1, 0.5, 0.125);
  state.set_load(3, 0.0, 0.0);  // no load: not listed
  EXPECT_EQ(state.loaded_kernels(), (std::vector<std::int32_t>{1, 4}));
  EXPECT_DOUBLE_EQ(state.memory_load_of_others(0), 0.75);
  EXPECT_DOUBLE_EQ(state.memory_load_of_others(1), 0.25);
  EXPECT_DOUBLE_EQ(state.hbm_load_of_others(4), 0.125);
  state.set_load(1, 0.0, 0.0);  // kernel 1 ended
  EXPECT_EQ(state.loaded_kernels(), (std::vector<std::int32_t>{4}));
  EXPECT_DOUBLE_EQ(state.memory_load_of_others(0), 0.25);
  EXPECT_DOUBLE_EQ(state.hbm_load_of_others(4), 0.0);
}

TEST(InterferenceState, WorkgroupsOnlyLeavesTheCopyEnginesLoadOut) {
  // model.gemm.memory_stall_workgroups_only: a GEMM's stall counts the traffic other kernels'
  // workgroups issue; a copy-engine transfer's load stays in the plain sum.
  InterferenceState state(1);
  state.memory_load.assign(4, 0.0);
  state.hbm_load.assign(4, 0.0);
  state.set_load(1, 0.25, 0.0);       // a collective's workgroups
  state.set_load(2, 0.5, 0.0, true);  // a copy engine
  EXPECT_DOUBLE_EQ(state.memory_load_of_others(0), 0.75);
  EXPECT_DOUBLE_EQ(state.memory_load_of_others(0, true), 0.25);
  EXPECT_DOUBLE_EQ(state.memory_load_of_others(1, true), 0.0);
  EXPECT_DOUBLE_EQ(state.memory_load_of_others(2, true), 0.25);
}

TEST(MemoryLoadObserver, BehindAnLlcEachKernelsHbmLoadIsTrackedToo) {
  // model.memory.hbm_queueing on MI300X: the LLC is the queueing level, HBM is behind it. A GEMM cohort
  // moving 1 byte of LLC and 0.5 byte of HBM traffic per unit at 0.1 x LLC capacity units/s, and a collective
  // moving 2 bytes to each at 0.05 x LLC capacity: LLC loads 0.10 and 0.10; HBM loads 0.05 x llc / hbm and
  // 0.10 x llc / hbm (6.42 / 4.2 TB/s in the preset).
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  engine::Simulation sim;
  NodeResources res(sim, spec, /*private_memory=*/false);
  const engine::ResourceId llc = res.queueing_level(KernelClass::gemm);
  const engine::ResourceId hbm = res.memory(KernelClass::gemm).hbm;
  ASSERT_NE(llc, hbm);
  const double cap = sim.solver().capacity(llc);
  const double ratio = cap / sim.solver().capacity(hbm);
  InterferenceState state(spec.compute.xcds);
  MemoryLoadObserver obs(
      res, state, [] {}, /*track_hbm=*/true);
  engine::FlowSpec g = stream_on(llc, 0.10 * cap, {0, KernelKind::gemm});
  g.demands.push_back({hbm, 0.5});
  engine::FlowSpec c = stream_on(llc, 0.05 * cap, {1, KernelKind::cu_collective});
  c.demands = {{llc, 2.0}, {hbm, 2.0}};
  (void)sim.start_flow(g, nullptr);
  (void)sim.start_flow(c, nullptr);
  obs.settle(sim);
  ASSERT_EQ(state.hbm_load.size(), 2u);
  EXPECT_NEAR(state.memory_load[0], 0.10, 1e-12);
  EXPECT_NEAR(state.memory_load[1], 0.10, 1e-12);
  EXPECT_NEAR(state.hbm_load[0], 0.05 * ratio, 1e-12);
  EXPECT_NEAR(state.hbm_load[1], 0.10 * ratio, 1e-12);
  EXPECT_NEAR(state.hbm_load_of_others(0), 0.10 * ratio, 1e-12);
}

TEST(MemoryLoadObserver, WithoutAnLlcNoSeparateHbmLoad) {
  // H200, even asked to track HBM: HBM is the queueing level itself; hbm_load stays empty
  // (memory_load is HBM's).
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  engine::Simulation sim;
  NodeResources res(sim, spec, /*private_memory=*/false);
  const engine::ResourceId hbm = res.queueing_level(KernelClass::gemm);
  const double cap = sim.solver().capacity(hbm);
  InterferenceState state(spec.compute.xcds);
  MemoryLoadObserver obs(
      res, state, [] {}, /*track_hbm=*/true);
  (void)sim.start_flow(stream_on(hbm, 0.2 * cap, {0, KernelKind::gemm}), nullptr);
  (void)sim.start_flow(stream_on(hbm, 0.1 * cap, {1, KernelKind::cu_collective}), nullptr);
  obs.settle(sim);
  EXPECT_TRUE(state.hbm_load.empty());
  EXPECT_NEAR(state.memory_load_of_others(0), 0.1, 1e-12);
  EXPECT_EQ(state.hbm_load_of_others(0), 0.0);
}

TEST(BottleneckObserver, ChargesEachKernelTheOtherKernelsShareOfASaturatedResource) {
  // Kernel 0 (two flows) and kernel 1 (one flow) on one 100 B/s link, all unbounded: 33.3 each,
  // saturated. Kernel 0's share of the link is 2/3, kernel 1's 1/3. Over one second, kernel 0's
  // two flows each add share_other / count = (1/3) / 2, total 1/3 s on "link"; kernel 1's flow
  // adds (2/3) / 1 = 2/3 s. A third, idle resource of kind hbm is never charged.
  engine::Simulation sim;
  const engine::ResourceId link = sim.add_resource("l", 100.0, engine::ResourceKind::link, "out0");
  (void)sim.add_resource("h", 100.0, engine::ResourceKind::hbm, "");
  BottleneckObserver obs;
  auto flow = [&](FlowOwner o) {
    engine::FlowSpec f;
    f.work = 1e30;
    f.demands = {{link, 1.0}};
    f.owner = o;
    (void)sim.start_flow(std::move(f), nullptr);
  };
  flow({0, KernelKind::gemm});
  flow({0, KernelKind::gemm});
  flow({1, KernelKind::dma_transfer});
  obs.before_step(sim, s_to_ps(1.0));
  EXPECT_NEAR(obs.tally().of(0).at("link"), 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(obs.tally().of(1).at("link"), 2.0 / 3.0, 1e-12);
  EXPECT_FALSE(obs.tally().of(0).contains("hbm"));
  // A second second with nothing changed replays the same terms: the tallies double.
  obs.before_step(sim, s_to_ps(1.0));
  EXPECT_NEAR(obs.tally().of(0).at("link"), 2.0 / 3.0, 1e-12);
  EXPECT_TRUE(obs.tally().of(5).empty());  // a kernel that never ran
}

}  // namespace
}  // namespace c3sim::models
