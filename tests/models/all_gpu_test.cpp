// All-GPU mode (models/program/all_gpu_simulator.h): a symmetric program gives the
// representative-GPU result to the picosecond; a hand-derived two-rank straggler; an imbalanced
// MoE layer is slower than the balanced one and deterministic.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/program/all_gpu_simulator.h"
#include "models/run/program_runner.h"
#include "workloads/program_generators.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

constexpr const char* kTwoRegions = R"(program:
  name: two_regions
  streams:
    - {name: compute}
    - {name: comm}
  kernels:
    - {name: mb, stream: compute, gemm: mb1}
    - {name: ag, stream: comm, collective: {op: all_gather, bytes: 1 GiB}}
    - {name: cb, stream: compute, gemm: cb1}
    - {name: rs, stream: comm, after: [mb], collective: {op: reduce_scatter, bytes: 1 GiB}}
)";

// Rank 1's GEMM has twice rank 0's rows; the all-gather waits for the GEMM (a separate stream).
constexpr const char* kStraggler = R"(program:
  name: straggler
  gpus: 2
  streams:
    - {name: compute}
    - {name: comm}
  kernels:
    - {name: g, stream: compute, gemm: {m: 4096, n: 4096, k: 4096}}
    - {name: ag, stream: comm, after: [g], collective: {op: all_gather, bytes: 256 MiB}}
  rank_overrides:
    - {rank: 1, kernel: g, m: 8192}
)";

wl::Program one(const std::string& text) { return wl::load_programs_string(text, "t.yaml").at(0); }

std::vector<wl::Program> all_ranks(const wl::Program& p, int gpus) {
  std::vector<wl::Program> out;
  out.reserve(static_cast<size_t>(gpus));
  for (int r = 0; r < gpus; ++r) out.push_back(wl::program_for_rank(p, r));
  return out;
}

void expect_same_run(const ProgramRun& a, const ProgramRun& b, const std::string& what) {
  ASSERT_EQ(a.kernels.size(), b.kernels.size()) << what;
  EXPECT_EQ(a.step_us, b.step_us) << what;
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].ready_ps, b.kernels[i].ready_ps) << what << " " << a.kernels[i].name;
    EXPECT_EQ(a.kernels[i].end_ps, b.kernels[i].end_ps) << what << " " << a.kernels[i].name;
    EXPECT_EQ(a.kernels[i].start_us, b.kernels[i].start_us) << what << " " << a.kernels[i].name;
  }
}

// Every rank runs the representative program: each rank gated by the others' (equal) times runs
// exactly as ungated, so every rank's run equals the single-GPU run, bit for bit, in two rounds.
TEST(AllGpuSimulator, SymmetricProgramGivesTheRepresentativeResult) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  ProgramSimulator sim(spec);
  const TransformRegistry registry = builtin_transforms();
  for (const wl::Program& base : {one(kTwoRegions), wl::generate_program("moe-layer", "", 8, {})}) {
    const int gpus = base.gpus.value_or(spec.interconnect.gpus);
    for (const char* policy : {"base", "sp", "dma", "rp:64", "ficco:4"}) {
      const wl::Program p = registry.apply(policy, base, spec);
      const ProgramRun single = sim.simulate(p);
      const AllGpuRun all = simulate_all_gpus(sim, all_ranks(p, gpus));
      const std::string what = base.name + " " + policy;
      ASSERT_EQ(all.ranks.size(), static_cast<size_t>(gpus)) << what;
      EXPECT_EQ(all.step_us, single.step_us) << what;
      EXPECT_LE(all.rounds, 2) << what;
      for (const ProgramRun& r : all.ranks) expect_same_run(r, single, what);
      // Through the runner too: the record's step is the representative one.
      const ProgramResult res = run_program_all_gpus(sim, registry, base, policy);
      EXPECT_EQ(res.step_us, single.step_us) << what;
      EXPECT_EQ(res.rank_step_us, std::vector<double>(static_cast<size_t>(gpus), single.step_us)) << what;
    }
  }
}

