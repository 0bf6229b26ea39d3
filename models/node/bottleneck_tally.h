#pragma once
// Which shared resources held each kernel back, integrated over a run: for every flow at every
// moment, each saturated resource it uses that other kernels also load counts, weighted by the
// other kernels' share of that resource. Used to split the bandwidth part of a slowdown.
//
// Flows are grouped by their typed owner (FlowOwner::kernel), resources by their kind. Work per
// step: flows that changed are re-read from the solver (its change feed); the weighted terms are
// re-derived only on steps where something changed and otherwise replayed, in the same order, so
// the sums come out bit for bit as a full rescan would give them.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/engine/simulation.h"

namespace c3sim::models {

struct BottleneckTally {
  // By program kernel id: resource group -> weighted seconds.
  std::vector<std::map<std::string, double>> by_kernel;
  [[nodiscard]] const std::map<std::string, double>& of(std::int32_t kernel) const;
};

// "l2", "xcd_fabric", "llc", "hbm", "link", "dma_engine", "other".
std::string resource_group(engine::ResourceKind kind);

class BottleneckObserver final : public engine::StepObserver {
public:
  void before_step(engine::Simulation& sim, TimePs next) override;
  [[nodiscard]] const BottleneckTally& tally() const { return tally_; }

private:
  struct SlotFlow {
    std::int32_t kernel = -1;                                  // -1: empty slot or an unowned flow
    std::vector<std::pair<engine::ResourceId, double>> loads;  // (resource, rate * per unit)
  };
  // One addend of a step: tally_[kernel][group] += dt * share_other / count.
  struct Term {
    std::int32_t kernel;
    size_t group;
    double share_other;
    double count;
  };
  void update_slot(const engine::FluidSolver& solver, std::int32_t slot);
  void derive_terms(const engine::FluidSolver& solver);

  bool subscribed_ = false;
  engine::ChangeFeed feed_ = -1;
  std::vector<SlotFlow> slots_;
  std::vector<std::int32_t> changed_;  // scratch
  std::vector<Term> terms_;            // the current state's addends, in rescan order
  std::vector<std::string> group_names_;
  std::vector<size_t> group_of_;  // by resource id: index into group_names_
  BottleneckTally tally_;
};

}  // namespace c3sim::models
