#pragma once
// The collective library's choice of algorithm and protocol for one call, as NCCL's tuner makes
// it (src/graph/tuning.cc, src/enqueue.cc topoGetAlgoInfo): each (algorithm, protocol) the library
// may run for the op gets a time estimate, latency plus bytes over bandwidth, and the least wins.
// The estimate's inputs are the hardware file's measured per-protocol values (ProtocolParams), not
// NCCL's built-in constants; its structure is NCCL's:
// - latency: the protocol's step latency times the algorithm's steps;
// - bandwidth: the links' rate at the protocol's payload share, or the channels' rate at the
//   protocol's per-channel rate where that is lower (NCCL's per-channel caps, e.g. LL128's) and the
//   file gives a protocol's own channel rate (model.collective.ll_channel_bandwidth,
//   ll128_channel_bandwidth);
// - a tree reaches kTreeBandwidthShare of that (NCCL's 0.92) and only reduces (all-reduce);
// - a protocol the file gives no payload share for is not a candidate (NCCL disables LL128 where
//   the hardware cannot carry it), the simple protocol always is.
// A kernel that names its algorithm or protocol (wl::Collective) keeps it; the tuner fills in the rest.
#include "hardware/node_spec.h"
#include "workloads/collective.h"

namespace c3sim::models {

// NCCL's tree all-reduce reaches 0.92 of the bus bandwidth its channels would give a ring
// (src/graph/tuning.cc: `busBw = std::min(busBw * .92, ...)` for NCCL_ALGO_TREE all-reduce), which
// with the tree's fewer steps is the library's rule between the two.
inline constexpr double kTreeBandwidthShare = 0.92;

// What one protocol costs on this hardware, from model.collective.
struct ProtocolParams {
  double step_latency = 0;     // seconds per algorithm step
  double link_efficiency = 1;  // payload share of the link bytes
  double channel_bw = 0;       // payload bytes/s one channel sends (in place of workgroup_copy_bandwidth)
  bool measured = false;       // the file gives the protocol's payload share: the tuner may pick it
};

// `op`'s parameters under `p`: the simple protocol's are step_latency, the op's protocol_efficiency
// and workgroup_copy_bandwidth; LL's and LL128's their own fields, each absent one the simple
// protocol's (step latency, channel rate) or the wire format's (payload share).
ProtocolParams protocol_params(wl::CollectiveProtocol p, wl::CollectiveOp op, const hw::CollectiveModel& cm);

// One candidate's shape on the node: what it sends and in how many latency-paying steps.
struct AlgorithmShape {
  double bytes_sent = 0;  // per GPU
  int steps = 1;
};

// The algorithm the library runs `op` with on one node of `gpus` GPUs when none is named: a
// reduction is a ring (each step sums one block on its way); a gather goes direct where every peer
// has its own link and as a ring through a switch (one port per GPU); an all-to-all goes direct.
wl::CollectiveAlgorithm default_algorithm(wl::CollectiveOp op, bool switched);

// `algorithm`'s bytes and steps for `bytes` (the per-GPU output) over `gpus` GPUs: a ring pass
// takes g - 1 steps, a direct pass one; a tree all-reduce (a chain through the node's GPUs) sends
// the buffer up and down, 2 (g - 1) steps, and a GPU inside the chain sends it twice.
AlgorithmShape algorithm_shape(wl::CollectiveAlgorithm algorithm, wl::CollectiveOp op, double bytes,
                               int gpus);

struct TunerChoice {
  wl::CollectiveAlgorithm algorithm = wl::CollectiveAlgorithm::ring;
  wl::CollectiveProtocol protocol = wl::CollectiveProtocol::simple;
  double estimate = 0;  // seconds, the tuner's estimate (not the simulated time)
};

// The tuner's estimate for one candidate: `links` is the link rate of one GPU (bytes/s, before
// protocol overhead), `channel_rate` one channel's sent bytes/s under the protocol (0: unbounded).
double tuner_estimate(const AlgorithmShape& shape, wl::CollectiveAlgorithm algorithm,
                      const ProtocolParams& params, double links, int channels, double channel_rate);

// One channel's sent bytes/s: `copy_passes` per sent byte at `channel_bw`, plus its local writes
// (`local_bytes_per_byte_sent`) at model.collective.workgroup_local_copy_bandwidth (free where absent).
double channel_send_rate(double copy_passes, double local_bytes_per_byte_sent, double channel_bw,
                         const hw::CollectiveModel& cm);

// The least-estimate (algorithm, protocol) for `coll` on one node, within what the call names:
// `links` and `channels` as for tuner_estimate, `copy_passes` and `local_bytes_per_byte_sent` the
// plan's (collective_plan.h).
TunerChoice choose_algorithm_and_protocol(const wl::Collective& coll, int gpus, bool switched, double links,
                                          int channels, double copy_passes, double local_bytes_per_byte_sent,
                                          const hw::CollectiveModel& cm);

}  // namespace c3sim::models
