#pragma once
// Keeps InterferenceState::memory_load current: after every solve, the share of the last memory
// level (LLC, or HBM without one) that each running kernel's flows use; with an LLC, also
// InterferenceState::hbm_load, the share of HBM behind it. When any kernel's share
// moves by more than a percent, running cohorts are asked for their demands again (each kernel's
// exposed memory latency depends on the load of all the others).
//
// Work per step is O(flows that changed) (the solver's change feed): each changed flow's load is
// re-derived from its owner and demands; only when something changed are the per-kernel sums
// re-added, over a dense per-slot array in slot order, so they come out bit for bit as a scan of
// every live flow would give them, for the kernels with a live flow or a load in the state only
// (O(live flows + loaded kernels), not O(kernels of the program)).
#include <cstdint>
#include <functional>
#include <vector>

#include "models/node/interference_state.h"
#include "models/node/node_resources.h"
#include "sim/engine/simulation.h"

namespace c3sim::models {

class MemoryLoadObserver final : public engine::StepObserver {
public:
  // `track_hbm` (model.memory.hbm_queueing): also keep InterferenceState::hbm_load, where an LLC
  // sits in front of HBM.
  MemoryLoadObserver(const NodeResources& res, InterferenceState& state, std::function<void()> refresh,
                     bool track_hbm = false);
  void settle(engine::Simulation& sim) override;

private:
  struct SlotLoad {
    std::int32_t kernel = -1;  // owner of the flow in this slot; -1: empty or unowned
    KernelClass memory = KernelClass::gemm;
    bool copy_engine = false;  // its owner's bytes move on copy engines, not on workgroups
    double load = 0;           // rate * bytes per unit on its kernel's queueing level
    double hbm = 0;            // the same on HBM, where an LLC is the queueing level
  };
  // Re-reads one slot from the solver; true if its load or owner changed.
  bool update_slot(const engine::FluidSolver& solver, std::int32_t slot);

  engine::ResourceId level_[2];  // queueing level by KernelClass
  engine::ResourceId hbm_[2];    // HBM behind an LLC, by KernelClass (-1: no LLC)
  InterferenceState& state_;
  std::function<void()> refresh_;
  bool subscribed_ = false;
  engine::ChangeFeed feed_ = -1;
  std::vector<SlotLoad> slots_;
  std::vector<std::int32_t> changed_;  // scratch
  std::vector<double> sums_;           // scratch: by kernel (valid for the kernels in kernels_)
  std::vector<double> hbm_sums_;       // scratch: by kernel
  std::vector<KernelClass> kernel_memory_;
  std::vector<std::uint8_t> kernel_copy_engine_;  // by kernel: 1 for a copy-engine transfer
  std::vector<std::int32_t> kernels_;             // scratch: the kernels this settle looks at
  std::vector<std::uint32_t> listed_;             // by kernel: the settle (stamp_) that listed it last
  std::uint32_t stamp_ = 0;
};

}  // namespace c3sim::models
