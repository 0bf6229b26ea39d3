// All-GPU mode with one kernel list per rank and skewed host starts (wl::RankKernels,
// models/program/all_gpu_simulator.h): collectives match by their order on each rank, a rank that
// arrives early waits for the late one, and the step moves by the skew.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/program/all_gpu_simulator.h"
#include "models/run/program_runner.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

// Rank 0: w (measured, 500 us), then the all-gather after it, then v after the all-gather.
// Rank 1: the same work under other names, w1 at 600 us; it starts `skew` us after rank 0.
std::string two_ranks(double skew) {
  return fmt::format(R"(program:
  name: skewed
  streams:
    - {{name: compute}}
    - {{name: comm}}
  ranks:
    - rank: 0
      kernels:
        - {{name: w, stream: compute, measured: {{time_us: 500}}}}
        - {{name: ag, stream: comm, after: [w], collective: {{op: all_gather, bytes: 256 MiB}}}}
        - {{name: v, stream: compute, after: [ag], measured: {{time_us: 300}}}}
    - rank: 1
      start_us: {}
      kernels:
        - {{name: w1, stream: compute, measured: {{time_us: 600}}}}
        - {{name: ag1, stream: comm, after: [w1], collective: {{op: all_gather, bytes: 256 MiB}}}}
        - {{name: v1, stream: compute, after: [ag1], measured: {{time_us: 300}}}}
)",
                     skew);
}

std::vector<wl::Program> ranks_of(const wl::Program& p) {
  return {wl::program_for_rank(p, 0), wl::program_for_rank(p, 1)};
}

// Hand derivation (times on the common clock, rank 0's first launch at 0). Each kernel runs alone
// on its rank, so it takes its isolated time: W0 = iso(w), W1 = iso(w1), A = iso(ag), V = iso(v)
// (an isolated time includes the launch latency, as after a release). Rank 0 arrives at the
// all-gather at W0; rank 1, starting at S = 1000 us, at S + W1. The data moves on both ranks from
// the last arrival, S + W1, for A; both instances end at S + W1 + A, and v ends V later:
// step = S + W1 + A + V. With S = 0 the last arrival is W1 (W1 > W0), so the step is W1 + A + V:
// the 1 ms skew moves the step by exactly 1 ms. Rank 0 waited S + W1 - W0 with its all-gather's
// channels on their CUs (taken on arrival, as an NCCL kernel spins for its peers); rank 1 is the straggler
// and its path is r1:w1 > r1:ag1 > r1:v1. Rank 1 alone (`--rank 1`) is W1 + A + V.
TEST(RankSkew, LateRankHoldsTheCollectiveAndTheStepMovesBySkew) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  ProgramSimulator sim(spec);
  const double skew = 1000;
  const wl::Program skewed = wl::load_programs_string(two_ranks(skew), "s.yaml").at(0);
  const wl::Program aligned = wl::load_programs_string(two_ranks(0), "a.yaml").at(0);
  wl::check_program_fits(skewed, spec.interconnect.gpus, spec.compute.total_cus());
  const std::vector<wl::Program> ranks = ranks_of(skewed);
  const double w0 = sim.isolated_us(ranks[0], 0);
  const double w1 = sim.isolated_us(ranks[1], 0);
  const double a = sim.isolated_us(ranks[0], 1);
  const double v = sim.isolated_us(ranks[0], 2);
  ASSERT_GT(w1, w0);

  const AllGpuRun run = simulate_all_gpus(sim, ranks);
  const double want = skew + w1 + a + v;
  const double tol = 1e-6;  // engine picoseconds rounded to microseconds
  EXPECT_NEAR(run.step_us, want, tol);
  const KernelRun& ag0 = run.ranks[0].kernels[1];
  const KernelRun& ag1 = run.ranks[1].kernels[1];
  EXPECT_NEAR(ag0.ready_us, w0, tol);         // rank 0 arrived at its own w's end
  EXPECT_NEAR(ag1.ready_us, skew + w1, tol);  // rank 1 later, on the common clock
  EXPECT_LT(ag0.start_us, skew + w1);         // rank 0's channels took their CUs on arrival
  EXPECT_GE(ag0.start_us, w0);                // and spun there until rank 1's kernel was up
  EXPECT_NEAR(ag0.end_us, skew + w1 + a, tol);
  EXPECT_NEAR(ag1.end_us, skew + w1 + a, tol);
  // Each rank's step from its own first launch.
  EXPECT_NEAR(run.ranks[0].step_us, want, tol);
  EXPECT_NEAR(run.ranks[1].step_us, want - skew, tol);
  EXPECT_EQ(run.straggler, 1);
  EXPECT_EQ(run.critical_path, (std::vector<std::string>{"r1:w1", "r1:ag1", "r1:v1"}));

  const AllGpuRun flat = simulate_all_gpus(sim, ranks_of(aligned));
  EXPECT_NEAR(flat.step_us, w1 + a + v, tol);
  EXPECT_NEAR(run.step_us - flat.step_us, skew, tol);

  // One rank alone: its own list from its own start, no one to wait for.
  wl::Program alone = wl::program_for_rank(skewed, 1);
  EXPECT_NEAR(sim.simulate(alone).step_us, w1 + a + v, tol);
}

