#include "models/node/memory_load_observer.h"

#include <algorithm>
#include <cmath>

namespace c3sim::models {

namespace {
constexpr double kRefreshThreshold = 0.01;  // utilization change that is worth a re-solve

engine::ResourceId hbm_behind_llc(const NodeResources& res, KernelClass k, bool track) {
  return track && res.memory(k).llc >= 0 ? res.memory(k).hbm : -1;
}
}  // namespace

MemoryLoadObserver::MemoryLoadObserver(const NodeResources& res, InterferenceState& state,
                                       std::function<void()> refresh, bool track_hbm)
    : level_{res.queueing_level(KernelClass::gemm), res.queueing_level(KernelClass::comm)},
      hbm_{hbm_behind_llc(res, KernelClass::gemm, track_hbm),
           hbm_behind_llc(res, KernelClass::comm, track_hbm)},
      state_(state),
      refresh_(std::move(refresh)) {}

bool MemoryLoadObserver::update_slot(const engine::FluidSolver& solver, std::int32_t slot) {
  const auto i = static_cast<size_t>(slot);
  if (slots_.size() <= i) slots_.resize(solver.slot_count());
  SlotLoad now;
  const engine::FlowId f = solver.flow_in_slot(slot);
  if (f.valid() && solver.owner(f).kernel >= 0) {
    now.kernel = solver.owner(f).kernel;
    now.memory = memory_class(solver.owner(f).kind);
    now.copy_engine = solver.owner(f).kind == engine::KernelKind::dma_transfer;
    const engine::ResourceId level = level_[static_cast<size_t>(now.memory)];
    const engine::ResourceId hbm = hbm_[static_cast<size_t>(now.memory)];
    for (const engine::Demand& d : solver.demands(f)) {
      if (d.resource == level) now.load = solver.rate(f) * d.per_unit;
      if (d.resource == hbm) now.hbm = solver.rate(f) * d.per_unit;
    }
  }
  const bool moved = now.kernel != slots_[i].kernel || now.copy_engine != slots_[i].copy_engine ||
                     now.load != slots_[i].load || now.hbm != slots_[i].hbm;
  slots_[i] = now;
  return moved;
}

void MemoryLoadObserver::settle(engine::Simulation& sim) {
  if (state_.isolate_queueing) return;
  engine::FluidSolver& solver = sim.solver();
  solver.solve(sim.now());
  bool moved = false;
  if (!subscribed_) {
    // Flows started before the first step are read once in full; the feed covers the rest.
    feed_ = solver.subscribe();
    subscribed_ = true;
    for (size_t s = 0; s < solver.slot_count(); ++s)
      moved = update_slot(solver, static_cast<std::int32_t>(s)) || moved;
  } else {
    solver.take_changes(feed_, changed_);
    for (const std::int32_t s : changed_) moved = update_slot(solver, s) || moved;
  }
  // Nothing this observer reads changed: the loads, and so the decision below, are the last step's.
  if (!moved) return;

  // The kernels whose sums can differ from zero (those owning a live flow) or from what the state
  // holds (those with a load there): every other kernel's sum is 0 and its load already 0, so it
  // can neither ask for a refresh nor change with one. Per-kernel arrays grow to the highest
  // kernel seen, as a sum over every kernel would have them.
  kernels_.clear();
  ++stamp_;
  for (const SlotLoad& s : slots_) {
    if (s.kernel < 0) continue;
    const auto k = static_cast<size_t>(s.kernel);
    if (sums_.size() <= k) {
      sums_.resize(k + 1, 0.0);
      hbm_sums_.resize(k + 1, 0.0);
      kernel_memory_.resize(k + 1, KernelClass::gemm);
      kernel_copy_engine_.resize(k + 1, 0);
      listed_.resize(k + 1, 0);
    }
    if (listed_[k] != stamp_) {
      listed_[k] = stamp_;
      kernels_.push_back(s.kernel);
      sums_[k] = 0.0;
      hbm_sums_[k] = 0.0;
    }
    kernel_memory_[k] = s.memory;
    kernel_copy_engine_[k] = s.copy_engine ? 1 : 0;
    sums_[k] += s.load;
    hbm_sums_[k] += s.hbm;
  }
  for (const std::int32_t k : state_.loaded_kernels()) {
    if (listed_.size() <= static_cast<size_t>(k)) {  // a load set before this observer saw the kernel
      sums_.resize(static_cast<size_t>(k) + 1, 0.0);
      hbm_sums_.resize(static_cast<size_t>(k) + 1, 0.0);
      kernel_memory_.resize(static_cast<size_t>(k) + 1, KernelClass::gemm);
      kernel_copy_engine_.resize(static_cast<size_t>(k) + 1, 0);
      listed_.resize(static_cast<size_t>(k) + 1, 0);
    }
    if (listed_[static_cast<size_t>(k)] == stamp_) continue;
    listed_[static_cast<size_t>(k)] = stamp_;
    kernels_.push_back(k);
    sums_[static_cast<size_t>(k)] = 0.0;
    hbm_sums_[static_cast<size_t>(k)] = 0.0;
  }
  if (state_.memory_load.size() < sums_.size()) state_.memory_load.resize(sums_.size(), 0.0);
  const bool has_hbm = hbm_[0] >= 0 || hbm_[1] >= 0;
  if (has_hbm && state_.hbm_load.size() < sums_.size()) state_.hbm_load.resize(sums_.size(), 0.0);
  // Utilization of the level each kernel queues at; with private memory (an attribution
  // counterfactual) each kernel's load still counts against its own copy's capacity.
  bool refresh = false;
  for (const std::int32_t kernel : kernels_) {
    const auto k = static_cast<size_t>(kernel);
    const double cap = solver.capacity(level_[static_cast<size_t>(kernel_memory_[k])]);
    sums_[k] = cap > 0 ? sums_[k] / cap : 0.0;
    if (std::fabs(sums_[k] - state_.memory_load[k]) > kRefreshThreshold) refresh = true;
    if (!has_hbm) continue;
    const engine::ResourceId hbm = hbm_[static_cast<size_t>(kernel_memory_[k])];
    const double hbm_cap = hbm >= 0 ? solver.capacity(hbm) : 0.0;
    hbm_sums_[k] = hbm_cap > 0 ? hbm_sums_[k] / hbm_cap : 0.0;
    if (std::fabs(hbm_sums_[k] - state_.hbm_load[k]) > kRefreshThreshold) refresh = true;
  }
  if (refresh) {
    for (const std::int32_t k : kernels_)
      state_.set_load(k, sums_[static_cast<size_t>(k)], has_hbm ? hbm_sums_[static_cast<size_t>(k)] : 0.0,
                      kernel_copy_engine_[static_cast<size_t>(k)] != 0);
    refresh_();
  }
}

}  // namespace c3sim::models
