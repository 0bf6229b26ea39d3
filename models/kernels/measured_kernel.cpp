#include "models/kernels/measured_kernel.h"

#include <algorithm>

namespace c3sim::models {

MeasuredKernelModel::MeasuredKernelModel(const wl::MeasuredKernel& kernel, int cus, int gpu_cus,
                                         double draw_watts, const NodeResources& res)
    : seconds_(kernel.time_us * 1e-6),
      workgroups_(std::min<std::int64_t>(kernel.workgroups.value_or(cus), cus)),
      // One workgroup per CU at most: each holds 1 / gpu_cus of the GPU for the kernel's run.
      joules_per_wg_(draw_watts * seconds_ / gpu_cus),
      res_(res) {}

engine::CohortWork MeasuredKernelModel::cohort_work(const engine::CohortContext& ctx) {
  (void)ctx;
  engine::CohortWork w;
  w.work_per_wg = 1.0;              // one unit: the workgroup's whole measured run
  w.bound_per_wg = 1.0 / seconds_;  // done in time_us when it holds its CU
  res_.add_power_draw(w.demands, joules_per_wg_);
  return w;
}

}  // namespace c3sim::models