// Through the runner (`c3sim run --all-gpus`): the record's step is the all-rank step, each rank's
// own step is listed, and the run is deterministic.
TEST(RankSkew, RunnerReportsTheSkewedStep) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  ProgramSimulator sim(spec);
  const TransformRegistry registry = builtin_transforms();
  const wl::Program p = wl::load_programs_string(two_ranks(1000), "s.yaml").at(0);
  ASSERT_TRUE(runs_all_gpus(p, false));
  const ProgramResult r = run_program_all_gpus(sim, registry, p, "base");
  const AllGpuRun direct = simulate_all_gpus(sim, ranks_of(p));
  EXPECT_EQ(r.step_us, direct.step_us);
  ASSERT_EQ(r.rank_step_us.size(), 2U);
  EXPECT_EQ(r.straggler, 1);
  const ProgramResult again = run_program_all_gpus(sim, registry, p, "base");
  EXPECT_EQ(wl::to_jsonl({to_record(r, 2)}), wl::to_jsonl({to_record(again, 2)}));
  // dma moves the all-gather onto copy engines on every rank; the ranks still meet there.
  const ProgramResult dma = run_program_all_gpus(sim, registry, p, "dma");
  EXPECT_GT(dma.step_us, 1000);
}

// Rank 0's all-gather waits 5 ms for rank 1 while rank 0's GEMM (another stream) runs. NCCL's
// channels spin on their SMs meanwhile, so the GEMM runs on the rest and takes longer than alone,
// though no byte moves beside it; the same all-gather on copy engines waits on the host and leaves
// the GEMM its isolated time.
std::string gemm_beside_wait(const char* impl) {
  return fmt::format(R"(program:
  name: gemm_beside_wait
  streams:
    - {{name: comm}}
    - {{name: compute}}
  ranks:
    - rank: 0
      kernels:
        - {{name: ag, stream: comm, collective: {{op: all_gather, bytes: 256 MiB, impl: {0}}}}}
        - {{name: g, stream: compute, gemm: {{m: 8192, n: 8192, k: 8192}}}}
    - rank: 1
      start_us: 5000
      kernels:
        - {{name: ag1, stream: comm, collective: {{op: all_gather, bytes: 256 MiB, impl: {0}}}}}
        - {{name: g1, stream: compute, gemm: {{m: 8192, n: 8192, k: 8192}}}}
)",
                     impl);
}

