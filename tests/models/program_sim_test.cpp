// The program simulator: the pair's front (C3Simulator) runs the policy's two-kernel program and
// reports its times, and stream order, events, launch gaps and the ideal critical path behave as
// the program defines.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/policies/plan_transform.h"
#include "models/program/program_simulator.h"
#include "models/run/c3_simulator.h"
#include "tests/models/model_test_util.h"
#include "workloads/paper_catalog.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

double rel(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-30); }

// Every catalog scenario under every launch-plan policy: the pair front's total, GEMM and
// collective times are those of the policy's two-kernel program (apply_launch_plan), launch to end.
TEST(ProgramSimulator, PairProgramsReproduceThePairSimulator) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  C3Simulator pair(spec, testing::timing_only());
  ProgramSimulator prog(spec);
  int compared = 0;
  for (const wl::Scenario& s : wl::paper_scenarios()) {
    for (const char* name :
         {"base", "sp", "prio", "rp:32", "sp_rp:64", "dma", "dma_rp:64", "vendor_zero_cta"}) {
      const auto policy = make_policy(name, spec);
      const C3Result want = pair.run_timing(s, *policy);
      const wl::Program p = apply_launch_plan(wl::program_from_scenario(s), policy->plan({spec, s, 0, 0}));
      const ProgramRun got = prog.simulate(p);
      ASSERT_EQ(got.kernels.size(), 2U);
      const KernelRun& g = got.kernels[p.kernels[0].kind == wl::KernelKind::gemm ? 0 : 1];
      const KernelRun& c = got.kernels[p.kernels[0].kind == wl::KernelKind::gemm ? 1 : 0];
      EXPECT_LT(rel(got.step_us, want.total_us), 1e-9) << s.name << " " << name;
      EXPECT_LT(rel(g.end_us - g.launch_us, want.gemm_us), 1e-9) << s.name << " " << name;
      EXPECT_LT(rel(c.end_us - c.launch_us, want.coll_us), 1e-9) << s.name << " " << name;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 30 * 8);
}

// Isolated kernels: the pair simulator's iso_gemm / iso_coll.
TEST(ProgramSimulator, IsolatedKernelsMatchThePairBaselines) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  C3Simulator pair(spec, testing::timing_only());
  ProgramSimulator prog(spec);
  const wl::Scenario s = *wl::find_paper_scenario("cb1_896M_ag");
  const wl::Program p = wl::program_from_scenario(s);
  EXPECT_LT(rel(prog.isolated_us(p, 0), pair.iso_gemm(s.gemm).time_us), 1e-9);
  EXPECT_LT(rel(prog.isolated_us(p, 1), pair.iso_coll(s.collective, 8).time_us), 1e-9);
}

constexpr const char* kChain = R"(program:
  name: chain
  launch_gap_us: 5
  streams: [{name: a}, {name: b}]
  kernels:
    - {name: ag, stream: b, collective: {op: all_gather, bytes: 64 MiB}}
    - {name: g1, stream: a, after: [ag], gemm: {m: 4096, n: 4096, k: 4096}}
    - {name: g2, stream: a, gemm: {m: 4096, n: 4096, k: 4096}}
    - {name: cp, stream: b, dma_copy: {bytes: 64 MiB}}
    - {name: add, stream: a, after: [cp], memory: {bytes: 512 MiB}}
)";

TEST(ProgramSimulator, DependenciesAndStreamOrderHold) {
  ProgramSimulator prog(hw::load_hardware("mi300x"));
  const wl::Program p = wl::load_programs_string(kChain, "chain.yaml")[0];
  const ProgramRun r = prog.simulate(p);
  const auto& k = r.kernels;
  // Host launches every 5 us (launch_gap_us).
  for (size_t i = 0; i < k.size(); ++i) EXPECT_DOUBLE_EQ(k[i].launch_us, 5.0 * static_cast<double>(i));
  EXPECT_GE(k[1].ready_us, k[0].end_us);  // g1 waits for ag (event)
  EXPECT_GE(k[2].start_us, k[1].end_us);  // g2 behind g1 on stream a (one GEMM fills every CU)
  EXPECT_GE(k[3].ready_us, k[0].end_us);  // the copy waits for ag on stream b
  EXPECT_GE(k[4].ready_us, k[3].end_us);  // add waits for the copy (event)
  EXPECT_GE(k[4].start_us, k[2].end_us);  // and for g2 (stream order)
  EXPECT_DOUBLE_EQ(r.step_us, std::max({k[0].end_us, k[1].end_us, k[2].end_us, k[3].end_us, k[4].end_us}));
  // Every kernel is at least as slow as alone.
  for (size_t i = 0; i < k.size(); ++i) {
    EXPECT_GE(k[i].duration_us() * (1 + 1e-12), prog.isolated_us(p, static_cast<int>(i))) << k[i].name;
  }
}

// One host-driven copy to a peer, alone: host submission, the engine's start (descriptor fetch to
// first byte), the bytes at the engine's rate (46 GB/s, below the 48 GB/s link), the host-seen
// completion, as each transfer of a DMA collective pays them (the preset's 3.4 + 2.3 + 2.3 us).
TEST(ProgramSimulator, ADmaCopyPaysSubmissionEngineStartAndCompletion) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  ProgramSimulator prog(spec);
  const wl::Program p = wl::load_programs_string(R"(program:
  name: one_copy
  streams: [{name: s}]
  kernels:
    - {name: cp, stream: s, dma_copy: {bytes: 1 MiB, to_peer: true}}
)",
                                                 "copy.yaml")[0];
  const hw::DmaModel& dm = spec.model.dma;
  ASSERT_GT(dm.engine_start_latency, 0);
  ASSERT_LT(dm.engine_bw, spec.model.collective.link_bw);
  const double expected_us =
      (dm.submit_latency + dm.engine_start_latency + double(1 << 20) / dm.engine_bw + dm.completion_latency) *
      1e6;
  EXPECT_NEAR(prog.isolated_us(p, 0), expected_us, 1e-6 * expected_us);
}

// A serial chain on one stream: the ideal critical path is the sum of isolated times plus the
// launch gaps that are not hidden behind running kernels (here none are exposed: each kernel is
// launched long before its predecessor ends), and the run equals it (nothing co-runs).
TEST(ProgramSimulator, IdealOfAChainIsTheSumOfIsolatedTimes) {
  ProgramSimulator prog(hw::load_hardware("mi300x"));
  const wl::Program p = wl::load_programs_string(R"(program:
  name: serial
  launch_gap_us: 1
  streams: [{name: s}]
  kernels:
    - {name: a, stream: s, gemm: {m: 8192, n: 8192, k: 8192}}
    - {name: b, stream: s, gemm: {m: 8192, n: 8192, k: 8192}}
)",
                                                 "serial.yaml")[0];
  const double iso = prog.isolated_us(p, 0);
  EXPECT_NEAR(prog.ideal_us(p), 2 * iso, 1e-9 * iso);
  const ProgramResult r = prog.run(p, "base");
  EXPECT_NEAR(r.serial_us, 2 * iso, 1e-9 * iso);
  // The second GEMM's workgroups start when the first's leave CUs: the run is within a wave's
  // tail of the ideal, never shorter.
  EXPECT_GE(r.step_us, r.ideal_us * (1 - 1e-9));
  EXPECT_LT(r.step_us, r.ideal_us * 1.05);
}

}  // namespace
}  // namespace c3sim::models