// Hand derivation. Each rank's GEMM starts at t = 0 with nothing beside it, so it ends at its
// isolated time: E0 = iso(g, m 4096) on rank 0, E1 = iso(g, m 8192) on rank 1, E1 > E0. The
// all-gather waits for the GEMM: rank 0 arrives at E0, rank 1 at E1; its data movement starts on
// both at E1 (the last arrival), with nothing else running on either rank, so it takes its
// isolated time A on both (the isolated time includes the launch latency, as after a release).
// Both instances end at E1 + A: step = E1 + A on both ranks; rank 0 waited E1 - E0, its channels
// on their CUs from its own arrival (a traced NCCL kernel's duration includes that wait); the straggler
// is rank 1 and its critical path is r1:g > r1:ag.
TEST(AllGpuSimulator, TwoRanksWaitForTheSlowerGemm) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  ProgramSimulator sim(spec);
  const wl::Program p = one(kStraggler);
  wl::check_program_fits(p, spec.interconnect.gpus, spec.compute.total_cus());
  const std::vector<wl::Program> ranks = all_ranks(p, 2);
  ASSERT_EQ(ranks[1].kernels[0].gemm.m, 8192);
  const double e0 = sim.isolated_us(ranks[0], 0);
  const double e1 = sim.isolated_us(ranks[1], 0);
  const double a = sim.isolated_us(ranks[0], 1);
  ASSERT_GT(e1, 1.5 * e0);  // twice the rows: about twice the time

  const AllGpuRun run = simulate_all_gpus(sim, ranks);
  const double want = e1 + a;
  EXPECT_NEAR(run.step_us, want, 1e-9 * want);
  ASSERT_EQ(run.ranks.size(), 2U);
  for (const ProgramRun& r : run.ranks) EXPECT_NEAR(r.step_us, want, 1e-9 * want);
  const KernelRun& ag0 = run.ranks[0].kernels[1];
  EXPECT_NEAR(ag0.ready_us, e0, 1e-9 * e0);  // rank 0 arrived at its own GEMM's end,
  EXPECT_GE(ag0.start_us, ag0.ready_us);     // its channels took their CUs then
  EXPECT_LT(ag0.start_us, e1);               // and spun there until rank 1's kernel was up
  EXPECT_NEAR(ag0.end_us, want, 1e-9 * want);
  EXPECT_EQ(run.straggler, 1);
  EXPECT_EQ(run.critical_path, (std::vector<std::string>{"r1:g", "r1:ag"}));
  // A single representative GPU (rank 0's program) would have missed the wait.
  EXPECT_NEAR(sim.simulate(ranks[0]).step_us, e0 + a, 1e-9 * (e0 + a));
}

// The MoE layer with every other rank at 1.5x the tokens: the step is set by a 1.5x rank, is
// longer than the balanced step and no longer than the 1.5x rank's program alone would take if
// every rank were like it (all ranks then end together at its combine); the same result twice.
TEST(AllGpuSimulator, ImbalancedMoeLayerWaitsForTheHeavyRanks) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  ProgramSimulator sim(spec);
  const TransformRegistry registry = builtin_transforms();
  const wl::Program balanced = wl::generate_program("moe-layer", "", 8, {});
  const wl::Program skewed = wl::with_moe_imbalance(balanced, {1.0, 1.5}, {});
  ASSERT_TRUE(skewed.asymmetric());
  const ProgramResult b = run_program_all_gpus(sim, registry, balanced, "base");
  const ProgramResult s = run_program_all_gpus(sim, registry, skewed, "base");
  const double heavy_alone = sim.simulate(wl::program_for_rank(skewed, 1)).step_us;
  EXPECT_GT(s.step_us, 1.2 * b.step_us);
  EXPECT_NEAR(s.step_us, heavy_alone, 1e-9 * heavy_alone);
  EXPECT_EQ(s.straggler % 2, 1);
  const ProgramResult again = run_program_all_gpus(sim, registry, skewed, "base");
  EXPECT_EQ(wl::to_jsonl({to_record(s, 8)}), wl::to_jsonl({to_record(again, 8)}));
}

TEST(AllGpuSimulator, DecidingPoliciesAreRefused) {
  const TransformRegistry registry = builtin_transforms();
  EXPECT_THROW(check_all_gpu_policy(registry, "per_region", {}), InputError);
  EXPECT_THROW(check_all_gpu_policy(registry, "ficco:4+per_region", {}), InputError);
  EXPECT_NO_THROW(check_all_gpu_policy(registry, "ficco:4+prio", {}));
}

}  // namespace
}  // namespace c3sim::models
