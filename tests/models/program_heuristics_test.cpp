// The N-kernel SP and RP heuristics scored against their exhaustive sweeps on the generated
// programs, and the best policy per overlap region.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "hardware/hardware_loader.h"
#include "models/policies/program_heuristic_score.h"
#include "models/policies/region_best.h"
#include "workloads/paper_catalog.h"
#include "workloads/program_generators.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

std::vector<wl::Program> generated_programs() {
  return {wl::fsdp_layer_program(wl::llama_70b()), wl::fsdp_layer_program(wl::llama_405b()),
          wl::tp_block_program(wl::llama_70b(), 8), wl::moe_layer_program(wl::mixtral_8x7b())};
}

// The 30 catalog pairs as two-kernel programs (GEMM and collective independent, GEMM launched
// first): the set the paper's pair heuristics were made for.
std::vector<wl::Program> catalog_pairs() {
  std::vector<wl::Program> out;
  for (const wl::Scenario& s : wl::paper_scenarios()) out.push_back(wl::program_from_scenario(s));
  return out;
}

// The TP block and MoE layer are dependency chains: nothing co-runs until FiCCO chunks them.
std::vector<wl::Program> chunked_programs(const hw::NodeSpec& spec) {
  const TransformRegistry registry = builtin_transforms();
  std::vector<wl::Program> out;
  for (const wl::Program& p :
       {wl::tp_block_program(wl::llama_70b(), 8), wl::moe_layer_program(wl::mixtral_8x7b())}) {
    out.push_back(registry.apply("ficco:4", p, spec));
  }
  return out;
}

void print(const char* what, const char* set, const std::string& hardware, const SweepScore& s) {
  std::printf(
      "%s, %s on %s: %d/%d exact, %d within 2%%, worst regret %.2f%%, mean %.2f%%; sweep's best "
      "vs base %.2f%% (%d runs)\n",
      what, set, hardware.c_str(), s.score.exact, s.score.programs, s.score.within_2pct,
      100 * s.score.worst_regret, 100 * s.score.mean_regret, 100 * s.best_gain_mean, s.sweep_runs);
}

// What the heuristics must keep doing, per set: programs within 2% of the sweep's best and the
// worst regret. Measured when written (docs/programs.md): MI300X catalog SP 27/30 within 2%
// (worst 3.4%), RP 28/30 (worst 11.7%); H200 catalog 30/30 both; every generated and chunked
// program exact on both. The bounds leave one program of room on the catalog. With the grounded
// MI300X preset (issue 14): SP 28/30 within 2%, RP 29/30 (worst 3.0%). SP's worst is the paper's
// rule itself on a G-long pair with a compute-bound GEMM: cb3 + 512 MiB all-gather, sp 7063 us vs
// base 6596 (7.1%). Going first, the all-gather holds 64 CUs for its 1656 us, while cb3 runs
// 1.293x slower with 64 CUs taken (Fig. 5(a) row): the GEMM, the critical path, loses
// 1656 x (1 - 1/1.293) = 375 us of progress (5.7% of base) plus the wave its slowed tiles spill
// into (GEMM +599 us under sp, +142 under base); under base the all-gather waits and hides under
// the GEMM's tail. sp_worst 0.08 is that case and no more. H200 catalog RP 26/30 (worst 7.2%)
// since its preset's copy loops stall on memory latency beside a GEMM
// (model.collective.memory_stall_fraction, measured): the paper's rule reads each split from the
// collective alone on its CUs, so it takes 16 SMs where 16 channels, bound by their own copy rate,
// slow 15% beside the GEMM and 32 would win (mb1 + 4 GiB all-gather / all-to-all 7.1-7.2%, cb4 +
// 2.5 GiB 3.0-3.1%). On 2 x H200 c3bench measured rp:16 collectives beside long GEMMs 7-18%
// slower than alone (docs/known-limits.md).
struct Expect {
  int sp_within_2pct;
  double sp_worst;
  int rp_within_2pct;
  double rp_worst;
};

void check(const std::string& hardware, const char* set, const std::vector<wl::Program>& programs,
           const Expect& e) {
  ProgramSimulator sim(hw::load_hardware(hardware));
  const SweepScore sp = score_sp_heuristic(sim, programs);
  const SweepScore rp = score_rp_heuristic(sim, programs);
  print("SP heuristic", set, hardware, sp);
  print("RP heuristic", set, hardware, rp);
  for (const SweepScore* s : {&sp, &rp}) {
    EXPECT_EQ(s->score.programs, static_cast<int>(programs.size()));
    EXPECT_GE(s->score.within_2pct, s->score.exact);
  }
  EXPECT_GE(sp.score.within_2pct, e.sp_within_2pct) << set << " on " << hardware;
  EXPECT_LE(sp.score.worst_regret, e.sp_worst) << set << " on " << hardware;
  EXPECT_GE(rp.score.within_2pct, e.rp_within_2pct) << set << " on " << hardware;
  EXPECT_LE(rp.score.worst_regret, e.rp_worst) << set << " on " << hardware;
}

