// The FiCCO-style selection heuristic scored against the exhaustive sweep on the 30 catalog pairs
// made data-dependent (the GEMM consumes the collective: the FiCCO setting) and on generated
// programs, on MI300X, H100 SXM and (held out: not designed on) H200 SXM; and its estimate checked
// by hand on two-kernel programs.
#include <gtest/gtest.h>

#include <cstdio>

#include "hardware/hardware_loader.h"
#include "models/kernels/collective_plan.h"
#include "models/kernels/gemm_kernel.h"
#include "models/policies/ficco_heuristic.h"
#include "workloads/paper_catalog.h"
#include "workloads/program_generators.h"

namespace c3sim::models {
namespace {

std::vector<wl::Program> dependent_catalog_pairs() {
  std::vector<wl::Program> programs;
  for (const wl::Scenario& s : wl::paper_scenarios()) {
    wl::Program p = wl::program_from_scenario(s);
    std::swap(p.kernels[0], p.kernels[1]);  // collective first, the GEMM waits for it
    p.kernels[1].after = {p.kernels[0].name};
    programs.push_back(std::move(p));
  }
  return programs;
}

// The C3 setting: the two kernels independent, each free to overlap the other.
std::vector<wl::Program> independent_catalog_pairs() {
  std::vector<wl::Program> programs;
  for (const wl::Scenario& s : wl::paper_scenarios()) programs.push_back(wl::program_from_scenario(s));
  return programs;
}

std::vector<wl::Program> generated_programs() {
  return {wl::fsdp_layer_program(wl::llama_70b()), wl::tp_block_program(wl::llama_70b(), 8),
          wl::moe_layer_program(wl::mixtral_8x7b())};
}

HeuristicScore score(const std::string& hardware, const std::vector<wl::Program>& programs,
                     const char* what) {
  ProgramSimulator sim(hw::load_hardware(hardware));
  const HeuristicScore s = score_ficco_heuristic(sim, builtin_transforms(), programs);
  std::printf(
      "FiCCO heuristic, %s on %s: %d/%d exact, %d within 2%%, mean regret %.2f%%, worst %.2f%%; "
      "estimate vs simulation over all candidates: mean %.1f%%, worst %.1f%%\n",
      what, hardware.c_str(), s.exact, s.programs, s.within_2pct, 100 * s.mean_regret, 100 * s.worst_regret,
      100 * s.mean_estimate_error, 100 * s.worst_estimate_error);
  EXPECT_EQ(s.programs, static_cast<int>(programs.size()));
  EXPECT_GE(s.worst_regret, 0.0);  // the sweep's best is the best by construction
  EXPECT_GE(s.within_2pct, s.exact);
  EXPECT_GE(s.worst_estimate_error, s.mean_estimate_error);
  return s;
}

// Reached when the estimate was written (docs/programs.md): 30/30 within 2% on every device's
// catalog pairs (dependent and independent), 3/3 on every device's generated programs. The floors
// leave two pairs (one program) of room for model changes; FiCCO's own heuristic reaches 81%
// (24.3 of 30).
TEST(FiccoHeuristic, ScoredAgainstTheSweepOnDependentCatalogPairs) {
  const auto pairs = dependent_catalog_pairs();
  EXPECT_GE(score("mi300x", pairs, "catalog pairs (AG/A2A -> GEMM)").within_2pct, 28);
  EXPECT_GE(score("h100-sxm", pairs, "catalog pairs (AG/A2A -> GEMM)").within_2pct, 28);
}

TEST(FiccoHeuristic, ScoredOnGeneratedPrograms) {
  const auto programs = generated_programs();
  EXPECT_GE(score("mi300x", programs, "generated programs").within_2pct, 2);
  EXPECT_GE(score("h100-sxm", programs, "generated programs").within_2pct, 2);
}

// Held out: the rule was designed on MI300X and H100 only.
TEST(FiccoHeuristic, ScoredOnHeldOutH200) {
  EXPECT_GE(score("h200-sxm", dependent_catalog_pairs(), "catalog pairs (AG/A2A -> GEMM)").within_2pct, 28);
  EXPECT_GE(score("h200-sxm", generated_programs(), "generated programs").within_2pct, 2);
}

// Held out too: the independent pairs, where base and the chunks of both kernels co-run freely.
TEST(FiccoHeuristic, ScoredOnHeldOutIndependentPairs) {
  const auto pairs = independent_catalog_pairs();
  for (const char* hardware : {"mi300x", "h100-sxm", "h200-sxm"})
    EXPECT_GE(score(hardware, pairs, "independent catalog pairs").within_2pct, 28);
}

// An independent GEMM + CU all-gather on H100, `first` launched at 0 and the other one launch gap
// (model.dispatch.c3_launch_gap, 5 us) later.
wl::Program h100_pair(bool collective_first) {
  wl::Program p;
  p.name = "pair";
  p.streams = {wl::ProgramStream{"gemm_stream", 0, std::nullopt, {}},
               wl::ProgramStream{"comm_stream", 0, std::nullopt, {}}};
  wl::ProgramKernel g;
  g.name = "gemm";
  g.kind = wl::KernelKind::gemm;
  g.stream = "gemm_stream";
  g.gemm.m = g.gemm.n = g.gemm.k = 8192;
  g.gemm.dtype = Dtype::bf16;
  wl::ProgramKernel c;
  c.name = "coll";
  c.kind = wl::KernelKind::collective;
  c.stream = "comm_stream";
  c.collective.op = wl::CollectiveOp::all_gather;
  c.collective.bytes = std::int64_t{256} << 20;
  p.kernels = collective_first ? std::vector<wl::ProgramKernel>{c, g} : std::vector<wl::ProgramKernel>{g, c};
  return p;
}

// Hand derivation on H100 (132 SMs, persistent cuBLAS GEMM, NCCL's 24-channel all-gather, memory stall
// fractions 0). The 8192^3 GEMM has 64 x 32 = 2048 tiles of 128 x 256, so a persistent grid of 132
// CTAs: one wave lasting its isolated time T_g. Its compulsory traffic (3 x 128 MiB) over T_g and
// the all-gather's (2 x 7/8 x 256 MiB) over T_c are checked below to sum under the 3.0 TB/s HBM
// bandwidth, so no memory charge.
//  - Collective first: it holds 24 SMs over [0, T_c); the GEMM, ready at 5 us, starts 108 CTAs
//    and its other 24 wait for the all-gather's SMs at T_c, then run T_g: step T_c + T_g (when
//    5 < T_c < 5 + T_g).
//  - GEMM first: its 132 CTAs hold every SM until T_g; the all-gather, ready at 5 us, gets none
//    before: step T_g + T_c.
// The critical path at isolated times (the old estimate) would say max(T_c, 5 + T_g) for both.
// The H100 preset with the mechanisms that the arithmetic above leaves out set off: the Hopper family
// file's dynamic tiles (late CTAs would take a share of the tiles instead of a fixed one) and its
// copy-loop and GEMM memory stalls, and with the 5 us launch gap the derivation uses.
hw::NodeSpec h100_by_hand() {
  hw::NodeSpec s = hw::load_hardware("h100-sxm");
  s.model.gemm.dynamic_tiles = false;
  s.model.collective.memory_stall_fraction = 0;
  s.model.gemm.memory_stall_fraction = 0;
  s.model.dispatch.c3_launch_gap = 5e-6;
  return s;
}

TEST(FiccoHeuristic, EstimateChargesCusAndStarvationByHandOnH100) {
  ProgramSimulator sim(h100_by_hand());
  ASSERT_DOUBLE_EQ(sim.spec().model.dispatch.c3_launch_gap * 1e6, 5.0);
  for (const bool collective_first : {true, false}) {
    const wl::Program p = h100_pair(collective_first);
    const int gi = collective_first ? 1 : 0;
    const int ci = 1 - gi;
    const double t_g = sim.isolated_us(p, gi);
    const double t_c = sim.isolated_us(p, ci);
    const GemmPlan plan = plan_gemm(p.kernels[static_cast<size_t>(gi)].gemm, sim.spec(), 132);
    ASSERT_EQ(plan.workgroups, 132);
    ASSERT_EQ(plan_collective(p.kernels[static_cast<size_t>(ci)].collective, sim.spec(), 8, std::nullopt)
                  .workgroups,
              24);
    ASSERT_GT(t_c, 5.0);
    ASSERT_LT(t_c, 5.0 + t_g);
    const double gemm_bytes_per_us = 3.0 * (128 << 20) / t_g;
    const double coll_bytes_per_us = 2.0 * 7.0 / 8.0 * (256 << 20) / t_c;
    ASSERT_LT(gemm_bytes_per_us + coll_bytes_per_us, sim.spec().model.memory.hbm_bw * 1e-6);
    EXPECT_NEAR(estimate_step_us(sim, p), t_c + t_g, 1e-6)
        << (collective_first ? "collective first" : "GEMM first");
    EXPECT_GT(estimate_step_us(sim, p), sim.ideal_us(p) + 100);
  }
}

}  // namespace
}  // namespace c3sim::models
