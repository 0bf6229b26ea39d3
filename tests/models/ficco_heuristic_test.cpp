// The FiCCO-style selection heuristic scored against the exhaustive sweep on the 30 catalog pairs
// made data-dependent (the GEMM consumes the collective: the FiCCO setting).
#include <gtest/gtest.h>

#include <cstdio>

#include "hardware/hardware_loader.h"
#include "models/program/ficco_heuristic.h"
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

HeuristicScore score(const std::string& hardware, const std::vector<wl::Program>& programs,
                     const char* what) {
  ProgramSimulator sim(hw::load_hardware(hardware));
  const HeuristicScore s = score_ficco_heuristic(sim, builtin_transforms(), programs);
  std::printf("FiCCO heuristic, %s on %s: %d/%d exact, %d within 2%%, mean regret %.2f%%, worst %.2f%%\n",
              what, hardware.c_str(), s.exact, s.programs, s.within_2pct, 100 * s.mean_regret,
              100 * s.worst_regret);
  EXPECT_EQ(s.programs, static_cast<int>(programs.size()));
  EXPECT_GE(s.worst_regret, 0.0);  // the sweep's best is the best by construction
  EXPECT_GE(s.within_2pct, s.exact);
  return s;
}

// Measured when the heuristic was written (docs/programs.md): MI300X catalog 30/30 exact. The
// bound below leaves room for model changes but fails if the heuristic stops tracking the sweep.
TEST(FiccoHeuristic, ScoredAgainstTheSweepOnDependentCatalogPairs) {
  const HeuristicScore s = score("mi300x", dependent_catalog_pairs(), "catalog pairs (AG/A2A -> GEMM)");
  EXPECT_GE(s.within_2pct, 24);  // FiCCO's own heuristic: 81%
}

// Not what the heuristic was designed on: other hardware, and whole generated programs.
TEST(FiccoHeuristic, ScoredOnOtherHardwareAndPrograms) {
  (void)score("h100-sxm", dependent_catalog_pairs(), "catalog pairs (AG/A2A -> GEMM)");
  (void)score("mi300x",
              {wl::fsdp_layer_program(wl::llama_70b()), wl::tp_block_program(wl::llama_70b(), 8),
               wl::moe_layer_program(wl::mixtral_8x7b())},
              "generated programs");
}

}  // namespace
}  // namespace c3sim::models