TEST(ProgramHeuristics, CatalogPairsAgainstTheSweep) {
  check("mi300x", "catalog pairs", catalog_pairs(), Expect{27, 0.08, 28, 0.05});
  check("h200-sxm", "catalog pairs", catalog_pairs(), Expect{29, 0.02, 26, 0.08});
}

TEST(ProgramHeuristics, GeneratedAndChunkedProgramsAgainstTheSweep) {
  for (const std::string hardware : {"mi300x", "h200-sxm"}) {
    const hw::NodeSpec spec = hw::load_hardware(hardware);
    check(hardware, "generated", generated_programs(), Expect{4, 0.0, 4, 0.0});
    check(hardware, "chunked ficco:4", chunked_programs(spec), Expect{2, 0.0, 2, 0.0});
  }
}

// A memory-bound GEMM beside an all-gather, then a compute-bound GEMM beside a reduce-scatter
// that waits for the first GEMM (MI300X). The ideal schedule puts ag beside mb and rs beside cb,
// so those are the two regions. Copy engines help the all-gather (ConCCL on a memory-bound GEMM)
// but cannot run the reduction, so the regions should choose differently.
wl::Program two_region_program() {
  wl::Program p;
  p.name = "two_regions";
  p.streams = {wl::ProgramStream{"compute", 0, std::nullopt, {}},
               wl::ProgramStream{"comm", 0, std::nullopt, {}}};
  const auto gemm = [](const std::string& name, const char* tag) {
    wl::ProgramKernel k;
    k.name = name;
    k.stream = "compute";
    k.kind = wl::KernelKind::gemm;
    k.gemm = *wl::find_paper_gemm(tag);
    return k;
  };
  const auto coll = [](const std::string& name, wl::CollectiveOp op, std::vector<std::string> after) {
    wl::ProgramKernel k;
    k.name = name;
    k.stream = "comm";
    k.kind = wl::KernelKind::collective;
    k.collective = wl::Collective{op, std::int64_t{1} << 30, wl::CollectiveImpl::cu, {}};
    k.after = std::move(after);
    return k;
  };
  p.kernels = {gemm("mb", "mb1"), coll("ag", wl::CollectiveOp::all_gather, {}), gemm("cb", "cb1"),
               coll("rs", wl::CollectiveOp::reduce_scatter, {"mb"})};
  return p;
}

TEST(RegionBest, ChoosesPerRegionAndKeepsUpWithTheWholeProgramSweep) {
  ProgramSimulator sim(hw::load_hardware("mi300x"));
  const wl::Program p = two_region_program();
  const auto regions = overlap_regions(sim, p);
  ASSERT_EQ(regions.size(), 2U);
  EXPECT_EQ(regions[0].kernels, (std::vector<std::string>{"mb", "ag"}));
  EXPECT_EQ(regions[1].kernels, (std::vector<std::string>{"cb", "rs"}));

  const RegionPlan plan = choose_per_region(sim, p);
  ASSERT_EQ(plan.regions.size(), 2U);
  std::printf("per_region on two_regions: %s, base %.1f us, combined %.1f us\n", plan.describe().c_str(),
              plan.base_us, plan.combined_us);
  EXPECT_EQ(plan.regions[0].policy, "dma");
  EXPECT_NE(plan.regions[1].policy, plan.regions[0].policy);
  EXPECT_TRUE(plan.combined);
  EXPECT_LT(plan.combined_us, plan.base_us);

  // The whole-program sweep over the same candidates (the rp sizes as rp:<cus>).
  const TransformRegistry registry = builtin_transforms();
  double best_whole = plan.base_us;
  std::string best_name = "base";
  for (const auto& name : region_candidates(regions[0], p, sim.spec())) {
    const double t = sim.simulate(registry.apply(name, p, sim.spec())).step_us;
    if (t < best_whole) {
      best_whole = t;
      best_name = name;
    }
  }
  std::printf("whole-program best: %s %.1f us\n", best_name.c_str(), best_whole);
  // Tolerance 0.5%: regions interact (each was tried with the other as written).
  EXPECT_LE(plan.combined_us, best_whole * 1.005);
  // Through the registry, as `c3sim run --policy per_region` does.
  const Decision d = registry.decide("per_region", p, sim);
  EXPECT_EQ(d.chosen, plan.describe());
  EXPECT_DOUBLE_EQ(sim.simulate(d.program).step_us, plan.combined_us);
}

