#pragma once
// The one place that says what bytes a workgroup stores straight into peer GPUs' buffers ask of
// the node (zero-copy: from its registers to the peer's destination buffer, no local staging
// buffer, no copy pass). The fused kernel (fused_kernel.h) sends through it.
//
// Per byte sent, on this GPU (the peers' writes into this GPU's memory counted by symmetry: every
// GPU runs the same fused kernel):
// - the XCD's fabric: the store leaves the XCD (no read: the data is in registers);
// - the outgoing links, spread evenly over the peers (one switch port on a switched node);
// - memory-side: every incoming byte written once through the LLC (where there is one) to HBM; a
//   remote reduction (reduce-scatter) accumulates into the destination instead, a read-modify-write
//   of the destination line: two bytes of LLC and HBM traffic per byte received;
// The workgroup issues the stores: at most model.collective.workgroup_copy_bandwidth per workgroup.
//
// Peers on other nodes (a program on N > 1 nodes) are reached by GPU-initiated NIC puts
// (NVSHMEM's / ROC_SHMEM's InfiniBand GPUDirect Async: the workgroup writes a work request and rings
// the NIC's doorbell). Their share of the bytes (the collective's network plan: (R - g) / (R - 1) for
// an all-to-all, 1 / g for a ring) goes over the NIC, its PCIe path and the spine (network_plan.h)
// instead of the links; the NIC reads its source from this GPU's memory, so each such byte is first
// stored there and read back (two more bytes of LLC and HBM traffic; a register cannot be DMA'd).
// Each put also occupies the NIC for one message (cluster.nic_message_rate_mpps), charged as the
// bytes the NIC would move in that time: a message costs 1 / rate + size / bandwidth.
#include <vector>

#include "hardware/node_spec.h"
#include "models/kernels/collective_plan.h"
#include "models/node/node_resources.h"
#include "sim/engine/fluid_solver.h"

namespace c3sim::models {

struct PeerSend {
  int peers = 1;
  bool remote_reduction = false;  // the destination accumulates what it receives
  double nic_share = 0;           // share of the bytes that goes to peers on other nodes
  double spine_share = 0;         // share of those that crosses a fat tree's spine
  double nic_message_bytes = 0;   // NIC occupancy of the puts' message processing, per byte sent
  [[nodiscard]] double link_share() const { return 1.0 - nic_share; }
};

// The send of `plan`'s bytes as zero-copy stores (and NIC puts where `plan` spans nodes), in
// messages of `message_bytes` each (0: the message cost is not charged).
PeerSend peer_send_of(const CollectivePlan& plan, const hw::ClusterSpec& cluster, double message_bytes);

// Appends the demands per byte sent by a workgroup on XCD `xcd`.
void add_peer_send_demands(const PeerSend& send, const NodeResources& res, int xcd,
                           std::vector<engine::Demand>& out);

// Bytes per second one workgroup stores to the peers.
double peer_send_workgroup_rate(const hw::NodeSpec& spec);

}  // namespace c3sim::models