TEST(RankSkew, WaitingCollectiveHoldsItsCusFromTheKernelsBesideIt) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  ProgramSimulator sim(spec);
  const wl::Program cu = wl::load_programs_string(gemm_beside_wait("cu"), "cu.yaml").at(0);
  const std::vector<wl::Program> ranks = ranks_of(cu);
  const double gemm_alone = sim.isolated_us(ranks[0], 1);
  ASSERT_LT(gemm_alone, 4000);  // the GEMM ends inside the wait

  const AllGpuRun run = simulate_all_gpus(sim, ranks);
  const KernelRun& ag0 = run.ranks[0].kernels[0];
  const KernelRun& g0 = run.ranks[0].kernels[1];
  EXPECT_LT(ag0.start_us, 100);                           // the channels are up at once
  EXPECT_GT(ag0.end_us, 5000);                            // and move data only once rank 1 is there
  EXPECT_LT(g0.end_us, 5000);                             // the GEMM ran entirely inside the wait,
  EXPECT_GT(g0.end_us - g0.ready_us, 1.05 * gemm_alone);  // on the SMs the channels left it

  const wl::Program dma = wl::load_programs_string(gemm_beside_wait("dma"), "dma.yaml").at(0);
  const AllGpuRun host_wait = simulate_all_gpus(sim, ranks_of(dma));
  const KernelRun& gd = host_wait.ranks[0].kernels[1];
  EXPECT_NEAR(gd.end_us - gd.ready_us, gemm_alone, 1e-3 * gemm_alone);
}

// Both ranks reach the all-gather together, but rank 1's library runs it on 4 channels where rank
// 0's runs 32, so rank 1 finishes sending later; every instance ends with rank 1's. Rank 0's
// channels that have sent everything wait on their SMs for rank 1's data (an NCCL kernel polls
// until its last receive), so rank 0's GEMM beside them runs longer than where rank 1 keeps pace
// (the same rank-0 kernels, rank 1 on 32 channels too). The coupling is on each instance's own
// sending, so the wait does not feed itself: the ranks still settle in a few rounds.
std::string gemm_beside_end_wait(int peer_channels) {
  return fmt::format(R"(program:
  name: gemm_beside_end_wait
  streams:
    - {{name: comm}}
    - {{name: compute}}
  ranks:
    - rank: 0
      kernels:
        - {{name: ag, stream: comm, collective: {{op: all_gather, bytes: 1 GiB, channels: 32}}}}
        - {{name: g, stream: compute, gemm: {{m: 16384, n: 16384, k: 16384}}}}
    - rank: 1
      kernels:
        - {{name: ag1, stream: comm, collective: {{op: all_gather, bytes: 1 GiB, channels: {0}}}}}
        - {{name: g1, stream: compute, gemm: {{m: 16384, n: 16384, k: 16384}}}}
)",
                     peer_channels);
}

TEST(RankSkew, CollectiveHeldAtItsEndKeepsItsCusUntilTheLastPeersData) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  ProgramSimulator sim(spec);
  const wl::Program even = wl::load_programs_string(gemm_beside_end_wait(32), "even.yaml").at(0);
  const wl::Program uneven = wl::load_programs_string(gemm_beside_end_wait(4), "uneven.yaml").at(0);
  const AllGpuRun a = simulate_all_gpus(sim, ranks_of(even));
  const AllGpuRun b = simulate_all_gpus(sim, ranks_of(uneven));
  const KernelRun& ag_even = a.ranks[0].kernels[0];
  const KernelRun& ag = b.ranks[0].kernels[0];
  const KernelRun& ag1 = b.ranks[1].kernels[0];
  // Rank 0's own sending is the same in both runs up to the GEMM beside it; rank 1's ends later.
  ASSERT_GT(ag1.body_end_ps, ag.body_end_ps + s_to_ps(100e-6));
  EXPECT_EQ(ag.end_ps, ag1.body_end_ps);  // both instances end with the last peer's data
  EXPECT_LT(ag.body_end_ps, ag.end_ps);   // rank 0's channels waited after sending
  EXPECT_EQ(ag_even.end_ps, ag_even.body_end_ps);
  // The GEMM beside rank 0's waiting channels had fewer SMs for longer.
  const KernelRun& g_even = a.ranks[0].kernels[1];
  const KernelRun& g = b.ranks[0].kernels[1];
  ASSERT_GT(g_even.end_ps, ag_even.end_ps);  // it outlasts the collective in both runs
  EXPECT_GT(g.end_us - g.start_us, g_even.end_us - g_even.start_us + 10);
  EXPECT_LT(b.rounds, 10);
}

}  // namespace
}  // namespace c3sim::models