// The chunked example (examples/programs/ag_gemm_chain.yaml): the GEMM consumes the all-gather,
// so in the ideal schedule nothing overlaps the all-gather and its region is the collective alone;
// its FiCCO pair is the GEMM that waits for it. The per-region search tries the registry's ficco
// and ficco_dma sweeps on that pair; as the pair is the whole program, the region's best is the
// best of those sweeps run on the whole program, to the last bit, and a chunked schedule beats
// every launch-plan candidate (nothing else can overlap a dependent pair).
TEST(RegionBest, ChunkedSchedulesAreRegionCandidates) {
  ProgramSimulator sim(hw::load_hardware("mi300x"));
  const wl::Program p =
      wl::load_programs_file(std::string(C3SIM_SOURCE_DIR) + "/examples/programs/ag_gemm_chain.yaml").at(0);
  const auto regions = overlap_regions(sim, p);
  ASSERT_EQ(regions.size(), 1U);
  EXPECT_EQ(regions[0].kernels, (std::vector<std::string>{"ag"}));
  EXPECT_EQ(regions[0].chunk_pair, (std::vector<std::string>{"ag", "gemm"}));
  const auto candidates = region_candidates(regions[0], p, sim.spec());
  EXPECT_NE(std::find(candidates.begin(), candidates.end(), "ficco:4"), candidates.end());
  EXPECT_NE(std::find(candidates.begin(), candidates.end(), "ficco_dma:8"), candidates.end());

  const TransformRegistry registry = builtin_transforms();
  double best_chunked = 1e300;
  std::string best_name;
  for (const char* sweep : {"ficco_best", "ficco_dma_best"}) {
    for (const auto& name : registry.expand(sweep, sim.spec())) {
      const double t = sim.simulate(registry.apply(name, p, sim.spec())).step_us;
      if (t < best_chunked) {
        best_chunked = t;
        best_name = name;
      }
    }
  }
  const RegionPlan plan = choose_per_region(sim, p);
  std::printf("per_region on ag_gemm_chain: %s, base %.1f us, combined %.1f us\n", plan.describe().c_str(),
              plan.base_us, plan.combined_us);
  EXPECT_EQ(plan.regions[0].policy, best_name);
  EXPECT_EQ(plan.combined_us, best_chunked);
  EXPECT_LT(plan.combined_us, plan.base_us);
  EXPECT_EQ(plan.describe(), "ag=" + best_name);
}

// two_regions: the reduce-scatter waits for mb, so (mb, rs) is its FiCCO pair even though mb
// overlaps the all-gather; the all-gather's region {mb, ag} then has no pair of its own.
TEST(RegionBest, DependentPairsTakeTheirGemmFirst) {
  ProgramSimulator sim(hw::load_hardware("mi300x"));
  const auto regions = overlap_regions(sim, two_region_program());
  ASSERT_EQ(regions.size(), 2U);
  EXPECT_TRUE(regions[0].chunk_pair.empty());
  EXPECT_EQ(regions[1].chunk_pair, (std::vector<std::string>{"mb", "rs"}));
}

// A plan that sets nothing leaves the program as it is; a mask moves the region's kernels to
// stream copies and keeps each stream's order with events.
TEST(RegionBest, RegionTransformKeepsStreamOrder) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  const wl::Program p = two_region_program();
  const OverlapRegion second{"rs", {"cb", "rs"}, {}};
  const wl::Program same = apply_to_region(p, second, "base", spec);
  EXPECT_EQ(wl::programs_to_yaml({same}), wl::programs_to_yaml({p}));
  const wl::Program masked = apply_to_region(p, second, "rp:64", spec);
  ASSERT_NE(masked.stream("comm@rp:64"), nullptr);
  EXPECT_EQ(masked.stream("comm@rp:64")->cus, 64);
  EXPECT_EQ(masked.stream("compute@rp:64")->cus, spec.compute.total_cus() - 64);
  EXPECT_EQ(masked.kernel("cb")->stream, "compute@rp:64");
  EXPECT_EQ(masked.kernel("mb")->stream, "compute");
  // cb followed mb on compute, rs followed ag on comm: now events.
  EXPECT_EQ(masked.kernel("cb")->after, (std::vector<std::string>{"mb"}));
  EXPECT_EQ(masked.kernel("rs")->after, (std::vector<std::string>{"mb", "ag"}));
}

}  // namespace
}  // namespace c3sim::models
