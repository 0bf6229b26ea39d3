#pragma once
// What a collective (or any kernel that sends to GPUs on other nodes) asks of the network: the share
// of a GPU's sent bytes that leaves the node through its NIC, the share of those that crosses a
// fat tree's spine, and the latency of one inter-node step. Planned once from the hardware's cluster
// section and the op, independent of who moves the bytes, and turned into demands on the NIC, its
// PCIe path and the spine by add_network_demands, which a fused kernel model calls for its own
// "bytes to peers on other nodes" too.
//
// Symmetric ranks: the representative GPU stands for every rank. Its NIC carries what it sends off
// the node; what it receives equals that by symmetry (as with the links). Other ranks' traffic
// reaches it only through the fat tree's spine, whose 1 / oversubscription of the leaves' rate is
// shared by all of them alike, so the spine is one more resource of the representative GPU:
// nic_bandwidth / (gpus_per_nic x oversubscription), charged for the spine-crossing share of its NIC
// bytes. A rail-optimized network has no shared stage beyond the NIC (GPU i meets GPU i of every
// node in rail switch i).
#include <vector>

#include "hardware/node_spec.h"
#include "models/node/node_resources.h"
#include "sim/engine/simulation.h"
#include "workloads/collective.h"

namespace c3sim::models {

// How NCCL/RCCL build a collective over ranks on several nodes.
enum class NetworkAlgorithm {
  ring,       // one ring over every rank; its inter-node hops go over the NICs, rings rotated over them
  tree,       // all-reduce: a chain inside each node, a double binary tree between nodes
  direct,     // all-to-all: one send per peer, off-node peers over the NICs
  nvls_tree,  // all-reduce: NVLink SHARP inside each node, a double binary tree between nodes
};
const char* to_string(NetworkAlgorithm a);

struct NetworkPlan {
  int nodes = 1;
  int gpus_per_node = 1;
  NetworkAlgorithm algorithm = NetworkAlgorithm::ring;
  double nic_share = 0;     // share of the bytes a GPU sends that go over its NIC (the rest: links)
  double spine_share = 0;   // share of the NIC bytes that cross a fat tree's spine (0 rail-optimized)
  int network_steps = 0;    // steps that wait on an inter-node hop (NCCL's nInterSteps)
  double step_latency = 0;  // seconds per inter-node step: NIC latency, extra switches, messages
  // Share of its links' and NIC's rate the algorithm's bytes get (the library's tree all-reduce:
  // kTreeBandwidthShare in collective_plan.h; 1 otherwise).
  double bandwidth_share = 1;
  [[nodiscard]] int ranks() const { return nodes * gpus_per_node; }
  [[nodiscard]] double latency() const { return network_steps * step_latency; }
};

// Share of the bytes each GPU sends that leave the node, for `algorithm` over `nodes` x `gpus`
// ranks: a ring leaves each node once per ring and the rings rotate over the node's GPUs (1 / g);
// the tree's inter-node edges carry the same 2 S / g per GPU as the ring (each node sends its
// reduced data up once and the result down once per tree, two trees of half the data); an
// all-to-all's blocks for the (N - 1) g off-node peers ((R - g) / (R - 1) of its sends). NVLSTree:
// each GPU sends its S over the switch (NVLS reduce, then multicast) and runs the trees on its S / g
// share of the reduced buffer over its NIC, double_binary_tree_load(N) x S / g of it, so the NIC's
// share of its S (1 + load / g) is load / (g + load).
double nic_share(NetworkAlgorithm algorithm, int nodes, int gpus);

// NCCL's double binary tree over `nodes` (src/graph/trees.cc, ncclGetDtree: a binary tree and its
// mirror, or its shift by one for an odd count), each tree carrying half the data up to the root
// and back down: what the busiest node sends (and receives) per byte of the data, i.e. half the sum
// of its edges in the two trees. Every node's tree steps wait on the busiest one. 1 on two nodes
// (each sends its half up one tree and the other half down the other), 2 from four nodes on (a node
// with a parent and two children in one tree is a leaf of the other).
double double_binary_tree_load(int nodes);

// Share of a NIC's bytes that crosses the spine of a fat tree with `nodes_per_leaf` nodes under each
// leaf (0 = one): a ring's node-to-node hops cross between leaves ceil(N / L) times of N; an
// all-to-all sends (N - L) of its N - 1 off-node blocks to other leaves; the tree's edges (parent
// (i - 1) / 2 over nodes in order) counted one by one. 0 when every node shares one leaf.
double spine_share(NetworkAlgorithm algorithm, int nodes, int nodes_per_leaf);

// The network side of a collective over `nodes` x `gpus` ranks with `channels` channels (each sends
// one message per step through its GPU's NIC). nodes must be >= 2 and the cluster present.
NetworkPlan plan_network(wl::CollectiveOp op, NetworkAlgorithm algorithm, const hw::ClusterSpec& cluster,
                         int nodes, int gpus, int channels);

// Appends the demands of `nic_bytes_per_unit` bytes per unit of work sent to other nodes: the NIC
// and the GPU-NIC PCIe path per byte, the spine for its `spine_share`; `nic_message_bytes_per_unit`
// more of the NIC alone for its per-message processing (its message rate, in the bytes it would move
// meanwhile). NodeResources must have been built for more than one node.
void add_network_demands(std::vector<engine::Demand>& demands, const NodeResources& res,
                         double nic_bytes_per_unit, double spine_share,
                         double nic_message_bytes_per_unit = 0);

}  // namespace c3sim::models
