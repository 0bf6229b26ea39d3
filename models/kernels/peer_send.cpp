#include "models/kernels/peer_send.h"

#include "models/kernels/network_plan.h"

namespace c3sim::models {

PeerSend peer_send_of(const CollectivePlan& plan, const hw::ClusterSpec& cluster, double message_bytes) {
  PeerSend s;
  s.peers = plan.peers;
  s.remote_reduction = plan.reduction;
  if (!plan.network) return s;
  s.nic_share = plan.network->nic_share;
  s.spine_share = plan.network->spine_share;
  // One message keeps the NIC for 1 / rate, the time it would move nic_bw / rate bytes.
  if (cluster.nic_message_rate > 0 && message_bytes > 0)
    s.nic_message_bytes = cluster.nic_bw / (cluster.nic_message_rate * 1e6) / message_bytes;
  return s;
}

void add_peer_send_demands(const PeerSend& send, const NodeResources& res, int xcd,
                           std::vector<engine::Demand>& out) {
  const MemoryResources& m = res.memory(KernelClass::comm);
  // Received bytes are written (or accumulated) once; NIC bytes are also staged: stored locally
  // and read back by the NIC.
  const double memory = (send.remote_reduction ? 2.0 : 1.0) + 2.0 * send.nic_share;
  out.push_back({m.fabric[static_cast<size_t>(xcd)], 1.0});
  if (m.llc >= 0) out.push_back({m.llc, memory});
  out.push_back({m.hbm, memory});
  res.add_power_demand(out);
  // Payload only: the completion flags are the per-message overhead (fused_kernel.h).
  if (send.peers > 0 && send.link_share() > 0) {
    const double per_peer = send.link_share() / send.peers;
    for (int p = 0; p < send.peers; ++p) out.push_back({res.link_to_peer(p), per_peer});
  }
  add_network_demands(out, res, send.nic_share, send.spine_share, send.nic_share * send.nic_message_bytes);
}

double peer_send_workgroup_rate(const hw::NodeSpec& spec) { return spec.model.collective.workgroup_copy_bw; }

}  // namespace c3sim::models
