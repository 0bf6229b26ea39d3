#include "models/kernels/dma_collective.h"

#include <algorithm>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "models/kernels/cu_collective.h"
#include "sim/base/errors.h"
#include "sim/engine/trace_recorder.h"

namespace c3sim::models {

std::vector<DmaPhase> dma_phases(const CollectivePlan& plan, const hw::NodeSpec& spec, bool reduce_on_cu) {
  const wl::CollectiveOpTraits& t = wl::op_traits(plan.coll.op);
  // A CU kernel can take only the reducing first pass of an op that gathers after it (hybrid_ar).
  if (reduce_on_cu && !(t.reduces && t.link_passes > 1))
    throw ModelError("reduce-scatter on CUs is only a phase of an all-reduce");
  if (!t.reduces) return {DmaPhase{plan.bytes_sent, false, false, 0}};
  // Direct: each pass sends my contribution to every peer's block; in the first an engine sums it
  // there, the next ones (all-reduce) gather the reduced blocks.
  const double pass_sent = plan.bytes_sent / t.link_passes;
  std::vector<DmaPhase> phases;
  if (reduce_on_cu) {
    phases.push_back(
        DmaPhase{0, true, true, wl::block_bytes(plan.coll.op, double(plan.coll.bytes), plan.gpus)});
  } else {
    if (!(spec.dma.reduce_bw > 0))
      throw ModelError(fmt::format("copy engines cannot reduce: no DMA {}", t.hyphenated));
    phases.push_back(DmaPhase{pass_sent, true, false, 0});
  }
  for (int pass = 1; pass < t.link_passes; ++pass) phases.push_back(DmaPhase{pass_sent, false, false, 0});
  return phases;
}

DmaCollective::DmaCollective(engine::Simulation& sim, const NodeResources& res, const hw::NodeSpec& spec,
                             CollectivePlan plan, InterferenceState& state, DmaOptions options)
    : sim_(sim), res_(res), spec_(spec), plan_(std::move(plan)), state_(state), options_(options) {
  phases_ = dma_phases(plan_, spec_, options_.reduce_on_cu);
  const int present = static_cast<int>(res_.dma_engines().size());
  if (present <= 0) throw ModelError("this node has no DMA engines");
  if (options_.first_engine < 0 || options_.first_engine >= present || options_.engine_count < 0 ||
      options_.first_engine + options_.engine_count > present) {
    throw ModelError("DMA engine set outside the engines present");
  }
  const int in_set = options_.engine_count > 0 ? options_.engine_count : present - options_.first_engine;
  engines_used_ =
      options_.engines_used > 0 ? std::min(options_.engines_used, in_set) : std::min(plan_.peers, in_set);
}

namespace {

// A sync kernel's one workgroup: it holds a CU for `latency` and moves nothing.
class SyncWorkgroupModel final : public engine::WorkgroupModel {
public:
  explicit SyncWorkgroupModel(TimePs latency) : latency_(latency) {}
  [[nodiscard]] engine::CohortWork cohort_work(const engine::CohortContext& ctx) override {
    (void)ctx;
    engine::CohortWork w;
    w.work_per_wg = 1.0;
    w.bound_per_wg = 1e12;  // 1 ps of "work": the time is the startup latency
    w.startup_latency = latency_;
    return w;
  }

private:
  TimePs latency_;
};

}  // namespace

bool DmaCollective::sync_on_cu() const {
  return spec_.model.dma.completion_needs_cu && options_.gpu != nullptr;
}

TimePs DmaCollective::completion_seen() const {
  const auto& dm = spec_.model.dma;
  return s_to_ps(dm.gpu_polled_completion ? dm.gpu_completion_latency : dm.completion_latency);
}

void DmaCollective::launch_sync(const char* name, std::function<void(TimePs)> then) {
  // The barrier/completion kernel goes through the collective library's launch path.
  engine::KernelDesc d{name, 1, 1, s_to_ps(spec_.model.collective.launch_latency),
                       engine::FlowOwner{options_.kernel, engine::KernelKind::collective_sync}};
  auto model = std::make_shared<SyncWorkgroupModel>(s_to_ps(spec_.model.dma.completion_latency));
  options_.gpu->launch(options_.sync_stream, d, model, std::move(then));
}

void DmaCollective::start(std::function<void(TimePs)> done) {
  done_ = std::move(done);
  if (options_.batched && sync_on_cu()) {
    // One host submission, then the start barrier kernel; copies follow it.
    sim_.after(s_to_ps(spec_.model.dma.submit_latency),
               [this] { launch_sync("dma:barrier", [this](TimePs) { submit_transfers(0); }); });
    return;
  }
  start_phase(0);
}

// `handoff`: time before the initiator may start this phase (it must see the previous one end).
void DmaCollective::start_phase(TimePs handoff) {
  const DmaPhase& ph = phases_[phase_];
  if (ph.on_cu) {
    if (options_.gpu == nullptr) throw ModelError("a CU reduce-scatter phase needs a GPU dispatcher");
    wl::Collective rs{wl::CollectiveOp::reduce_scatter,
                      static_cast<std::int64_t>(ph.cu_output_bytes),
                      wl::CollectiveImpl::cu,
                      {},
                      plan_.coll.in_place};
    const CollectivePlan rs_plan = plan_collective(rs, spec_, plan_.gpus, plan_.workgroups);
    auto model = std::make_shared<CuCollectiveModel>(rs_plan, spec_, res_, state_);
    sim_.after(handoff, [this, rs_plan, model] {
      engine::KernelDesc d{"comm:rs", rs_plan.workgroups, 1, model->launch_latency(),
                           engine::FlowOwner{options_.kernel, engine::KernelKind::cu_collective}};
      const engine::KernelId k =
          options_.gpu->launch(options_.sync_stream, d, model, [this](TimePs now) { phase_done(now); });
      if (options_.cu_kernel != nullptr) *options_.cu_kernel = k;
    });
    return;
  }
  if (handoff == 0) {
    flush_then_submit();
    return;
  }
  sim_.after(handoff, [this] { flush_then_submit(); });
}

// A producer that left its output dirty in the L2s (write-back) must have it written back before
// an engine, which reads memory beyond the L2s, may copy it: the dirty bytes cross the LLC and HBM
// at the flush rate. Data an engine wrote (a previous DMA phase) never sat in an L2.
void DmaCollective::flush_then_submit() {
  const auto& dm = spec_.model.dma;
  const TimePs per = s_to_ps(dm.gpu_initiated ? dm.gpu_submit_latency : dm.submit_latency);
  const bool produced_on_cu = phase_ == 0 || phases_[phase_ - 1].on_cu;
  if (dm.l2_flush_bw <= 0 || !produced_on_cu) {
    submit_transfers(per);
    return;
  }
  const DmaPhase& ph = phases_[phase_];
  // What this GPU's engines read: one block for every peer (an input of one block, or a gathering
  // pass after a reduction) or a block per peer.
  const bool same_shard = wl::op_traits(plan_.coll.op).input == wl::Blocks::one || (phase_ > 0 && !ph.reduce);
  const double source = same_shard ? ph.bytes_sent / plan_.peers : ph.bytes_sent;
  const double l2_total = spec_.memory.l2_bytes_per_xcd * spec_.compute.xcds;
  const double dirty = std::min(source, l2_total);
  const MemoryResources& m = res_.memory(KernelClass::comm);
  engine::FlowSpec f;
  f.work = dirty;
  f.label = "l2 flush";
  if (m.llc >= 0) f.demands.push_back({m.llc, 1.0});
  f.demands.push_back({m.hbm, 1.0});
  res_.add_power_demand(f.demands);
  f.bound = dm.l2_flush_bw;
  const TimePs begin = sim_.now();
  sim_.start_flow(std::move(f), [this, per, begin](TimePs end) {
    if (engine::TraceRecorder* tr = sim_.trace()) {
      tr->span("gpu0", engine::TraceTrack::host(), "l2 flush", begin, end,
               {engine::KernelKind::dma_transfer});
    }
    submit_transfers(per);
  });
}

int DmaCollective::engine_for(int index, int peer, int chunk) const {
  switch (spec_.model.dma.engine_map) {
    case hw::EngineMap::per_peer: return options_.first_engine + (peer + chunk * plan_.peers) % engines_used_;
    case hw::EngineMap::round_robin: return options_.first_engine + index % engines_used_;
    case hw::EngineMap::all_on_one: return options_.first_engine;
  }
  return options_.first_engine;
}

// `per`: the initiator's cost of one submission (0 when it was paid before this call).
void DmaCollective::submit_transfers(TimePs per) {
  const DmaPhase& ph = phases_[phase_];
  const auto& dm = spec_.model.dma;
  // Each peer's share is split into enough chunks to give every engine in use a transfer.
  const int chunks = std::max(1, engines_used_ / plan_.peers);
  const double chunk_bytes = ph.bytes_sent / plan_.peers / chunks;
  // Bytes per sent byte. Copy: read source, write destination. Reduce: read source, read the
  // accumulator, write it. A streaming (LLC-bypassing) write skips the LLC and does not allocate.
  const double writes = 1.0;
  const double reads = ph.reduce ? 2.0 : 1.0;
  reduce_ = ph.reduce;
  llc_per_byte_ = dm.llc_bypass ? reads : reads + writes;
  hbm_per_byte_ = reads + writes;
  // A reduction unit slower than the copy path limits the engine: each byte takes
  // engine_bw / reduce_bw of its copy time.
  engine_per_byte_ = ph.reduce ? std::max(1.0, dm.engine_bw / spec_.dma.reduce_bw) : 1.0;
  const double footprint =
      dm.llc_bypass ? plan_.llc_footprint * reads / (reads + writes) : plan_.llc_footprint;
  state_.llc_pollution_bytes += footprint;
  polluting_ = footprint;

  // The first phase moves the GPU's own block too (out of place); later phases work in the output.
  const double local = phase_ == 0 ? wl::local_block_bytes(plan_.coll, plan_.gpus) : 0;
  const int total = chunks * plan_.peers;
  const int copies = total + (local > 0 ? 1 : 0);
  // NCCL's CE collectives put the local copy first in their batch; c3bench pushes it last.
  local_first_ = local > 0 && options_.batched && dm.engine_map != hw::EngineMap::per_peer;
  const int per_doorbell = options_.batched ? copies : dm.transfers_per_doorbell;
  const TimePs start_cost = s_to_ps(dm.engine_start_latency);
  const int in_set = options_.engine_count > 0
                         ? options_.engine_count
                         : static_cast<int>(res_.dma_engines().size()) - options_.first_engine;
  std::vector<int> queued(static_cast<size_t>(in_set), 0);
  std::vector<TimePs> last_submitted(static_cast<size_t>(in_set), 0);  // per initiator
  // When a copy at submission `position` on `engine` may start (relative to now).
  const auto ready_after = [&](int position_in_order, int engine) {
    const auto queue = static_cast<size_t>(engine - options_.first_engine);
    // Host: one thread makes submission after submission. GPU: one writer per engine queue.
    // Prelaunched: one trigger releases everything recorded.
    const int position = dm.gpu_initiated ? queued[queue]++ : position_in_order;
    const TimePs submitted = dm.prelaunched ? per : per * (position / per_doorbell + 1);
    const size_t initiator = dm.gpu_initiated ? queue : 0;
    last_submitted[initiator] = std::max(last_submitted[initiator], submitted);
    return submitted + start_cost;
  };
  const TimePs now = sim_.now();
  const size_t phase_begin = records_.size();
  TimePs local_ready = 0;
  if (local_first_) local_ready = ready_after(0, options_.first_engine);
  int index = 0;
  for (int c = 0; c < chunks; ++c) {
    for (int p = 0; p < plan_.peers; ++p, ++index) {
      const int engine = engine_for(index, p, c);
      const TimePs ready = ready_after(index + (local_first_ ? 1 : 0), engine);
      const size_t rec = records_.size();
      records_.push_back(DmaTransferRecord{engine, p, chunk_bytes, 0, 0});
      flows_.emplace_back();
      ++outstanding_;
      if (local_first_) {
        held_.emplace_back(rec, now + ready);
      } else {
        start_at(rec, now + ready);
      }
    }
  }
  if (local > 0) {
    int local_engine = options_.first_engine;
    if (dm.engine_map == hw::EngineMap::per_peer && engines_used_ < in_set) {
      local_engine = options_.first_engine + engines_used_;
    } else if (dm.engine_map == hw::EngineMap::round_robin && !local_first_) {
      local_engine = options_.first_engine + total % engines_used_;  // the round robin goes on
    }
    if (!local_first_) local_ready = ready_after(total, local_engine);
    local_rec_ = records_.size();
    records_.push_back(DmaTransferRecord{local_engine, kLocalBlock, local, 0, 0});
    flows_.emplace_back();
    ++outstanding_;
    local_ready_ = now + local_ready;
    place_local_block(phase_begin, local_ready_);
  }
  engine::TraceRecorder* tr = sim_.trace();
  if (tr == nullptr || per <= 0) return;
  // One slice per initiator for its whole run of submissions (the host's serial ones, or each GPU
  // queue writer's).
  const char* what = dm.prelaunched ? "trigger" : "submissions";
  if (!dm.gpu_initiated) {
    tr->span("gpu0", engine::TraceTrack{engine::TrackKind::host, 0, "host submissions"}, what, now,
             now + last_submitted[0], {engine::KernelKind::dma_transfer});
    return;
  }
  for (size_t e = 0; e < last_submitted.size(); ++e) {
    if (last_submitted[e] > 0) {
      const int engine = options_.first_engine + static_cast<int>(e);
      tr->span("gpu0",
               engine::TraceTrack{engine::TrackKind::dma_engine, engine,
                                  fmt::format("sdma{} queue (gpu writer)", engine)},
               what, now, now + last_submitted[e], {engine::KernelKind::dma_transfer});
    }
  }
}

void DmaCollective::place_local_block(size_t phase_begin, TimePs ready_at) {
  const DmaTransferRecord& r = records_[local_rec_];
  if (local_first_) {
    start_at(local_rec_, ready_at);  // the peers are held until it ends
    return;
  }
  const bool own_engine = spec_.model.dma.engine_map == hw::EngineMap::per_peer &&
                          r.engine == options_.first_engine + engines_used_;
  if (own_engine) {
    start_at(local_rec_, ready_at);
    return;
  }
  // One queue in order: after every peer copy (round_robin, all_on_one), or after the transfers
  // queued on its engine (per-peer engines with none left free).
  local_waits_engine_ = spec_.model.dma.engine_map == hw::EngineMap::per_peer ? r.engine : -1;
  local_waits_ = 0;
  // Nothing of this phase has started yet: every peer transfer recorded since `phase_begin` is ahead.
  for (size_t i = phase_begin; i < local_rec_; ++i) {
    if (local_waits_engine_ < 0 || records_[i].engine == local_waits_engine_) ++local_waits_;
  }
  if (local_waits_ == 0) start_at(local_rec_, ready_at);
}

void DmaCollective::start_at(size_t rec, TimePs ready_at) {
  const TimePs delay = std::max<TimePs>(0, ready_at - sim_.now());
  sim_.after(delay, [this, rec] { start_transfer(rec); });
}

void DmaCollective::start_transfer(size_t rec) {
  const DmaTransferRecord& r = records_[rec];
  const MemoryResources& m = res_.memory(KernelClass::comm);
  const auto& dm = spec_.model.dma;
  const bool local = r.peer == kLocalBlock;
  engine::FlowSpec f;
  f.work = r.bytes;
  f.owner = engine::FlowOwner{options_.kernel, engine::KernelKind::dma_transfer};
  // The local block is a copy whatever the phase: its engine reads and writes this GPU's HBM.
  f.demands.push_back({res_.dma_engines()[static_cast<size_t>(r.engine)], local ? 1.0 : engine_per_byte_});
  if (!local) {
    f.demands.push_back({res_.link_to_peer(r.peer), 1.0});
    const int engine_iod = res_.engine_iod(r.engine);
    const int link_iod = res_.link_iod(r.peer);
    if (engine_iod != link_iod) {
      f.demands.push_back({res_.iod_crossing(reduce_ ? link_iod : engine_iod), 1.0});
    }
  }
  if (m.llc >= 0) f.demands.push_back({m.llc, local ? (dm.llc_bypass ? 1.0 : 2.0) : llc_per_byte_});
  f.demands.push_back({m.hbm, local ? 2.0 : hbm_per_byte_});
  res_.add_power_demand(f.demands);
  f.bound = rate_cap();
  const double priority = dm.memory_priority;
  if (priority != 1) {
    // Served `priority` times its standalone share at a contended memory.
    const double engine_rate = dm.engine_bw / (local ? 1.0 : engine_per_byte_);
    const double alone = std::min({engine_rate, local ? engine_rate : spec_.model.collective.link_bw,
                                   f.bound == engine::kUnbounded ? dm.engine_bw : f.bound});
    f.weight = priority * alone;
  }
  records_[rec].start = sim_.now();
  flows_[rec] = sim_.start_flow(std::move(f), [this, rec](TimePs now) { transfer_ended(rec, now); });
}

void DmaCollective::transfer_ended(size_t rec, TimePs now) {
  records_[rec].end = now;
  const DmaTransferRecord& r = records_[rec];
  if (engine::TraceRecorder* tr = sim_.trace()) {
    // The engine's start cost nests inside the transfer's slice (one track, no overlap).
    const TimePs begin = r.start - s_to_ps(spec_.model.dma.engine_start_latency);
    const engine::TraceTrack track = engine::TraceTrack::dma_engine(r.engine);
    const std::string name = r.peer == kLocalBlock ? "local block" : fmt::format("to gpu{}", r.peer + 1);
    tr->span("gpu0", track, name, begin, r.end, {engine::KernelKind::dma_transfer});
    if (begin < r.start) {
      tr->span("gpu0", track, "engine start", begin, r.start, {engine::KernelKind::dma_transfer});
    }
  }
  if (rec == local_rec_) {
    for (const auto& [held, ready_at] : held_) start_at(held, ready_at);
    held_.clear();
  } else if (local_waits_ > 0 && (local_waits_engine_ < 0 || r.engine == local_waits_engine_) &&
             --local_waits_ == 0) {
    start_at(local_rec_, local_ready_);
  }
  transfer_done(now);
}

double DmaCollective::rate_cap() const {
  const auto& dm = spec_.model.dma;
  const double e = dm.memory_stall_fraction;
  if (e <= 0 || state_.isolate_queueing) return engine::kUnbounded;
  // Channels of its own: the GEMM's traffic is in other queues.
  if (spec_.model.memory.collective_channel_share > 0) return engine::kUnbounded;
  // A prioritized requester waits behind 1/priority of the others' queue.
  const double u = std::clamp(state_.memory_load_of_others(options_.kernel), 0.0, 1.0) / dm.memory_priority;
  return dm.engine_bw / (1.0 + e * u);
}

void DmaCollective::refresh_queueing() {
  if (spec_.model.dma.memory_stall_fraction <= 0) return;
  const double cap = rate_cap();
  for (const engine::FlowId f : flows_) {
    if (!f.valid() || !sim_.solver().alive(f)) continue;
    std::vector<engine::Demand> d = sim_.solver().demands(f);
    sim_.update_flow(f, std::move(d), cap);
  }
}

void DmaCollective::transfer_done(TimePs now) {
  if (--outstanding_ > 0) return;
  phase_done(now);
}

void DmaCollective::phase_done(TimePs now) {
  state_.llc_pollution_bytes -= polluting_;
  polluting_ = 0;
  if (phase_ + 1 < phases_.size()) {
    // The next phase's initiator waits to see this one end: a GPU writer is woken by the kernel or
    // signal directly when it initiates; the host waits for the completion signal.
    const bool gpu_sees = spec_.model.dma.gpu_initiated && phases_[phase_].on_cu;
    const TimePs handoff = gpu_sees ? 0 : completion_seen();
    ++phase_;
    start_phase(handoff);
    return;
  }
  if (sync_on_cu()) {
    launch_sync("dma:completion", [this](TimePs end) {
      if (done_) done_(end);
    });
    return;
  }
  sim_.at(now + completion_seen(), [this] {
    if (done_) done_(sim_.now());
  });
}

}  // namespace c3sim::models
