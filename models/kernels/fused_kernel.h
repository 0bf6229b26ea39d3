#pragma once
// A fused compute + communication kernel (seed 002): one kernel whose workgroups each do a
// producer's work (a GEMM tile, or a memory kernel's rows such as an embedding lookup) and then,
// at once, store their share of the consumer collective's bytes straight into the peers'
// destination buffers (peer_send.h), while other workgroups still compute. No intermediate
// buffer, no local copy pass, no separate collective launch.
//
// Each workgroup runs in phases (engine::WorkgroupModel::next_phase):
// 1. compute, on its CU: the producer model's own work and demands (CUs, caches, HBM), its rate
//    scaled by model.fused.occupancy_ratio (the fused code's registers leave fewer waves to hide
//    latency);
// 2. put, on its CU: messages_per_workgroup x model.fused.message_overhead, the workgroup issuing
//    each message's stores and its completion flag (GPU-initiated, non-blocking puts as
//    ROC_SHMEM's / NVSHMEM's *_nbi calls: the workgroup does not wait for them to land);
// 3. send, detached (the CU already runs the next workgroup): bytes_sent / workgroups bytes
//    draining over the links to the peers (peer_send.h). On N > 1 nodes the collective's network
//    plan's share of them goes to peers on other nodes as GPU-initiated NIC puts, over the NIC (its
//    bandwidth and message rate), its PCIe path and the spine, landing one network step later.
// The kernel ends when its last workgroup's bytes have landed: the collective's last bytes leave
// with the last tile, not after a whole kernel, and while they drain other workgroups compute.
#include <cstdint>
#include <memory>
#include <optional>

#include "hardware/node_spec.h"
#include "models/kernels/collective_plan.h"
#include "models/kernels/peer_send.h"
#include "models/node/node_resources.h"
#include "sim/engine/workgroup_model.h"

namespace c3sim::models {

// The per-message overhead `spec` gives a fused kernel (model.fused.message_overhead, or its
// absent rule: the LL protocol's step latency, else the simple protocol's), in seconds.
double fused_message_overhead(const hw::NodeSpec& spec);

class FusedKernelModel final : public engine::WorkgroupModel {
public:
  // `producer`: the producer kernel's model, whose workgroups this kernel's are; `plan`: the
  // collective it sends for (its bytes_sent per GPU).
  FusedKernelModel(std::shared_ptr<engine::WorkgroupModel> producer, std::int64_t workgroups,
                   const CollectivePlan& plan, int messages_per_workgroup, const hw::NodeSpec& spec,
                   const NodeResources& res);

  [[nodiscard]] engine::CohortWork cohort_work(const engine::CohortContext& ctx) override;
  void begin_refresh() override { producer_->begin_refresh(); }
  [[nodiscard]] std::optional<engine::CohortWork> refresh(const engine::CohortContext& ctx) override;
  [[nodiscard]] std::optional<engine::CohortWork> next_phase(const engine::CohortContext& ctx) override;
  void cohort_retired(const engine::CohortContext& ctx) override { producer_->cohort_retired(ctx); }

  [[nodiscard]] std::int64_t workgroups() const { return workgroups_; }
  [[nodiscard]] double bytes_per_workgroup() const { return bytes_per_wg_; }
  // The put phase: every message's overhead, in engine time.
  [[nodiscard]] TimePs send_overhead() const { return send_overhead_; }

  // The send's network share (0 on one node).
  [[nodiscard]] double nic_share() const { return send_.nic_share; }

private:
  [[nodiscard]] engine::CohortWork compute(engine::CohortWork w) const;
  // One inter-node step of `plan`'s network (0 on one node): when a put to another node lands.
  [[nodiscard]] static TimePs network_put_latency(const CollectivePlan& plan, const hw::NodeSpec& spec);

  std::shared_ptr<engine::WorkgroupModel> producer_;
  const NodeResources& res_;
  std::int64_t workgroups_;
  PeerSend send_;
  double bytes_per_wg_;
  double send_rate_;  // bytes/s one workgroup stores to the peers
  double occupancy_ratio_;
  TimePs send_overhead_;
  TimePs network_latency_;
};

}  // namespace c3sim::models
