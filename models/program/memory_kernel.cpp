#include "models/program/memory_kernel.h"

namespace c3sim::models {

MemoryKernelModel::MemoryKernelModel(const wl::MemoryKernel& kernel, const hw::NodeSpec& spec,
                                     const NodeResources& res)
    : res_(res),
      bytes_(static_cast<double>(kernel.bytes)),
      workgroups_(kernel.workgroups.value_or(spec.compute.total_cus())),
      // Measured where the preset has it; else the former assumption, a copy loop's two streams.
      wg_rate_(spec.model.memory.workgroup_stream_bw > 0 ? spec.model.memory.workgroup_stream_bw
                                                         : 2.0 * spec.model.collective.workgroup_copy_bw) {}

engine::CohortWork MemoryKernelModel::cohort_work(const engine::CohortContext& ctx) {
  // Streams share memory resources with the collectives' class: both are the GEMM's "others".
  const MemoryResources& m = res_.memory(KernelClass::comm);
  const auto x = static_cast<size_t>(ctx.xcd);
  engine::CohortWork w;
  w.work_per_wg = bytes_ / static_cast<double>(workgroups_);  // work unit: one byte read or written
  w.bound_per_wg = wg_rate_;
  w.demands.push_back({m.l2[x], 1.0});
  w.demands.push_back({m.fabric[x], 1.0});
  if (m.llc >= 0) w.demands.push_back({m.llc, 1.0});
  w.demands.push_back({m.hbm, 1.0});
  res_.add_power_demand(w.demands);
  return w;
}

}  // namespace c3sim::models
