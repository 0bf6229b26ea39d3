#pragma once
// A memory-bound kernel on the CUs (elementwise op, copy, normalization): each workgroup streams
// its share of the bytes through its XCD's L2 and fabric to LLC/HBM with no reuse, at most at
// one workgroup's copy-loop rate. That rate is the same mechanism as a CU collective's copy loop
// (model.collective.workgroup_copy_bandwidth, bytes copied per second: a read plus a write), so a
// workgroup moves 2x that many bytes (read + written) per second.
#include <cstdint>

#include "hardware/node_spec.h"
#include "models/node_resources.h"
#include "sim/engine/workgroup_model.h"
#include "workloads/program.h"

namespace c3sim::models {

class MemoryKernelModel final : public engine::WorkgroupModel {
public:
  MemoryKernelModel(const wl::MemoryKernel& kernel, const hw::NodeSpec& spec, const NodeResources& res);
  [[nodiscard]] engine::CohortWork cohort_work(const engine::CohortContext& ctx) override;
  [[nodiscard]] std::int64_t workgroups() const { return workgroups_; }

private:
  const NodeResources& res_;
  double bytes_ = 0;
  std::int64_t workgroups_ = 0;
  double wg_rate_ = 0;  // bytes moved per second by one workgroup
};

}  // namespace c3sim::models
