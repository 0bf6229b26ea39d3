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
// Peers on other nodes are reached through the node's NICs instead of the links: when a node has a
// cluster section, this function is where their share is routed.
#include <vector>

#include "hardware/node_spec.h"
#include "models/kernels/collective_plan.h"
#include "models/node/node_resources.h"
#include "sim/engine/fluid_solver.h"

namespace c3sim::models {

struct PeerSend {
  int peers = 1;
  bool remote_reduction = false;  // the destination accumulates what it receives
};

// The send of `plan`'s bytes as zero-copy stores.
PeerSend peer_send_of(const CollectivePlan& plan);

// Appends the demands per byte sent by a workgroup on XCD `xcd`.
void add_peer_send_demands(const PeerSend& send, const NodeResources& res, int xcd,
                           std::vector<engine::Demand>& out);

// Bytes per second one workgroup stores to the peers.
double peer_send_workgroup_rate(const hw::NodeSpec& spec);

}  // namespace c3sim::models
