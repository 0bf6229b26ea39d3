#include "models/kernels/collective_plan.h"

#include <algorithm>

#include "sim/base/errors.h"

namespace c3sim::models {

int default_workgroups(wl::CollectiveOp op, const hw::NodeSpec& spec) {
  switch (op) {
    case wl::CollectiveOp::all_gather: return spec.model.collective.default_workgroups_all_gather;
    case wl::CollectiveOp::all_to_all: return spec.model.collective.default_workgroups_all_to_all;
    case wl::CollectiveOp::reduce_scatter:
    case wl::CollectiveOp::all_reduce: return spec.model.collective.default_workgroups_reduce;
  }
  return 1;
}

double simple_protocol_efficiency(wl::CollectiveOp op, const hw::CollectiveModel& cm) {
  return cm.protocol_efficiency.own_or(op, cm.protocol_efficiency[wl::CollectiveOp::all_gather]);
}

double copy_passes_of(wl::CollectiveOp op, const hw::CollectiveModel& cm) {
  const wl::CollectiveOpTraits& t = wl::op_traits(op);
  const double reducing_share = t.reduces ? 1.0 / t.link_passes : 0.0;
  return cm.copy_passes.own_or(op, cm.copy_passes[wl::CollectiveOp::all_gather] + reducing_share);
}

bool channel_plan_holds(const hw::NodeSpec& spec, int gpus) {
  return spec.interconnect.topology == hw::Topology::switched || gpus == spec.interconnect.gpus;
}

bool is_own_partition(const hw::NodeSpec& spec, std::optional<int> partition_cus) {
  return partition_cus.value_or(spec.compute.total_cus()) < spec.compute.total_cus();
}

std::optional<int> partition_channel_cap(const wl::Collective& coll, const hw::NodeSpec& spec,
                                         std::optional<int> partition_cus) {
  if (!spec.model.collective.partition_caps_channels || !is_own_partition(spec, partition_cus))
    return std::nullopt;
  return std::min(coll.channels.value_or(coll.max_workgroups.value_or(default_workgroups(coll.op, spec))),
                  *partition_cus);
}

double partition_rate(wl::CollectiveOp op, const hw::CollectiveModel& cm) {
  return cm.partition_rate.own_or(op, 1.0);
}

namespace {

// The library's tuner picks the algorithm and protocol the call does not name
// (collective_tuner.h); the plan then carries that protocol's physics: its per-step latency, its
// payload share of the link bytes (LL: 4 of every 8) and its per-channel rate. Small messages
// therefore go LL, large ones simple (RCCL's all-reduce time is flat at 13-14 us from 1 KiB to
// 128 KiB over 14 ring steps: the ROCm xGMI blog's rccl-tests table).
void choose_protocol(CollectivePlan& p, const hw::NodeSpec& spec) {
  const auto& cm = spec.model.collective;
  const TunerChoice c =
      choose_algorithm_and_protocol(p.coll, p.gpus, p.switched, p.aggregate_link_rate(cm.link_bw),
                                    p.workgroups, p.copy_passes, p.local_bytes_per_byte_sent, cm);
  const AlgorithmShape shape =
      algorithm_shape(c.algorithm, p.coll.op, static_cast<double>(p.coll.bytes), p.gpus);
  const ProtocolParams params = protocol_params(c.protocol, p.coll.op, cm);
  p.algorithm = wl::to_string(c.algorithm);
  p.protocol = wl::to_string(c.protocol);
  p.bytes_sent = shape.bytes_sent;
  p.steps = shape.steps;
  p.step_latency = params.step_latency;
  p.link_efficiency = params.link_efficiency;
  p.channel_bw = params.channel_bw;
}

}  // namespace

namespace {

// Payload bytes/s one GPU sends when `link_share` of them crosses its links at `links` bytes/s and
// the rest its NIC at `nic` bytes/s (the two run in parallel: the slower share sets the rate).
double split_rate(double link_share, double links, double nic) {
  double rate = link_share > 0 ? links / link_share : 1e300;
  if (link_share < 1) rate = std::min(rate, nic / (1 - link_share));
  return rate;
}

// The library's estimate of a plan's time: `step_latency` for the steps inside the node, the network
// steps' latency, and `sent` bytes at the algorithm's share of the rate its links (`links` bytes/s)
// and NIC (`nic` bytes/s) give.
double estimate_time(const NetworkPlan& n, double sent, double step_latency, double links, double nic) {
  return step_latency + n.latency() + sent / (n.bandwidth_share * split_rate(1 - n.nic_share, links, nic));
}

// NVLSTree as NCCL's tuner prices it (src/graph/tuning.cc): bytes at a bus bandwidth like the
// ring's (algorithm bandwidth x 2 (R - 1) / R), the smaller of NVLS's inside the node and the
// NICs' between nodes (twice the NICs' on two nodes, where the tree is one exchange each way), after
// the NVLS latency and two network steps per tree level.
double nvls_tree_estimate(const CollectivePlan& p, const NetworkPlan& n, const hw::NodeSpec& spec,
                          int nodes) {
  const hw::ClusterSpec& c = spec.cluster;
  const auto& cm = spec.model.collective;
  const double g = p.gpus;
  const double r = g * nodes;
  const double nvls_bus = cm.nvls_all_reduce_bw * 2 * (g - 1) / g;
  const double nic_bus = g * c.nic_bw / c.gpus_per_nic * (nodes <= 2 ? 2 : 1);
  return cm.nvls_latency + n.latency() +
         static_cast<double>(p.coll.bytes) * 2 * (r - 1) / r / std::min(nvls_bus, nic_bus);
}

// NVLSTree as it runs: each GPU's S bytes cross its switch port once each way (the switch reduces
// the GPU's share from every GPU of the node, then multicasts the result), at the NVLS all-reduce's
// rate; its S / g share runs the double binary tree between nodes over its NIC
// (double_binary_tree_load x S / g each way). The two proceed in parallel, pipelined. `network`:
// plan_network's NVLSTree plan for these ranks.
void plan_nvls_tree(CollectivePlan& p, const NetworkPlan& network, const hw::NodeSpec& spec, int nodes) {
  const auto& cm = spec.model.collective;
  p.network = network;
  const double load = double_binary_tree_load(nodes);
  p.bytes_sent = static_cast<double>(p.coll.bytes) * (1 + load / p.gpus);
  p.link_efficiency = cm.nvls_all_reduce_bw / p.aggregate_link_rate(cm.link_bw);
  p.algorithm = "nvls_tree";
  p.steps = 1;
  p.step_latency = cm.nvls_latency;
}

// The plan over several nodes: every rank of nodes x gpus, the library's algorithm (or the one the
// call names) and the network share of its bytes (network_plan.h), the simple protocol.
void plan_across_nodes(CollectivePlan& p, const hw::NodeSpec& spec, int nodes) {
  const hw::ClusterSpec& c = spec.cluster;
  if (!c.present()) throw ModelError("a collective over several nodes needs the hardware's cluster section");
  const wl::CollectiveOpTraits& t = wl::op_traits(p.coll.op);
  const int ranks = p.gpus * nodes;
  const double bytes = static_cast<double>(p.coll.bytes);
  const auto& cm = spec.model.collective;
  p.step_latency = cm.step_latency;
  p.link_efficiency = simple_protocol_efficiency(p.coll.op, cm);
  p.protocol = "simple";
  const double nic_rate = c.nic_bw / c.gpus_per_nic;
  const double links = p.peers > 0 ? p.aggregate_link_rate(cm.link_bw) * p.link_efficiency : 0;
  if (t.point_to_point) {
    p.network = plan_network(p.coll.op, NetworkAlgorithm::direct, c, nodes, p.gpus, p.workgroups);
    p.bytes_sent = wl::sent_bytes(p.coll.op, bytes, ranks);
    p.algorithm = "direct";
    p.steps = 1;
    return;
  }
  p.network = plan_network(p.coll.op, NetworkAlgorithm::ring, c, nodes, p.gpus, p.workgroups);
  p.bytes_sent = wl::sent_bytes(p.coll.op, bytes, ranks);
  p.algorithm = "ring";
  p.steps = t.link_passes * (ranks - 1);
  if (p.coll.op != wl::CollectiveOp::all_reduce) return;
  // All-reduce: the tree (a chain through the node's GPUs, a binary tree between nodes; each GPU
  // sends the data up once and down once) or, where the node's switches reduce, NVLSTree, when the
  // library's estimate says so: latency of its steps plus bytes at its bus bandwidth (the tree's
  // kTreeBandwidthShare of the ring's). A call that names its algorithm runs it.
  const double ring_time = estimate_time(*p.network, p.bytes_sent, p.steps * p.step_latency, links, nic_rate);
  NetworkPlan tree = plan_network(p.coll.op, NetworkAlgorithm::tree, c, nodes, p.gpus, p.workgroups);
  const double tree_sent = 2.0 * bytes;
  const int tree_steps = 2 * (p.gpus - 1);
  tree.bandwidth_share = kTreeBandwidthShare;
  const double tree_time = estimate_time(tree, tree_sent, tree_steps * p.step_latency, links, nic_rate);
  if (!p.coll.algorithm && cm.nvls_all_reduce_bw > 0 && p.switched && p.gpus > 1) {
    const NetworkPlan nvls =
        plan_network(p.coll.op, NetworkAlgorithm::nvls_tree, c, nodes, p.gpus, p.workgroups);
    if (nvls_tree_estimate(p, nvls, spec, nodes) < std::min(ring_time, tree_time)) {
      plan_nvls_tree(p, nvls, spec, nodes);
      return;
    }
  }
  const bool tree_runs =
      p.coll.algorithm ? *p.coll.algorithm == wl::CollectiveAlgorithm::tree : tree_time < ring_time;
  if (tree_runs) {
    p.network = tree;
    p.bytes_sent = tree_sent;
    p.algorithm = "tree";
    p.steps = tree_steps;
  }
}

}  // namespace

CollectivePlan plan_collective(const wl::Collective& coll, const hw::NodeSpec& spec, int gpus,
                               std::optional<int> workgroups, int nodes) {
  if (gpus * nodes < 2) throw ModelError("a collective needs at least 2 GPUs");
  if (coll.bytes <= 0) throw ModelError("collective size must be positive");
  CollectivePlan p;
  p.coll = coll;
  p.gpus = gpus;
  p.peers = gpus - 1;
  p.switched = spec.interconnect.topology == hw::Topology::switched;
  const double g = gpus;
  const double bytes = static_cast<double>(coll.bytes);
  const auto& cm = spec.model.collective;
  const wl::CollectiveOpTraits& t = wl::op_traits(coll.op);
  p.bytes_sent = wl::sent_bytes(coll.op, bytes, gpus);
  // The GPU's own block, written locally once per pass, per block sent to the peers (none on one
  // GPU): NCCL's ring writes it in the step that sends it, an all-reduce its reduced block once.
  p.local_bytes_per_byte_sent = (gpus > 1 ? 1.0 / (g - 1) : 0.0) / t.link_passes;
  p.copy_passes = copy_passes_of(coll.op, cm);
  p.reduction = t.reduces;
  // The library's usual algorithm (collective_tuner.h: default_algorithm); choose_protocol may
  // change it.
  const wl::CollectiveAlgorithm usual = default_algorithm(coll.op, p.switched);
  p.algorithm = wl::to_string(usual);
  p.steps = algorithm_shape(usual, coll.op, bytes, gpus).steps;
  p.channel_bw = cm.workgroup_copy_bw;
  // Input and output stream through the LLC.
  p.llc_footprint = wl::input_bytes(coll.op, bytes, gpus) + bytes;
  p.workgroups = workgroups.value_or(coll.max_workgroups.value_or(default_workgroups(coll.op, spec)));
  // The library builds at most this many channels on this node, whatever the cap allows; a call
  // that names the channels it ran (coll.channels) ran those.
  const hw::CollectiveModel& lib = spec.model.collective;
  const int built = t.point_to_point ? lib.max_p2p_channels : lib.max_channels;
  if (built > 0 && channel_plan_holds(spec, gpus)) p.workgroups = std::min(p.workgroups, built);
  // Over several nodes a ring or tree collective has the channels the library builds from the
  // network graph (cluster.channels), whatever the node's own count; a cap below them still caps.
  if (nodes > 1 && !t.point_to_point && spec.cluster.channels > 0)
    p.workgroups = std::min(workgroups.value_or(coll.max_workgroups.value_or(spec.cluster.channels)),
                            spec.cluster.channels);
  if (coll.channels) p.workgroups = workgroups ? std::min(*workgroups, *coll.channels) : *coll.channels;
  if (p.workgroups <= 0) throw ModelError("a CU collective needs at least one workgroup");
  if (nodes > 1) {
    p.local_bytes_per_byte_sent = (1.0 / (static_cast<double>(gpus) * nodes - 1)) / t.link_passes;
    p.llc_footprint = wl::input_bytes(coll.op, bytes, gpus * nodes) + bytes;
    plan_across_nodes(p, spec, nodes);
    return p;
  }
  choose_protocol(p, spec);
  return p;
}

double CollectivePlan::channel_rate(const hw::CollectiveModel& cm) const {
  return channel_send_rate(copy_passes, local_bytes_per_byte_sent,
                           channel_bw > 0 ? channel_bw : cm.workgroup_copy_bw, cm);
}

double CollectivePlan::cu_fabric_bytes_per_byte() const {
  // Every copy pass reads one byte into the XCD and writes one byte out of it.
  return 2.0 * copy_passes;
}

double CollectivePlan::llc_bytes_per_byte(bool cu_impl) const {
  // The LLC is memory-side: it sees every read and write, including FIFO staging.
  return cu_impl ? 2.0 * copy_passes : 2.0;
}

double CollectivePlan::hbm_bytes_per_byte() const {
  // Source read once, destination written once; FIFO staging stays in the caches.
  return reduction ? 3.0 : 2.0;
}

}  // namespace c3sim::models
