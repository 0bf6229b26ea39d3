#include "models/kernels/network_plan.h"

#include <algorithm>

#include "sim/base/errors.h"

namespace c3sim::models {

const char* to_string(NetworkAlgorithm a) {
  switch (a) {
    case NetworkAlgorithm::ring: return "ring";
    case NetworkAlgorithm::tree: return "tree";
    case NetworkAlgorithm::direct: return "direct";
    case NetworkAlgorithm::nvls_tree: return "nvls_tree";
  }
  return "?";
}

double nic_share(NetworkAlgorithm algorithm, int nodes, int gpus) {
  if (nodes < 2) return 0;
  const double g = gpus;
  const double r = static_cast<double>(nodes) * g;
  switch (algorithm) {
    case NetworkAlgorithm::ring:
    case NetworkAlgorithm::tree: return 1.0 / g;
    case NetworkAlgorithm::direct: return (r - g) / (r - 1);
    case NetworkAlgorithm::nvls_tree: {
      const double load = double_binary_tree_load(nodes);
      return load / (g + load);
    }
  }
  return 0;
}

namespace {

// Edges of `rank` (parent and children) in NCCL's binary tree over `nranks` (ncclGetBtree: root 0,
// children found by the lowest set bit).
int btree_edges(int nranks, int rank) {
  if (rank == 0) return nranks > 1 ? 1 : 0;
  int bit = 1;
  while (bit < nranks && (bit & rank) == 0) bit <<= 1;
  int edges = 1;  // the parent
  int lowbit = bit >> 1;
  if (lowbit == 0) return edges;
  ++edges;  // down0 = rank - lowbit, always within bounds
  int down1 = rank + lowbit;
  while (down1 >= nranks) {
    down1 = lowbit == 0 ? -1 : rank + lowbit;
    lowbit >>= 1;
  }
  return down1 >= 0 ? edges + 1 : edges;
}

}  // namespace

double double_binary_tree_load(int nodes) {
  if (nodes < 2) return 0;
  int busiest = 0;
  for (int n = 0; n < nodes; ++n) {
    const int second = nodes % 2 == 1 ? (n - 1 + nodes) % nodes : nodes - 1 - n;
    busiest = std::max(busiest, btree_edges(nodes, n) + btree_edges(nodes, second));
  }
  return busiest / 2.0;
}

double spine_share(NetworkAlgorithm algorithm, int nodes, int nodes_per_leaf) {
  const int leaf = std::max(1, nodes_per_leaf);
  if (nodes < 2 || nodes <= leaf) return 0;
  const auto leaf_of = [leaf](int node) { return node / leaf; };
  switch (algorithm) {
    case NetworkAlgorithm::ring: {
      int crossing = 0;
      for (int n = 0; n < nodes; ++n) crossing += leaf_of(n) != leaf_of((n + 1) % nodes) ? 1 : 0;
      return static_cast<double>(crossing) / nodes;
    }
    case NetworkAlgorithm::tree:
    case NetworkAlgorithm::nvls_tree: {
      int crossing = 0;
      for (int n = 1; n < nodes; ++n) crossing += leaf_of(n) != leaf_of((n - 1) / 2) ? 1 : 0;
      return static_cast<double>(crossing) / (nodes - 1);
    }
    case NetworkAlgorithm::direct: {
      // Nodes fill leaves in order; the last leaf may hold fewer. Averaged over the nodes.
      double sum = 0;
      for (int n = 0; n < nodes; ++n) {
        const int first = leaf_of(n) * leaf;
        const int same = std::min(nodes, first + leaf) - first;
        sum += static_cast<double>(nodes - same) / (nodes - 1);
      }
      return sum / nodes;
    }
  }
  return 0;
}

NetworkPlan plan_network(wl::CollectiveOp op, NetworkAlgorithm algorithm, const hw::ClusterSpec& cluster,
                         int nodes, int gpus, int channels) {
  if (nodes < 2) throw ModelError("a network plan needs at least 2 nodes");
  if (!cluster.present()) throw ModelError("a network plan needs the hardware's cluster section");
  NetworkPlan p;
  p.nodes = nodes;
  p.gpus_per_node = gpus;
  p.algorithm = algorithm;
  p.nic_share = nic_share(algorithm, nodes, gpus);
  p.spine_share =
      cluster.network == hw::Network::fat_tree ? spine_share(algorithm, nodes, cluster.nodes_per_leaf) : 0;
  const int passes = wl::op_traits(op).link_passes;
  int log2_nodes = 0;
  while ((1 << log2_nodes) < nodes) ++log2_nodes;
  switch (algorithm) {
    // NCCL's cost model (src/graph/tuning.cc): a ring pays the network latency on nNodes - 1 of
    // each pass's steps, a tree twice per level (reduce up, broadcast down), an all-to-all once.
    case NetworkAlgorithm::ring: p.network_steps = passes * (nodes - 1); break;
    case NetworkAlgorithm::tree:
    case NetworkAlgorithm::nvls_tree: p.network_steps = 2 * log2_nodes; break;
    case NetworkAlgorithm::direct: p.network_steps = 1; break;
  }
  // A message that crosses the spine passes two switches more (leaf, spine, leaf); the ring's steps
  // are paced by their slowest hop, so any crossing pays it. Each channel sends one message per
  // step through its NIC, which issues them at its message rate.
  const double extra_switches = p.spine_share > 0 ? 2 : 0;
  const double messages = static_cast<double>(channels) * cluster.gpus_per_nic;
  const double message_time = cluster.nic_message_rate > 0 ? messages / (cluster.nic_message_rate * 1e6) : 0;
  p.step_latency = cluster.nic_latency + extra_switches * cluster.switch_latency + message_time;
  return p;
}

void add_network_demands(std::vector<engine::Demand>& demands, const NodeResources& res,
                         double nic_bytes_per_unit, double spine_share, double nic_message_bytes_per_unit) {
  if (nic_bytes_per_unit <= 0) return;
  if (res.nic() < 0) throw ModelError("network traffic on a node built without NICs");
  demands.push_back({res.nic(), nic_bytes_per_unit + nic_message_bytes_per_unit});
  demands.push_back({res.nic_pcie(), nic_bytes_per_unit});
  if (spine_share > 0) demands.push_back({res.spine(), nic_bytes_per_unit * spine_share});
}

}  // namespace c3sim::models
