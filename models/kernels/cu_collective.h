#pragma once
// CU-based collective (RCCL/NCCL-like): a kernel of C channels, one workgroup each. Every channel
// moves an equal share: local reads through its XCD's L2 and fabric, the outgoing links, and (by
// symmetry) the peers' writes into local memory; capped by a per-workgroup copy rate. Saturation
// points ("all-gather stops gaining near 32 CUs, all-to-all near 64") follow from that cap, the
// copy passes per byte and the link bandwidth.
// With model.collective.channel_queueing the channels share the link as a closed queueing network
// (models/node/channel_queueing.h): each one's bound is the network's rate for the channels running now,
// divided among them.
// The collective's start (the library's fixed cost and its steps' protocol latency) is paid once per
// collective, from its first dispatch: a cohort that starts later (a second wave of channels on a
// partition with fewer CUs than channels) waits only for what is left of it.
// On a partition of its own (`partitioned`: a green context or CU-masked stream) the library's
// whole rate, per channel and on the link, scales by model.collective.<op>_partition_rate: measured
// library behaviour (NCCL packed into a few GPCs), not a property of the SMs or the link.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/kernels/collective_plan.h"
#include "models/node/interference_state.h"
#include "models/node/node_resources.h"
#include "sim/engine/workgroup_model.h"

namespace c3sim::models {

class CuCollectiveModel final : public engine::WorkgroupModel {
public:
  CuCollectiveModel(CollectivePlan plan, const hw::NodeSpec& spec, const NodeResources& res,
                    const InterferenceState& state, bool partitioned = false);

  [[nodiscard]] engine::CohortWork cohort_work(const engine::CohortContext& ctx) override;
  // The per-workgroup copy rate falls as the GEMM's memory traffic lengthens each load's latency,
  // and (model.collective.channel_queueing) as more of the collective's channels share the link.
  [[nodiscard]] std::optional<engine::CohortWork> refresh(const engine::CohortContext& ctx) override;
  void cohort_retired(const engine::CohortContext& ctx) override;
  [[nodiscard]] const CollectivePlan& plan() const { return plan_; }
  [[nodiscard]] TimePs launch_latency() const { return launch_latency_; }
  // All-GPU mode: the last rank's kernel is up at `at` (engine time), so no data moves before
  // `at` plus the collective's start. Its channels dispatched earlier spin on their CUs until then,
  // as a library kernel polling for its peers does.
  void wait_for_peers(TimePs at) { peers_up_ = at; }
  // All-GPU mode: the last peer's data for this collective lands at `at` (engine time), later than
  // this rank's own work may end. A channel whose bytes are all sent keeps its CU, polling, until
  // then (a "wait" phase: no demands, no progress), as a library kernel does until its last
  // receive; the kernels beside it keep losing that CU.
  void hold_until(TimePs at) { peers_done_ = at; }
  // When the collective's own data movement ended (-1 before): its last channel's sending phase,
  // without the wait after it. The all-GPU fixed point couples the ranks on this, not on the held end.
  [[nodiscard]] TimePs work_end() const { return work_end_; }
  [[nodiscard]] std::optional<engine::CohortWork> next_phase(const engine::CohortContext& ctx) override;

private:
  CollectivePlan plan_;
  const NodeResources& res_;
  const InterferenceState& state_;
  double stall_fraction_;
  double link_stall_fraction_;
  // Per running cohort, by its dispatcher slot (CohortContext::slot, written by cohort_work when
  // the cohort starts): the load its bound used. A vector, not a map keyed by first workgroup: one
  // map node per cohort start would be a visible share of a run.
  std::vector<double> applied_load_;
  double partition_rate_;  // model.collective.<op>_partition_rate on a partition of its own, else 1
  double wg_rate_;         // sent bytes per second one workgroup can push
  TimePs startup_;         // the collective's start on the GPU: its fixed cost and every step's latency
  // When the first cohort started (-1 before): the start elapses once per collective, from here,
  // or from peers_up_ when the last rank's kernel came up later (-1: no one to wait for).
  TimePs first_dispatch_ = -1;
  TimePs peers_up_ = -1;
  TimePs peers_done_ = -1;  // hold_until (-1: no one to wait for)
  TimePs work_end_ = -1;
  TimePs launch_latency_;
  double link_efficiency_;
  double hbm_latency_ratio_;           // model.gemm.hbm_miss_latency_ratio: the memory's, whoever asks
  bool hbm_queueing_;                  // model.memory.hbm_queueing, with an LLC
  double llc_hit_;                     // share of the copy loop's memory requests the LLC serves
  bool channel_queueing_;              // model.collective.channel_queueing
  double link_rate_;                   // payload bytes/s its links carry, before any stretch
  std::vector<int> applied_channels_;  // per slot, as applied_load_: the channel count its bound used
  int running_ = 0;                    // the collective's workgroups holding CUs now
  int waiting_ = 0;                    // of those, the ones in the wait phase (sending nothing)
  std::int64_t dispatched_ = 0;        // workgroups dispatched so far
  // The other kernels' memory utilization the copy loop queues behind (queueing_utilization.h).
  [[nodiscard]] double load_by_others(std::int32_t kernel) const;
  // Payload bytes/s the collective's paths carry: its links, and over several nodes its NIC beside them.
  [[nodiscard]] double payload_rate(const hw::NodeSpec& spec) const;
  [[nodiscard]] engine::CohortWork work(const engine::CohortContext& ctx);
  // Channels sharing the link for this cohort's bound: every workgroup holding CUs and still
  // sending, this cohort's counted even before cohort_work has added it.
  [[nodiscard]] int channels_running(const engine::CohortContext& ctx) const {
    return std::max(running_ - waiting_, ctx.count);
  }
};

}  // namespace c3sim::models
