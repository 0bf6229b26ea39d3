#pragma once
// Keeps InterferenceState::memory_load_by_others / _by_gemm current: after every solve, the share
// of the last memory level (LLC, or HBM without one) used by the collective's and by the GEMM's
// flows. When either moves by more than a percent, running cohorts are asked for their demands
// again (each kernel's exposed memory latency depends on the other's load).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/interference_state.h"
#include "models/node_resources.h"
#include "sim/engine/simulation.h"

namespace c3sim::models {

class MemoryLoadObserver final : public engine::StepObserver {
public:
  MemoryLoadObserver(const NodeResources& res, InterferenceState& state, std::string gemm_prefix,
                     std::function<void()> refresh);
  void settle(engine::Simulation& sim) override;

private:
  engine::ResourceId gemm_resource_;  // the GEMM's last memory level
  engine::ResourceId comm_resource_;  // the collective's (the same one unless memory is private)
  InterferenceState& state_;
  std::string gemm_prefix_;
  std::function<void()> refresh_;
  bool is_gemm_flow(const engine::FluidSolver& solver, engine::FlowId f);

  std::vector<engine::FlowId> live_;  // scratch, reused every step
  // Per flow slot: the generation last classified and whether it is a GEMM flow (the label test
  // would otherwise run for every flow on every step).
  std::vector<std::pair<std::uint32_t, bool>> is_gemm_;
};

}  // namespace c3sim::models
