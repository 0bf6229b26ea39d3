// Cache interference between co-running GEMMs (issue 15, Deliver 2): each GEMM's hits come from
// its own tiles' panel sharing, and every other resident GEMM's footprint is pollution in the
// capacity factor (models/node/cache_model.h, "Several GEMMs at once"). Expected values are derived by
// hand in the comments from the cache model's rules:
//   L2:  hit = (1 - own unique panels / (2 x own tiles)) x min(1, L2 / (own + others' panels x 256 x depth_k
//   x 2 B)) LLC: hit = (1 - (A + B) / missed bytes) x min(1, LLC / (B + A rows in flight + others' working
//   sets))
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/kernels/gemm_kernel.h"
#include "models/node/cache_model.h"
#include "models/node/interference_state.h"
#include "models/node/node_resources.h"
#include "models/program/program_simulator.h"
#include "sim/engine/simulation.h"
#include "workloads/program.h"

namespace c3sim::models {
namespace {

// MI300X (8 XCDs x 38 CUs, 4 MiB L2 per XCD, l2_reuse_depth_k 576) with round-robin row-major
// tiles: workgroup i computes tile i on XCD i mod 8, so the sharing on an XCD is easy to count.
hw::NodeSpec round_robin_mi300x() {
  hw::NodeSpec s = hw::load_hardware("mi300x");
  s.model.gemm.workgroup_remap = hw::WorkgroupRemap::round_robin;
  s.model.gemm.tile_swizzle = 1;
  return s;
}

// A: 4864 x 2048 x 4096 bf16 = 19 x 8 tiles of 256 x 256: XCD 0 holds tiles 0, 8, ..., 144, i.e.
// column 0 of all 19 rows: 19 row panels + 1 column panel = 20 unique of 38 panel reads.
const wl::Gemm kA{"", 4864, 2048, 4096, Dtype::bf16, ""};
// B: 2048 x 2048 x 4096 bf16 = 8 x 8 tiles: XCD 0 holds column 0 of all 8 rows: 9 panels.
const wl::Gemm kB{"", 2048, 2048, 4096, Dtype::bf16, ""};

engine::CohortContext cohort_of(std::int32_t kernel, int count) {
  engine::CohortContext c;
  c.xcd = 0;
  c.count = count;
  c.first_wg = 0;
  c.owner = engine::FlowOwner{kernel, engine::KernelKind::gemm};
  return c;
}

TEST(PerKernelCache, AnotherGemmOnTheXcdIsPollutionNotPanelReuse) {
  hw::NodeSpec spec = round_robin_mi300x();
  ASSERT_EQ(spec.model.gemm.l2_reuse_depth_k, 576);
  ASSERT_DOUBLE_EQ(spec.memory.l2_bytes_per_xcd, 4194304.0);
  spec.memory.llc_bytes = 32.0 * 1024 * 1024;  // small enough that B's working set matters
  const CacheModel cache(spec);
  engine::Simulation sim;
  const NodeResources res(sim, spec, false);
  const GemmPlan a = plan_gemm(kA, spec, spec.compute.total_cus());
  const GemmPlan b = plan_gemm(kB, spec, spec.compute.total_cus());
  ASSERT_EQ(a.geometry.tiles_m, 19);
  ASSERT_EQ(a.geometry.tiles_n, 8);

  InterferenceState state(spec.compute.xcds);
  state.declare_gemm(0, a.geometry);
  state.declare_gemm(1, b.geometry);
  state.set_resident(0, 0, 19);
  GemmWorkgroupModel model(a, spec, cache, res, state);

  // A alone, 19 tiles on XCD 0: 20 panels x 256 x 576 x 2 B = 5898240 B > 4 MiB,
  // hit = (1 - 20/38) x 4194304 / 5898240 = 0.473684 x 0.711111 = 0.336842.
  // LLC: 152 tiles x 4096 x 512 x 2 B = 637534208 B read, 422785843 B missed; A + B inputs
  // 39845888 + 16777216 B; reusable = 1 - 56623104 / 422785843 = 0.866071. Working set
  // B 16777216 + (ceil(19/8) + 1 = 4 rows) x 2097152 = 25165824 B fits 32 MiB: hit 0.866071.
  const GemmTraffic alone = model.traffic(cohort_of(0, 19));
  EXPECT_NEAR(alone.hits.l2, 0.336842, 1e-6);
  EXPECT_NEAR(alone.hits.llc, 0.866071, 1e-6);

  // B's 8 tiles (column 0 of 8 rows: 9 panels, 2654208 B) join XCD 0. A's own reuse is unchanged
  // (B shares none of A's panels); B's panels take capacity:
  // hit = 0.473684 x 4194304 / (5898240 + 2654208) = 0.473684 x 0.490421 = 0.232305.
  // LLC: missed 637534208 x 0.767695 = 489431887 B, reusable 1 - 56623104 / 489431887 = 0.884309;
  // B's working set 16777216 + (ceil(8/8) + 1 = 2) x 2097152 = 20971520 B joins A's 25165824:
  // capacity 33554432 / 46137344 = 0.727273, hit 0.884309 x 0.727273 = 0.643133.
  state.set_resident(1, 0, 8);
  EXPECT_EQ(state.gemm_tiles[0], 27);
  const GemmTraffic together = model.traffic(cohort_of(0, 19));
  EXPECT_NEAR(together.hits.l2, 0.232305, 1e-6);
  EXPECT_NEAR(together.hits.llc, 0.643133, 1e-6);
  // The per-class view this replaces priced A as 27 tiles of its own sharing panels: a HIGHER hit
  // rate than alone. Per kernel, a co-runner can only take capacity away.
  EXPECT_LT(together.hits.l2, alone.hits.l2);

  // The attribution counterfactual (isolate_caches) sees A alone again.
  state.isolate_caches = true;
  const GemmTraffic isolated = model.traffic(cohort_of(0, 19));
  EXPECT_DOUBLE_EQ(isolated.hits.l2, alone.hits.l2);
  EXPECT_DOUBLE_EQ(isolated.hits.llc, alone.hits.llc);
  state.isolate_caches = false;

  // B leaving restores A's hit rates exactly (the state moves by deltas, back to where it was).
  state.set_resident(1, 0, 0);
  EXPECT_EQ(state.gemm_tiles[0], 19);
  EXPECT_TRUE(state.resident_gemms() == std::vector<std::int32_t>{0});
  EXPECT_DOUBLE_EQ(model.traffic(cohort_of(0, 19)).hits.l2, alone.hits.l2);
}

// Two copies of A on two streams of 152 CUs each (19 per XCD, disjoint masks): each runs one wave
// of 19 tiles per XCD. The node is made so that only the cache model sets a tile's time: compute
// and every bandwidth far beyond need, no memory queueing, no launch latency, and each CU's misses
// served at cu_miss_bandwidth with the same latency from LLC and HBM (hbm_miss_latency_ratio 1).
// A tile then takes read_miss / cu_miss_bw = 4096 x 512 x 2 B x (1 - L2 hit) / cu_miss_bw.
TEST(PerKernelCache, TwoConcurrentGemmsSlowEachOtherByTheirL2Footprints) {
  hw::NodeSpec spec = round_robin_mi300x();
  spec.compute.peak_flops[Dtype::bf16] = 1e21;
  spec.model.memory.xcd_fabric_bw = 1e18;
  spec.model.memory.llc_bw = 1e18;
  spec.model.memory.hbm_bw = 1e18;
  spec.model.memory.l2_bw_per_xcd = 1e18;
  spec.model.gemm.memory_stall_fraction = 0;
  spec.model.gemm.cu_miss_bw = 1e9;
  spec.model.gemm.hbm_miss_latency_ratio = 1;
  spec.model.dispatch.kernel_launch_latency = 0;

  wl::Program p;
  p.name = "two_gemms";
  p.launch_gap_us = 0;
  for (const char* name : {"s0", "s1"}) {
    wl::ProgramStream s;
    s.name = name;
    s.cus = 152;
    p.streams.push_back(s);
  }
  wl::ProgramKernel g0;
  g0.name = "g0";
  g0.stream = "s0";
  g0.kind = wl::KernelKind::gemm;
  g0.gemm = kA;
  wl::ProgramKernel g1 = g0;
  g1.name = "g1";
  g1.stream = "s1";
  p.kernels = {g0, g1};

  ProgramSimulator sim(spec);
  const ProgramRun run = sim.simulate(p);
  // Alone: hit 0.336842 (above), a tile takes 4194304 x 0.663158 / 1e9 s = 2781.5 us.
  // Together each XCD's L2 holds both GEMMs' 20 panels: hit = 0.473684 x 4194304 / 11796480
  // = 0.168421, a tile 4194304 x 0.831579 / 1e9 s. Slowdown 0.831579 / 0.663158 = 1.253968.
  for (int k = 0; k < 2; ++k) {
    const double iso = sim.isolated_us(p, k);
    EXPECT_NEAR(iso, 4194304 * (1 - 0.336842) / 1e9 * 1e6, 0.01);
    EXPECT_NEAR(run.kernels[static_cast<size_t>(k)].duration_us() / iso, 1.253968, 1e-5);
  }
  // Attribution: with the caches isolated (each GEMM priced as alone) and everything else as in the
  // run, each GEMM takes its isolated time: the whole slowdown is the two GEMMs' cache
  // interference.
  ProgramKnobs knobs;
  knobs.isolate_caches = true;
  const ProgramRun no_cache = sim.simulate(p, knobs);
  for (int k = 0; k < 2; ++k) {
    EXPECT_NEAR(no_cache.kernels[static_cast<size_t>(k)].duration_us(), sim.isolated_us(p, k), 1e-6);
  }
  // By source: g0's cache interference is all g1's (hiding g1's footprint gives g0 its isolated
  // time), 0.253968 x 2781.5 us = 706.4 us, and the other way round.
  const CacheInterference ci = sim.cache_interference(p);
  const double derived = 0.253968 * 4194304 * (1 - 0.336842) / 1e9 * 1e6;
  for (int k = 0; k < 2; ++k) {
    const auto u = static_cast<size_t>(k);
    const std::string other = k == 0 ? "g1" : "g0";
    EXPECT_NEAR(ci.total_us[u], derived, 0.05);
    ASSERT_EQ(ci.from_us[u].size(), 1U);
    ASSERT_TRUE(ci.from_us[u].contains(other));
    EXPECT_NEAR(ci.from_us[u].at(other), ci.total_us[u], 1e-6);
  }
}

}  // namespace
}  // namespace c3sim::models
