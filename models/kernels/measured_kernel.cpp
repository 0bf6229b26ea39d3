#include "models/kernels/measured_kernel.h"

#include <algorithm>

namespace c3sim::models {

MeasuredKernelModel::MeasuredKernelModel(const wl::MeasuredKernel& kernel, int cus, const NodeResources& res)
    : seconds_(kernel.time_us * 1e-6),
      workgroups_(std::min<std::int64_t>(kernel.workgroups.value_or(cus), cus)),
      res_(res) {
  // One model workgroup per CU and wave: the waves run back to back on the kernel's CUs alone
  // (so alone it still takes time_us), and each wave's end frees its CUs to the dispatcher.
  const std::int64_t waves = wl::measured_waves(kernel, cus);
  workgroups_ *= waves;
  seconds_ /= static_cast<double>(waves);
}

engine::CohortWork MeasuredKernelModel::cohort_work(const engine::CohortContext& ctx) {
  (void)ctx;
  engine::CohortWork w;
  w.work_per_wg = 1.0;              // one unit: the workgroup's whole measured run
  w.bound_per_wg = 1.0 / seconds_;  // done in time_us when it holds its CU
  res_.add_measured_draw(w.demands, seconds_);
  return w;
}

}  // namespace c3sim::models
