#include "models/kernels/peer_send.h"

namespace c3sim::models {

PeerSend peer_send_of(const CollectivePlan& plan) { return PeerSend{plan.peers, plan.reduction}; }

void add_peer_send_demands(const PeerSend& send, const NodeResources& res, int xcd,
                           std::vector<engine::Demand>& out) {
  const MemoryResources& m = res.memory(KernelClass::comm);
  const double received = send.remote_reduction ? 2.0 : 1.0;
  out.push_back({m.fabric[static_cast<size_t>(xcd)], 1.0});
  if (m.llc >= 0) out.push_back({m.llc, received});
  out.push_back({m.hbm, received});
  res.add_power_demand(out);
  // Payload only: the completion flags are the per-message overhead (fused_kernel.h).
  const double per_peer = 1.0 / send.peers;
  for (int p = 0; p < send.peers; ++p) out.push_back({res.link_to_peer(p), per_peer});
}

double peer_send_workgroup_rate(const hw::NodeSpec& spec) { return spec.model.collective.workgroup_copy_bw; }

}  // namespace c3sim::models
