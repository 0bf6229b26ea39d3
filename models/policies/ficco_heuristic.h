#pragma once
// A FiCCO-style schedule selection heuristic (seed 001 selects schedules from kernel
// characteristics; it reports 81% accuracy against its sweep): pick, among `base` and the
// chunked schedules ficco:{2,4,8} and ficco_dma:{2,4,8}, the one whose estimated step is
// shortest. The estimate simulates no co-running kernels: it takes each kernel's isolated time
// (each simulated alone) and plan (grid, bytes) and lays the program out like its critical path,
// kernel by kernel in order of readiness, with three charges where a GEMM and a collective meet:
//   - CUs: a CU collective ready no later than a GEMM (at one instant the one already queued on
//     the device behind its stream predecessor arrives first) holds its channels' CUs; the GEMM's
//     workgroups, each lasting its isolated wave time, start on the CUs left, so wave
//     quantization (a persistent grid's stragglers too) follows from the counts.
//   - Starvation: a CU collective ready while a GEMM still has workgroups waiting gets no CU
//     until the GEMM's last one is placed and a CU is free beside it (oldest-first dispatch).
//   - Memory: the overlap of a GEMM and a collective stretches each by the larger of their
//     summed HBM demand over the preset's bandwidth and 1 + its memory_stall_fraction x the
//     other's utilization.
// The same rule on every preset; every quantity comes from the preset, the kernels' plans and
// their isolated runs. `score_ficco_heuristic` measures it against the full simulation of every
// candidate.
#include <string>
#include <vector>

#include "models/policies/transform_registry.h"
#include "models/program/program_simulator.h"

namespace c3sim::models {

// The candidates: base, then ficco:k and ficco_dma:k for k = 2, 4, 8.
std::vector<std::string> ficco_candidates();

// The estimated step (us) of a program (a candidate, already transformed): see above.
double estimate_step_us(ProgramSimulator& sim, const wl::Program& program);

// The heuristic's pick for a program: the candidate with the shortest estimated step.
std::string pick_ficco_schedule(ProgramSimulator& sim, const TransformRegistry& registry,
                                const wl::Program& program);

struct HeuristicScore {
  int programs = 0;
  int exact = 0;            // pick == the sweep's fastest
  int within_2pct = 0;      // pick's step within 2% of the fastest
  double worst_regret = 0;  // max over programs of step(pick) / step(best) - 1
  double mean_regret = 0;
  // |estimate / simulated step - 1| over every candidate of every program (score_ficco_heuristic).
  double mean_estimate_error = 0;
  double worst_estimate_error = 0;
};

HeuristicScore score_ficco_heuristic(ProgramSimulator& sim, const TransformRegistry& registry,
                                     const std::vector<wl::Program>& programs);

}  // namespace c3sim::models
