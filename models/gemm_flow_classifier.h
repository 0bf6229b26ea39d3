#pragma once
// Tells GEMM flows from the others by their label prefix (the C3 simulator names GEMM cohorts
// "gemm:..."), classifying each flow once: observers ask on every step, for every live flow.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/fluid_solver.h"

namespace c3sim::models {

class GemmFlowClassifier {
public:
  explicit GemmFlowClassifier(std::string gemm_prefix) : prefix_(std::move(gemm_prefix)) {}

  bool is_gemm(const engine::FluidSolver& solver, engine::FlowId f) {
    const auto i = static_cast<size_t>(f.index);
    if (i >= known_.size()) known_.resize(i + 1, {0, false});
    auto& [generation, gemm] = known_[i];
    if (generation != f.generation) {  // a new flow in this slot
      generation = f.generation;
      gemm = solver.label(f).rfind(prefix_, 0) == 0;
    }
    return gemm;
  }

private:
  std::string prefix_;
  std::vector<std::pair<std::uint32_t, bool>> known_;  // per flow slot: (generation, is GEMM)
};

}  // namespace c3sim::models
