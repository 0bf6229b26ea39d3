#include "models/kernels/memory_kernel.h"

#include <algorithm>

#include "models/node/queueing_utilization.h"

namespace c3sim::models {
namespace {

// A thread's widest load (128 bits, on NVIDIA and AMD GPUs alike): a gather's thread sums one such
// vector of an item's rows.
constexpr double kVectorBytes = 16.0;

}  // namespace

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
      hbm_queueing_(spec.model.memory.hbm_queueing && spec.memory.llc_bytes > 0) {
  const hw::MemoryModel& mm = spec.model.memory;
  if (!kernel.gather || mm.gather_latency <= 0) return;
  // Little's law over a thread's two dependent round trips per item (memory_kernel.h).
  const wl::GatherAccess& g = *kernel.gather;
  const double round_trip_rate = static_cast<double>(g.threads_per_cu) * kVectorBytes *
                                 static_cast<double>(g.rows_per_item + 1) / (2.0 * mm.gather_latency);
  wg_rate_ = std::min(wg_rate_, round_trip_rate);
  hbm_per_byte_ = mm.hbm_bw / mm.gather_bw;
  startup_ = s_to_ps(mm.gather_startup_latency);
  first_wave_ = spec.compute.total_cus();
}

void MemoryKernelModel::store_to_peers(double bytes_sent) {
  local_share_ = bytes_ > 0 ? std::clamp(1.0 - bytes_sent / bytes_, 0.0, 1.0) : 1.0;
}

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
  w.demands.push_back({m.fabric[x], local_share_});
  if (m.llc >= 0) w.demands.push_back({m.llc, local_share_});
  w.demands.push_back({m.hbm, local_share_ * hbm_per_byte_});
  res_.add_power_demand(w.demands);
  if (ctx.first_wg < first_wave_) w.startup_latency = startup_;
  return w;
}

std::optional<engine::CohortWork> MemoryKernelModel::refresh(const engine::CohortContext& ctx) {
  if (stall_fraction_ <= 0) return std::nullopt;
  if (applied_load_.at(static_cast<size_t>(ctx.slot)) == load_by_others(ctx.owner.kernel))
    return std::nullopt;
  return cohort_work(ctx);
}

}  // namespace c3sim::models
