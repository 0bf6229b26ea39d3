#pragma once
// Which shared resources held each kernel back, integrated over a run: for every flow at every
// moment, each saturated resource it uses that the other kernel also loads counts, weighted by the
// other kernel's share of that resource. Used to split the bandwidth part of a slowdown.
#include <map>
#include <string>
#include <vector>

#include "models/gemm_flow_classifier.h"
#include "sim/engine/simulation.h"

namespace c3sim::models {

struct BottleneckTally {
  std::map<std::string, double> gemm;  // resource group -> weighted seconds
  std::map<std::string, double> comm;
};

// "l2", "xcd_fabric", "llc", "hbm", "link", "dma_engine".
std::string resource_group(const std::string& resource_name);

class BottleneckObserver final : public engine::StepObserver {
public:
  explicit BottleneckObserver(std::string gemm_prefix) : classify_(std::move(gemm_prefix)) {}
  void before_step(engine::Simulation& sim, TimePs next) override;
  [[nodiscard]] const BottleneckTally& tally() const { return tally_; }

private:
  GemmFlowClassifier classify_;
  std::vector<std::string> groups_;  // by resource id, filled lazily
  BottleneckTally tally_;
  std::vector<engine::FlowId> live_;  // scratch, reused every step
};

}  // namespace c3sim::models
