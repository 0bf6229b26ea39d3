#include "models/memory_load_observer.h"

#include <cmath>

namespace c3sim::models {

namespace {
constexpr double kRefreshThreshold = 0.01;  // utilization change that is worth a re-solve
}  // namespace

MemoryLoadObserver::MemoryLoadObserver(const NodeResources& res, InterferenceState& state,
                                       std::string gemm_prefix, std::function<void()> refresh)
    : gemm_resource_(res.memory(KernelClass::gemm).llc >= 0 ? res.memory(KernelClass::gemm).llc
                                                            : res.memory(KernelClass::gemm).hbm),
      comm_resource_(res.memory(KernelClass::comm).llc >= 0 ? res.memory(KernelClass::comm).llc
                                                            : res.memory(KernelClass::comm).hbm),
      state_(state),
      classify_(std::move(gemm_prefix)),
      refresh_(std::move(refresh)) {}

void MemoryLoadObserver::settle(engine::Simulation& sim) {
  if (state_.isolate_queueing) return;
  engine::FluidSolver& solver = sim.solver();
  solver.solve(sim.now());
  double other = 0;
  double gemm = 0;
  solver.live_flow_ids(live_);
  for (const engine::FlowId f : live_) {
    const bool is_gemm = classify_.is_gemm(solver, f);
    for (const engine::Demand& d : solver.demands(f)) {
      if (is_gemm && d.resource == gemm_resource_) gemm += solver.rate(f) * d.per_unit;
      if (!is_gemm && d.resource == comm_resource_) other += solver.rate(f) * d.per_unit;
    }
  }
  // Utilization of the level each side queues at; with private memory (an attribution
  // counterfactual) each kernel's load still counts against its own copy's capacity.
  const double cap_gemm = solver.capacity(gemm_resource_);
  const double cap_comm = solver.capacity(comm_resource_);
  const double u_other = cap_comm > 0 ? other / cap_comm : 0.0;
  const double u_gemm = cap_gemm > 0 ? gemm / cap_gemm : 0.0;
  if (std::fabs(u_other - state_.memory_load_by_others) > kRefreshThreshold ||
      std::fabs(u_gemm - state_.memory_load_by_gemm) > kRefreshThreshold) {
    state_.memory_load_by_others = u_other;
    state_.memory_load_by_gemm = u_gemm;
    refresh_();
  }
}

}  // namespace c3sim::models
