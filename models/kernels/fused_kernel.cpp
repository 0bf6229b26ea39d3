#include "models/kernels/fused_kernel.h"

#include <algorithm>
#include <utility>

namespace c3sim::models {

double fused_message_overhead(const hw::NodeSpec& spec) {
  const hw::CollectiveModel& cm = spec.model.collective;
  if (spec.model.fused.message_overhead >= 0) return spec.model.fused.message_overhead;
  // A message is stores plus a flag the peer polls: what the LL protocol pays per step (its
  // payload carries the flags); where the preset has no LL, a simple-protocol handshake.
  return cm.ll_protocol_efficiency > 0 ? cm.ll_step_latency : cm.step_latency;
}

FusedKernelModel::FusedKernelModel(std::shared_ptr<engine::WorkgroupModel> producer, std::int64_t workgroups,
                                   const CollectivePlan& plan, int messages_per_workgroup,
                                   const hw::NodeSpec& spec, const NodeResources& res)
    : producer_(std::move(producer)),
      res_(res),
      workgroups_(workgroups),
      send_(peer_send_of(
          plan, spec.cluster,
          plan.bytes_sent / static_cast<double>(workgroups) / std::max(1, messages_per_workgroup))),
      bytes_per_wg_(plan.bytes_sent / static_cast<double>(workgroups)),
      send_rate_(peer_send_workgroup_rate(spec)),
      occupancy_ratio_(spec.model.fused.occupancy_ratio),
      send_overhead_(s_to_ps(messages_per_workgroup * fused_message_overhead(spec))),
      network_latency_(network_put_latency(plan, spec)) {}

TimePs FusedKernelModel::network_put_latency(const CollectivePlan& plan, const hw::NodeSpec& spec) {
  if (!plan.network || plan.network->nic_share <= 0) return 0;
  // One inter-node step of the network plan (NIC latency, switches beyond the first); no channel
  // messages: the puts' message cost is on the NIC's demand (peer_send.h).
  const NetworkPlan& n = *plan.network;
  return s_to_ps(
      plan_network(plan.coll.op, n.algorithm, spec.cluster, n.nodes, n.gpus_per_node, 0).step_latency);
}

engine::CohortWork FusedKernelModel::compute(engine::CohortWork w) const {
  w.bound_per_wg *= occupancy_ratio_;
  return w;
}

engine::CohortWork FusedKernelModel::cohort_work(const engine::CohortContext& ctx) {
  return compute(producer_->cohort_work(ctx));
}

std::optional<engine::CohortWork> FusedKernelModel::refresh(const engine::CohortContext& ctx) {
  // The send's demands do not depend on who else runs: only the compute phase is refreshed.
  if (ctx.phase != 0) return std::nullopt;
  std::optional<engine::CohortWork> w = producer_->refresh(ctx);
  if (!w) return std::nullopt;
  return compute(std::move(*w));
}

std::optional<engine::CohortWork> FusedKernelModel::next_phase(const engine::CohortContext& ctx) {
  // Phase 1 (on the CU): issue the messages, each a put of its stores and a completion flag
  // (skipped when they cost nothing). Then, detached: the stores drain over the links (and the NIC
  // puts over the network) while the CU takes the next workgroup; the kernel ends when the last
  // bytes have landed.
  const int issue_phase = send_overhead_ > 0 ? 1 : 0;
  if (ctx.phase == issue_phase && issue_phase == 1) {
    engine::CohortWork w;
    w.work_per_wg = 1.0;  // work unit: the workgroup's messages, issued in send_overhead_
    w.bound_per_wg = 1.0 / ps_to_s(send_overhead_);
    w.phase_label = "put";
    w.phase_kind = engine::KernelKind::cu_collective;
    return w;
  }
  if (ctx.phase != issue_phase + 1) return std::nullopt;
  engine::CohortWork w;
  w.work_per_wg = bytes_per_wg_;  // work unit: one byte stored to a peer
  w.bound_per_wg = send_rate_;
  add_peer_send_demands(send_, res_, ctx.xcd, w.demands);
  // Bytes to other nodes land one network step after they leave; the cohort's send ends when its
  // last put has landed (its link stores, in flight meanwhile, are taken to land with it).
  w.startup_latency = network_latency_;
  w.phase_label = "send";
  w.phase_kind = engine::KernelKind::cu_collective;
  w.detached = true;
  return w;
}

}  // namespace c3sim::models
