#pragma once
// A FiCCO-style schedule selection heuristic (seed 001 selects schedules from kernel
// characteristics; it reports 81% accuracy against its sweep): pick, among `base` and the
// chunked schedules ficco:{2,4,8} and ficco_dma:{2,4,8}, the one whose critical path with every
// kernel (every chunk) at its isolated time is shortest, except that CU collective chunks are
// assumed not to overlap the GEMM chunks beside them (the GEMM claims the CUs first). It sees what chunking
// costs a kernel alone (wave quantization of a smaller GEMM, a chunk collective's startup and launch costs,
// DMA's launch-bound small transfers) and the pipeline's shape, but not interference between co-running
// chunks; `score_ficco_heuristic` measures how often that is enough, against the full simulation
// of every candidate.
#include <string>
#include <vector>

#include "models/program/program_simulator.h"
#include "models/program/transform_registry.h"

namespace c3sim::models {

// The candidates: base, then ficco:k and ficco_dma:k for k = 2, 4, 8.
std::vector<std::string> ficco_candidates();

// The heuristic's pick for a program (needs no co-running simulation).
std::string pick_ficco_schedule(ProgramSimulator& sim, const TransformRegistry& registry,
                                const wl::Program& program);

struct HeuristicScore {
  int programs = 0;
  int exact = 0;            // pick == the sweep's fastest
  int within_2pct = 0;      // pick's step within 2% of the fastest
  double worst_regret = 0;  // max over programs of step(pick) / step(best) - 1
  double mean_regret = 0;
};

HeuristicScore score_ficco_heuristic(ProgramSimulator& sim, const TransformRegistry& registry,
                                     const std::vector<wl::Program>& programs);

}  // namespace c3sim::models
