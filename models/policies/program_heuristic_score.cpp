#include "models/policies/program_heuristic_score.h"

#include <algorithm>
#include <functional>

#include "models/policies/rp_heuristic.h"
#include "models/policies/sp_heuristic.h"

namespace c3sim::models {

namespace {

constexpr double kSameStep = 1e-9;

// `sweep` simulates every candidate and returns the shortest step (sp's includes the program as
// written; rp's, like the paper's, only partitions); `pick` the heuristic's.
SweepScore score(ProgramSimulator& sim, const std::vector<wl::Program>& programs,
                 const std::function<double(const wl::Program&, int& runs)>& sweep,
                 const std::function<double(const wl::Program&)>& pick) {
  SweepScore s;
  double regret_sum = 0, gain_sum = 0;
  for (const wl::Program& p : programs) {
    const double base = sim.simulate(p).step_us;
    const double best = sweep(p, s.sweep_runs);
    const double regret = std::max(0.0, pick(p) / best - 1.0);
    ++s.score.programs;
    s.score.exact += regret <= kSameStep ? 1 : 0;
    s.score.within_2pct += regret <= 0.02 ? 1 : 0;
    s.score.worst_regret = std::max(s.score.worst_regret, regret);
    regret_sum += regret;
    gain_sum += 1.0 - best / base;
  }
  if (s.score.programs > 0) {
    s.score.mean_regret = regret_sum / s.score.programs;
    s.best_gain_mean = gain_sum / s.score.programs;
  }
  return s;
}

}  // namespace

SweepScore score_sp_heuristic(ProgramSimulator& sim, const std::vector<wl::Program>& programs) {
  const auto sweep = [&sim](const wl::Program& p, int& runs) {
    const std::vector<int> movable = sp_movable_collectives(p);
    double best = 0;
    for (unsigned mask = 0; mask < (1U << movable.size()); ++mask) {
      std::vector<int> subset;
      for (size_t b = 0; b < movable.size(); ++b) {
        if ((mask >> b) & 1U) subset.push_back(movable[b]);
      }
      const double t = sim.simulate(launch_first(p, subset)).step_us;
      ++runs;
      best = mask == 0 ? t : std::min(best, t);
    }
    return best;
  };
  const auto pick = [&sim](const wl::Program& p) {
    return sim.simulate(launch_first(p, sp_heuristic_pick(p, sim.spec()))).step_us;
  };
  return score(sim, programs, sweep, pick);
}

SweepScore score_rp_heuristic(ProgramSimulator& sim, const std::vector<wl::Program>& programs) {
  const auto sweep = [&sim](const wl::Program& p, int& runs) {
    double best = 0;
    bool first = true;
    for (const StreamCus& a : rp_assignments(p, sim.spec())) {
      const double t = sim.simulate(partition_streams(p, a, sim.spec())).step_us;
      ++runs;
      best = first ? t : std::min(best, t);
      first = false;
    }
    return best;
  };
  const auto pick = [&sim](const wl::Program& p) {
    return sim.simulate(partition_streams(p, rp_heuristic_pick(sim, p), sim.spec())).step_us;
  };
  return score(sim, programs, sweep, pick);
}

}  // namespace c3sim::models
