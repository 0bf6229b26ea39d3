#include "models/kernels/memory_kernel.h"

#include <algorithm>

#include "models/node/queueing_utilization.h"

namespace c3sim::models {

MemoryKernelModel::MemoryKernelModel(const wl::MemoryKernel& kernel, const hw::NodeSpec& spec,
                                     const NodeResources& res, const InterferenceState& state)
    : res_(res),
      state_(state),
      bytes_(static_cast<double>(kernel.bytes)),
      workgroups_(kernel.workgroups.value_or(spec.compute.total_cus())),
      // Measured where the preset has it; else the former assumption, a copy loop's two streams.
      wg_rate_(spec.model.memory.workgroup_stream_bw > 0 ? spec.model.memory.workgroup_stream_bw
                                                         : 2.0 * spec.model.collective.workgroup_copy_bw),
      stall_fraction_(spec.model.collective.memory_stall_fraction),
      hbm_latency_ratio_(spec.model.gemm.hbm_miss_latency_ratio),
      hbm_queueing_(spec.model.memory.hbm_queueing && spec.memory.llc_bytes > 0) {}

double MemoryKernelModel::load_by_others(std::int32_t kernel) const {
  const double u_llc = state_.memory_load_of_others(kernel);
  if (!hbm_queueing_) return u_llc;
  // Streaming buffers do not hit in the LLC: every request goes on to HBM.
  return queueing_utilization(u_llc, state_.hbm_load_of_others(kernel), 0.0, hbm_latency_ratio_);
}

engine::CohortWork MemoryKernelModel::cohort_work(const engine::CohortContext& ctx) {
  // Streams share memory resources with the collectives' class: both are the GEMM's "others".
  const MemoryResources& m = res_.memory(KernelClass::comm);
  const auto x = static_cast<size_t>(ctx.xcd);
  const double others = load_by_others(ctx.owner.kernel);
  const double u = state_.isolate_queueing ? 0.0 : std::clamp(others, 0.0, 1.0);
  const auto slot = static_cast<size_t>(ctx.slot);
  if (applied_load_.size() <= slot) applied_load_.resize(slot + 1, 0.0);
  applied_load_[slot] = others;
  engine::CohortWork w;
  w.work_per_wg = bytes_ / static_cast<double>(workgroups_);  // work unit: one byte read or written
  w.bound_per_wg = wg_rate_ / (1.0 + stall_fraction_ * u);
  w.demands.push_back({m.l2[x], 1.0});
  w.demands.push_back({m.fabric[x], 1.0});
  if (m.llc >= 0) w.demands.push_back({m.llc, 1.0});
  w.demands.push_back({m.hbm, 1.0});
  res_.add_power_demand(w.demands);
  return w;
}

std::optional<engine::CohortWork> MemoryKernelModel::refresh(const engine::CohortContext& ctx) {
  if (stall_fraction_ <= 0) return std::nullopt;
  if (applied_load_.at(static_cast<size_t>(ctx.slot)) == load_by_others(ctx.owner.kernel))
    return std::nullopt;
  return cohort_work(ctx);
}

}  // namespace c3sim::models
