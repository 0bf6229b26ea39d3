#pragma once
// What a collective must move, independent of who moves it (CU kernel or copy engines).
// Sizes follow the paper: `bytes` is the per-GPU output (the full gathered array for all-gather).
#include <optional>
#include <string>

#include "hardware/node_spec.h"
#include "models/kernels/collective_tuner.h"
#include "models/kernels/network_plan.h"
#include "workloads/collective.h"

namespace c3sim::models {

struct CollectivePlan {
  wl::Collective coll;
  int gpus = 0;
  int peers = 0;
  bool switched = false;   // the node's GPUs meet in a switch (one port each), else a link per peer
  double bytes_sent = 0;   // per GPU, over its outgoing links
  double copy_passes = 1;  // CU copies per sent byte (p2p FIFO: send into the peer's FIFO, copy out)
  // Bytes a channel writes into its own GPU's output per byte it sends: NCCL's ring copies the
  // GPU's own block to its output in the step that sends it (directCopySend), an all-reduce its
  // reduced block once, an all-to-all its own chunk; the peers write the rest directly. It falls
  // with the node size (1 / (g - 1)), which is why one channel sends 1.31x faster on 4 x H200
  // than on 2 (model.collective.workgroup_local_copy_bandwidth).
  double local_bytes_per_byte_sent = 0;
  bool reduction = false;
  int steps = 1;  // algorithm steps, each paying the protocol latency
  const char* algorithm = "direct";
  // CU implementation's protocol (workloads/collective_protocol.h), named by the call or chosen by
  // the library's tuner (collective_tuner.h): "simple", "ll" or "ll128".
  const char* protocol = "simple";
  double step_latency = 0;     // seconds per step under the chosen protocol
  double link_efficiency = 1;  // payload share of the link bytes under the chosen protocol
  double channel_bw = 0;       // payload bytes/s one channel copies under the chosen protocol
                               //   (0 = model.collective.workgroup_copy_bandwidth)
  int workgroups = 0;          // CU implementation: channels (one workgroup each)
  double llc_footprint = 0;    // bytes the collective streams through the LLC while it runs
  // Over several nodes (nullopt on one): the collective spans nodes x gpus ranks, `bytes_sent` is
  // what each rank sends to all of them, and network->nic_share of it leaves through the NIC; the
  // rest crosses the links to the node's peers as on one node.
  std::optional<NetworkPlan> network;

  // Share of the sent bytes that crosses the node's own links (1 on one node).
  [[nodiscard]] double link_share() const { return network ? 1.0 - network->nic_share : 1.0; }

  // Bytes/s one GPU's outgoing links carry at `link_bw` each, before protocol overhead: traffic
  // spreads over the peers' links (direct, or rings laid over every link), one switch port when the
  // node is switched.
  [[nodiscard]] double aggregate_link_rate(double link_bw) const {
    return switched ? link_bw : link_bw * peers;
  }

  // Bytes sent per second by one channel alone: its copy passes at the protocol's channel rate plus
  // its local writes at the local copy rate (free where the preset has none).
  [[nodiscard]] double channel_rate(const hw::CollectiveModel& cm) const;

  // Per sent byte, on this GPU (incoming peer writes counted by symmetry):
  [[nodiscard]] double cu_fabric_bytes_per_byte() const;  // XCD <-> LLC/HBM, CU implementation
  [[nodiscard]] double llc_bytes_per_byte(bool cu_impl) const;
  [[nodiscard]] double hbm_bytes_per_byte() const;
};

// `gpus` GPUs of each of `nodes` nodes take part; `workgroups` overrides the library default (CU
// implementation). Over several nodes the plan is the library's hierarchical one
// (models/kernels/network_plan.h): a ring over every rank (all-gather, reduce-scatter, all-reduce)
// or, for an all-reduce, a tree when the library's cost model says it is faster; an all-to-all sends
// direct. Its protocol is then the simple one.
CollectivePlan plan_collective(const wl::Collective& coll, const hw::NodeSpec& spec, int gpus,
                               std::optional<int> workgroups, int nodes = 1);

int default_workgroups(wl::CollectiveOp op, const hw::NodeSpec& spec);

// The per-op parameters (hw::PerOp) as the model uses them, each op's own value or its absent rule:
// The simple protocol's payload share of the link bytes for `op`: its own measured value where the
// file has one, else model.collective.protocol_efficiency (the all-gather's).
double simple_protocol_efficiency(wl::CollectiveOp op, const hw::CollectiveModel& cm);
// CU copies per sent byte for `op` (model.collective.<op>_copy_passes): a reduction without its own
// takes the all-gather's plus the share of its passes that reduce (the reduce reads the local
// contribution too).
double copy_passes_of(wl::CollectiveOp op, const hw::CollectiveModel& cm);

// Whether the library's channel plan in `spec` (model.collective.max_channels / max_p2p_channels)
// holds for a collective over `gpus` GPUs: through a switch, at any GPU count (NCCL's ring search
// passes each GPU's switch port once per channel however many GPUs the ring has: 18 NVLinks give
// 2 x 12 channels on 2 x H200 and on 8 x H100 alike); on a fully connected node, only at the node's
// own size.
bool channel_plan_holds(const hw::NodeSpec& spec, int gpus);

// Whether `partition_cus` CUs (a stream's mask; nullopt = unmasked) are a partition of their own:
// fewer than `spec`'s GPU has.
bool is_own_partition(const hw::NodeSpec& spec, std::optional<int> partition_cus);

// The CU collective's channels on a partition of `partition_cus` CUs (of `spec`'s GPU) when the
// library is capped at the partition (model.collective.partition_caps_channels): its cap or default,
// at most the partition's CUs. nullopt: not capped (unpartitioned, or the library keeps its channels
// and runs them in waves).
std::optional<int> partition_channel_cap(const wl::Collective& coll, const hw::NodeSpec& spec,
                                         std::optional<int> partition_cus);

// `op`'s rate inside an SM partition of its own over its rate unpartitioned with the same CTA cap
// (model.collective.<op>_partition_rate; absent = 1).
double partition_rate(wl::CollectiveOp op, const hw::CollectiveModel& cm);

}  // namespace c3sim::models
