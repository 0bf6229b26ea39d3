#pragma once
// A memory-bound kernel on the CUs (elementwise op, copy, normalization): each workgroup streams
// its share of the bytes through its XCD's L2 and fabric to LLC/HBM with no reuse, at most at
// one workgroup's stream rate (model.memory.workgroup_stream_bandwidth, bytes read plus written).
//
// Beside other kernels its workgroups are a copy loop like a CU collective's channels: each keeps
// a few requests in flight, so its rate follows its memory latency, which queues behind the
// others' traffic. It slows by 1 + f * u, u being the utilization the other running kernels put
// on the memory it streams through and f model.collective.memory_stall_fraction (the copy loop's
// share of time exposed to that latency: the same mechanism, one parameter).
#include <cstdint>
#include <optional>
#include <vector>

#include "hardware/node_spec.h"
#include "models/node/interference_state.h"
#include "models/node/node_resources.h"
#include "sim/engine/workgroup_model.h"
#include "workloads/program.h"

namespace c3sim::models {

class MemoryKernelModel final : public engine::WorkgroupModel {
public:
  MemoryKernelModel(const wl::MemoryKernel& kernel, const hw::NodeSpec& spec, const NodeResources& res,
                    const InterferenceState& state);
  [[nodiscard]] engine::CohortWork cohort_work(const engine::CohortContext& ctx) override;
  [[nodiscard]] std::optional<engine::CohortWork> refresh(const engine::CohortContext& ctx) override;
  [[nodiscard]] std::int64_t workgroups() const { return workgroups_; }

private:
  // Utilization the other running kernels put on the memory this kernel's requests wait at.
  [[nodiscard]] double load_by_others(std::int32_t kernel) const;

  const NodeResources& res_;
  const InterferenceState& state_;
  double bytes_ = 0;
  std::int64_t workgroups_ = 0;
  double wg_rate_ = 0;         // bytes moved per second by one workgroup alone
  double stall_fraction_ = 0;  // model.collective.memory_stall_fraction
  double hbm_latency_ratio_ = 1;
  bool hbm_queueing_ = false;         // an LLC in front of HBM, and model.memory.hbm_queueing
  std::vector<double> applied_load_;  // by cohort slot: the load its current demands assume
};

}  // namespace c3sim::models
