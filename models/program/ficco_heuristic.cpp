#include "models/program/ficco_heuristic.h"

#include <algorithm>

#include <fmt/format.h>

namespace c3sim::models {

std::vector<std::string> ficco_candidates() {
  std::vector<std::string> out{"base"};
  for (const char* v : {"ficco", "ficco_dma"}) {
    for (int k : {2, 4, 8}) out.push_back(fmt::format("{}:{}", v, k));
  }
  return out;
}

std::string pick_ficco_schedule(ProgramSimulator& sim, const TransformRegistry& registry,
                                const wl::Program& program) {
  std::string best;
  double best_us = 0;
  for (const auto& name : ficco_candidates()) {
    const wl::Program q = registry.apply(name, program, sim.spec(), program.location);
    double t = sim.ideal_us(q);
    if (name.starts_with("ficco:")) {
      // CU collective chunks beside GEMM chunks: the GEMM chunk launched before a collective
      // chunk keeps claiming the CUs it frees (the dispatcher's oldest-first rule, the starvation
      // that sp removes), so estimate no overlap: every chunk alone, one after another.
      t = 0;
      for (size_t i = 0; i < q.kernels.size(); ++i) t += sim.isolated_us(q, static_cast<int>(i));
    }
    if (best.empty() || t < best_us) {
      best = name;
      best_us = t;
    }
  }
  return best;
}

HeuristicScore score_ficco_heuristic(ProgramSimulator& sim, const TransformRegistry& registry,
                                     const std::vector<wl::Program>& programs) {
  HeuristicScore s;
  double regret_sum = 0;
  for (const wl::Program& p : programs) {
    std::string best;
    double best_us = 0;
    double picked_us = 0;
    const std::string pick = pick_ficco_schedule(sim, registry, p);
    for (const auto& name : ficco_candidates()) {
      const double t = sim.simulate(registry.apply(name, p, sim.spec(), p.location)).step_us;
      if (best.empty() || t < best_us) {
        best = name;
        best_us = t;
      }
      if (name == pick) picked_us = t;
    }
    const double regret = picked_us / best_us - 1.0;
    ++s.programs;
    s.exact += pick == best ? 1 : 0;
    s.within_2pct += regret <= 0.02 ? 1 : 0;
    s.worst_regret = std::max(s.worst_regret, regret);
    regret_sum += regret;
  }
  s.mean_regret = s.programs > 0 ? regret_sum / s.programs : 0;
  return s;
}

}  // namespace c3sim::models
