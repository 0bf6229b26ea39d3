#pragma once
// The N-kernel SP and RP heuristics (sp_heuristic.h, rp_heuristic.h) scored against their
// exhaustive sweeps: every subset of the collectives `sp` can move, and every assignment of the
// rp sizes to the collective streams, each simulated in full. A pick is exact when its step equals
// the sweep's shortest (to 1e-9 relative: many subsets give the same step).
#include <vector>

#include "models/policies/ficco_heuristic.h"

namespace c3sim::models {

struct SweepScore {
  HeuristicScore score;
  int sweep_runs = 0;         // simulations the sweeps took
  double best_gain_mean = 0;  // mean of 1 - step(best) / step(base) (negative: the sweep's best loses)
};

SweepScore score_sp_heuristic(ProgramSimulator& sim, const std::vector<wl::Program>& programs);
SweepScore score_rp_heuristic(ProgramSimulator& sim, const std::vector<wl::Program>& programs);

}  // namespace c3sim::models
