#pragma once
// Keeps InterferenceState::memory_load_by_others / _by_gemm current: after every solve, the share
// of the last memory level (LLC, or HBM without one) used by the collective's and by the GEMM's
// flows. When either moves by more than a percent, running cohorts are asked for their demands
// again (each kernel's exposed memory latency depends on the other's load).
#include <functional>
#include <string>
#include <vector>

#include "models/gemm_flow_classifier.h"
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
  GemmFlowClassifier classify_;
  std::function<void()> refresh_;
  std::vector<engine::FlowId> live_;  // scratch, reused every step
};

}  // namespace c3sim::models
