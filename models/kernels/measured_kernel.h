#pragma once
// A kernel known only by its measured duration (wl::MeasuredKernel: an imported trace's attention,
// elementwise, optimizer or copy kernel). It runs min(workgroups, its stream's CUs) workgroups, each
// holding its CU for time_us at a fixed rate: an imported kernel's workgroups is its traced grid and
// time_us the whole grid's, so it is one wave over its stream's CUs (as c3bench replays it). With
// blocks_per_cu (its occupancy, from the trace's launch) the grid runs as the waves the hardware
// would run it in, each holding the CUs for its share of time_us, so another stream's kernel can
// take CUs between them (first by stream priority, as the dispatcher orders any kernels). It
// demands nothing of L2, fabric, LLC or HBM. So alone it takes exactly time_us (after the launch
// latency); beside other kernels it sees only CU occupancy (it waits for free CUs and runs in more
// waves when fewer are free, and the CUs it holds are unavailable to others), not cache or
// memory-bandwidth interference, and it adds none to them: its measured time already contains its
// own memory traffic, which the model cannot split out. Under a board power limit it draws
// model.power.measured_kernel_power in proportion to the CUs it holds, so it counts toward the
// average the limit acts on (models/node/power_window.h).
#include <cstdint>

#include "models/node/node_resources.h"
#include "sim/engine/workgroup_model.h"
#include "workloads/program.h"

namespace c3sim::models {

class MeasuredKernelModel final : public engine::WorkgroupModel {
public:
  // `cus`: the CUs of the kernel's stream (its mask, or every CU of the GPU).
  MeasuredKernelModel(const wl::MeasuredKernel& kernel, int cus, const NodeResources& res);
  [[nodiscard]] engine::CohortWork cohort_work(const engine::CohortContext& ctx) override;
  [[nodiscard]] std::int64_t workgroups() const { return workgroups_; }

private:
  double seconds_ = 0;
  std::int64_t workgroups_ = 0;
  const NodeResources& res_;
};

}  // namespace c3sim::models
