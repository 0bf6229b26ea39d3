#include "models/kernels/cu_collective.h"

#include <algorithm>

#include "models/node/channel_queueing.h"
#include "models/node/queueing_utilization.h"

namespace c3sim::models {

CuCollectiveModel::CuCollectiveModel(CollectivePlan plan, const hw::NodeSpec& spec, const NodeResources& res,
                                     const InterferenceState& state, bool partitioned)
    : plan_(std::move(plan)),
      res_(res),
      state_(state),
      stall_fraction_(spec.model.collective.memory_stall_fraction),
      link_stall_fraction_(spec.model.collective.link_stall_fraction),
      partition_rate_(partitioned ? partition_rate(plan_.coll.op, spec.model.collective) : 1.0),
      wg_rate_(partition_rate_ * plan_.channel_rate(spec.model.collective)),
      // The kernel reaches the GPU like any other launch (model.dispatch.kernel_launch_latency);
      // the rest of the library's fixed cost per collective (model.collective.launch_latency, from
      // the call to the first byte: peer handshakes, flag setup) is spent on the GPU, holding its
      // CUs. Charging all of it before arrival would let a GEMM launched after a collective reach
      // the CUs first, which the ordered measurements contradict (collective-first beats
      // GEMM-first on H200: h200x2_ordered_table1.jsonl, sp/base 0.85). Isolated times are the same.
      startup_(s_to_ps(
          plan_.step_latency * plan_.steps + (plan_.network ? plan_.network->latency() : 0.0) +
          std::max(0.0, spec.model.collective.launch_latency - spec.model.dispatch.kernel_launch_latency))),
      launch_latency_(
          s_to_ps(std::min(spec.model.collective.launch_latency, spec.model.dispatch.kernel_launch_latency))),
      link_efficiency_(partition_rate_ * plan_.link_efficiency),
      hbm_latency_ratio_(spec.model.gemm.hbm_miss_latency_ratio),
      hbm_queueing_(spec.model.memory.hbm_queueing && spec.memory.llc_bytes > 0),
      // Share of the copy loop's requests the LLC serves: what it reads and writes there beyond
      // what reaches HBM (the p2p FIFO staging); source and destination buffers stream to HBM.
      llc_hit_(1.0 - plan_.hbm_bytes_per_byte() / plan_.llc_bytes_per_byte(true)),
      channel_queueing_(spec.model.collective.channel_queueing),
      link_rate_(payload_rate(spec)) {}

double CuCollectiveModel::payload_rate(const hw::NodeSpec& spec) const {
  const double links = link_efficiency_ * plan_.aggregate_link_rate(spec.model.collective.link_bw);
  if (!plan_.network) return links;
  // Links and NIC carry their shares in parallel; the slower share sets the rate.
  const NetworkPlan& n = *plan_.network;
  const hw::ClusterSpec& c = spec.cluster;
  double nic = std::min(c.nic_bw, c.pcie_bw) / c.gpus_per_nic;
  if (n.spine_share > 0) nic = std::min(nic, c.nic_bw / c.gpus_per_nic / c.oversubscription / n.spine_share);
  double rate = plan_.peers > 0 && plan_.link_share() > 0 ? links / plan_.link_share() : nic / n.nic_share;
  if (n.nic_share > 0) rate = std::min(rate, nic / n.nic_share);
  return n.bandwidth_share * rate;
}

double CuCollectiveModel::load_by_others(std::int32_t kernel) const {
  const double u_llc = state_.memory_load_of_others(kernel);
  if (!hbm_queueing_) return u_llc;
  return queueing_utilization(u_llc, state_.hbm_load_of_others(kernel), llc_hit_, hbm_latency_ratio_);
}

engine::CohortWork CuCollectiveModel::cohort_work(const engine::CohortContext& ctx) {
  running_ += ctx.count;
  dispatched_ += ctx.count;
  return work(ctx);
}

engine::CohortWork CuCollectiveModel::work(const engine::CohortContext& ctx) {
  const MemoryResources& m = res_.memory(KernelClass::comm);
  const auto x = static_cast<size_t>(ctx.xcd);
  engine::CohortWork w;
  w.work_per_wg = plan_.bytes_sent / plan_.workgroups;  // work unit: one byte sent
  // Contention: a copy loop's memory waits lengthen with the utilization u that the other running
  // kernels (the GEMM, in a pair) put on the same memory level, to first order by 1 + f * u.
  const double others = load_by_others(ctx.owner.kernel);
  const double u = state_.isolate_queueing ? 0.0 : std::clamp(others, 0.0, 1.0);
  const double lone = wg_rate_ / (1.0 + stall_fraction_ * u);
  const double link_stretch = 1.0 + link_stall_fraction_ * u;
  const int channels = channels_running(ctx);
  w.bound_per_wg =
      channel_queueing_ ? closed_network_rate(channels, lone, link_rate_ / link_stretch) / channels : lone;
  const auto slot = static_cast<size_t>(ctx.slot);
  if (applied_load_.size() <= slot) {
    applied_load_.resize(slot + 1, 0.0);
    applied_channels_.resize(slot + 1, 0);
  }
  applied_load_[slot] = others;
  applied_channels_[slot] = channels;
  // Once per collective, not per cohort: the fixed cost (peer handshakes, flag setup) and the
  // protocol's per-step latency belong to the collective's pipeline, which every channel joins;
  // a channel that starts after the pipeline is up pays none of it again. Charging it to every
  // cohort made a 16-CU partition run NCCL's 32 channels as two full starts (2 x H200 rp:16
  // reductions +35-39%, while measured a 16-CTA NCCL on 16 SMs runs 64 MiB near the full GPU's time).
  const TimePs now = res_.now();
  if (first_dispatch_ < 0) first_dispatch_ = now;
  w.startup_latency = std::max<TimePs>(0, std::max(first_dispatch_, peers_up_) + startup_ - now);
  const double fabric = plan_.cu_fabric_bytes_per_byte();
  w.demands.reserve(7 + static_cast<size_t>(plan_.peers));
  w.demands.push_back({m.l2[x], fabric});
  w.demands.push_back({m.fabric[x], fabric});
  if (m.llc >= 0) w.demands.push_back({m.llc, plan_.llc_bytes_per_byte(true)});
  w.demands.push_back({m.hbm, plan_.hbm_bytes_per_byte()});
  res_.add_power_demand(w.demands);
  // Traffic spreads evenly over the peers' links (direct, or rings laid over every link).
  // Protocol overhead (flags, FIFO handshakes) costs link bytes beyond the payload. Every GPU runs
  // the same pair of kernels, so the peers' memory is as loaded as ours: remote writes wait on it
  // and each byte holds its link longer by 1 + f_link * u, whatever the number of workgroups.
  // Over several nodes the links carry their share of the bytes and the NIC the rest
  // (network_plan.h), both at the algorithm's share of their rate.
  const double share = plan_.network ? plan_.network->bandwidth_share : 1.0;
  if (plan_.peers > 0 && plan_.link_share() > 0) {
    const double per_peer = link_stretch * plan_.link_share() / plan_.peers / link_efficiency_ / share;
    for (int p = 0; p < plan_.peers; ++p) w.demands.push_back({res_.link_to_peer(p), per_peer});
  }
  if (plan_.network)
    add_network_demands(w.demands, res_, plan_.network->nic_share / share, plan_.network->spine_share);
  return w;
}

std::optional<engine::CohortWork> CuCollectiveModel::refresh(const engine::CohortContext& ctx) {
  if (ctx.phase != 0) return std::nullopt;  // the wait phase has nothing to re-rate
  if (stall_fraction_ <= 0 && link_stall_fraction_ <= 0 && !channel_queueing_) return std::nullopt;
  // cohort_work wrote this cohort's entry when it started (the dispatcher refreshes running
  // cohorts only).
  const auto slot = static_cast<size_t>(ctx.slot);
  const bool same_load = applied_load_.at(slot) == load_by_others(ctx.owner.kernel);
  const bool same_channels = !channel_queueing_ || applied_channels_.at(slot) == channels_running(ctx);
  if (same_load && same_channels) return std::nullopt;
  return work(ctx);
}

std::optional<engine::CohortWork> CuCollectiveModel::next_phase(const engine::CohortContext& ctx) {
  if (ctx.phase != 1) return std::nullopt;
  const TimePs now = res_.now();
  work_end_ = std::max(work_end_, now);
  // The wait is the phase's start latency; its one unit of work at an unbounded-in-practice rate
  // then takes the engine's smallest step (1 ps), so the cohort retires exactly at the peers' end.
  // Within 1 ps of it there is nothing to wait for. While channels are still to dispatch (waves on
  // a partition with fewer CUs than channels) a finished one gives its CU to the next: the kernel's
  // last wave is the one that waits.
  if (peers_done_ - now < 2 || dispatched_ < plan_.workgroups) return std::nullopt;
  waiting_ += ctx.count;
  engine::CohortWork w;
  w.work_per_wg = 1.0;
  w.bound_per_wg = 1e18;
  w.startup_latency = peers_done_ - now - 1;
  w.phase_label = "wait";
  w.phase_kind = engine::KernelKind::cu_collective;
  return w;
}

void CuCollectiveModel::cohort_retired(const engine::CohortContext& ctx) {
  running_ -= ctx.count;
  if (ctx.phase == 1) waiting_ -= ctx.count;  // a cohort retires in the last phase it started
}

}  // namespace c3sim::models
