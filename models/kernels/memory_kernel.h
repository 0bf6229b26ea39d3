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
//
// A gather (wl::GatherAccess: an embedding lookup) reads rows at random, where the hardware gives
// it a model (model.memory.gather_*; else it streams as above):
// - latency: each thread sums one 16-byte vector of an item: its index load, then the item's rows
//   (independent, issued together), two dependent round trips of model.memory.gather_latency, for
//   (rows_per_item + 1) vectors read and written. By Little's law a CU with T resident threads then
//   moves at most T x 16 B x (rows_per_item + 1) / (2 x gather_latency): with few rows per item the
//   round trips, not HBM, bound it;
// - bandwidth: random rows reach HBM at model.memory.gather_bandwidth, not at the copy-measured
//   hbm_bandwidth, so each byte asks hbm_bandwidth / gather_bandwidth of the HBM resource;
// - a fixed cost, model.memory.gather_startup_latency, once per kernel: its first wave of
//   workgroups holds its CUs that long before its bytes flow.
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
  // As a fused kernel's producer (fused_kernel.h): `bytes_sent` of the bytes it writes are stored
  // straight into the peers, whose send charges them, so they leave its own memory traffic.
  void store_to_peers(double bytes_sent);

private:
  // Utilization the other running kernels put on the memory this kernel's requests wait at.
  [[nodiscard]] double load_by_others(std::int32_t kernel) const;

  const NodeResources& res_;
  const InterferenceState& state_;
  double bytes_ = 0;
  std::int64_t workgroups_ = 0;
  double wg_rate_ = 0;           // bytes moved per second by one workgroup alone
  double hbm_per_byte_ = 1;      // HBM resource units per byte (a gather's random rows: more or less)
  double local_share_ = 1;       // share of the bytes that are its own memory's traffic (store_to_peers)
  TimePs startup_ = 0;           // a gather's fixed cost, paid by its first wave
  std::int64_t first_wave_ = 0;  // workgroups in the first wave (one per CU)
  double stall_fraction_ = 0;    // model.collective.memory_stall_fraction
  double hbm_latency_ratio_ = 1;
  bool hbm_queueing_ = false;         // an LLC in front of HBM, and model.memory.hbm_queueing
  std::vector<double> applied_load_;  // by cohort slot: the load its current demands assume
};

}  // namespace c3sim::models
