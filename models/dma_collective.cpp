#include "models/dma_collective.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "models/cu_collective.h"
#include "sim/base/errors.h"
#include "sim/engine/trace_recorder.h"

namespace c3sim::models {

std::vector<DmaPhase> dma_phases(const CollectivePlan& plan, const hw::NodeSpec& spec, bool reduce_on_cu) {
  const double g = plan.gpus;
  const double bytes = static_cast<double>(plan.coll.bytes);
  const bool engines_reduce = spec.dma.reduce_bw > 0;
  switch (plan.coll.op) {
    case wl::CollectiveOp::all_gather:
    case wl::CollectiveOp::all_to_all:
      if (reduce_on_cu) throw ModelError("reduce-scatter on CUs is only a phase of an all-reduce");
      return {DmaPhase{plan.bytes_sent, false, false, 0}};
    case wl::CollectiveOp::reduce_scatter:
      if (reduce_on_cu) throw ModelError("reduce-scatter on CUs is only a phase of an all-reduce");
      if (!engines_reduce) throw ModelError("copy engines cannot reduce: no DMA reduce-scatter");
      // Direct: my contribution to each peer's output shard (`bytes`), summed there by an engine.
      return {DmaPhase{bytes * (g - 1), true, false, 0}};
    case wl::CollectiveOp::all_reduce: {
      // Reduce-scatter of shards bytes/g, then all-gather of the reduced shards.
      const double shard_sent = bytes / g * (g - 1);
      if (reduce_on_cu) return {DmaPhase{0, true, true, bytes / g}, DmaPhase{shard_sent, false, false, 0}};
      if (!engines_reduce) throw ModelError("copy engines cannot reduce: no DMA all-reduce");
      return {DmaPhase{shard_sent, true, false, 0}, DmaPhase{shard_sent, false, false, 0}};
    }
  }
  return {};
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
                      {}};
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
  // What this GPU's engines read: one shard for every peer (all-gather) or a chunk per peer.
  const bool same_shard = plan_.coll.op == wl::CollectiveOp::all_gather || (phase_ > 0 && !ph.reduce);
  const double source = same_shard ? ph.bytes_sent / plan_.peers : ph.bytes_sent;
  const double l2_total = spec_.memory.l2_bytes_per_xcd * spec_.compute.xcds;
  const double dirty = std::min(source, l2_total);
  const MemoryResources& m = res_.memory(KernelClass::comm);
  engine::FlowSpec f;
  f.work = dirty;
  f.label = "l2 flush";
  if (m.llc >= 0) f.demands.push_back({m.llc, 1.0});
  f.demands.push_back({m.hbm, 1.0});
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
  const MemoryResources& m = res_.memory(KernelClass::comm);
  // Bytes per sent byte. Copy: read source, write destination. Reduce: read source, read the
  // accumulator, write it. A streaming (LLC-bypassing) write skips the LLC and does not allocate.
  const double writes = 1.0;
  const double reads = ph.reduce ? 2.0 : 1.0;
  const double llc_per_byte = dm.llc_bypass ? reads : reads + writes;
  const double hbm_per_byte = reads + writes;
  // A reduction unit slower than the copy path limits the engine: each byte takes
  // engine_bw / reduce_bw of its copy time.
  const double engine_per_byte = ph.reduce ? std::max(1.0, dm.engine_bw / spec_.dma.reduce_bw) : 1.0;
  const double footprint =
      dm.llc_bypass ? plan_.llc_footprint * reads / (reads + writes) : plan_.llc_footprint;
  state_.llc_pollution_bytes += footprint;
  polluting_ = footprint;

  const int total = chunks * plan_.peers;
  const int per_doorbell = options_.batched ? total : dm.transfers_per_doorbell;
  const TimePs start_cost = s_to_ps(dm.engine_start_latency);
  std::vector<int> queued(static_cast<size_t>(engines_used_), 0);
  std::vector<TimePs> last_submitted(static_cast<size_t>(engines_used_), 0);  // per initiator
  int index = 0;
  for (int c = 0; c < chunks; ++c) {
    for (int p = 0; p < plan_.peers; ++p, ++index) {
      const int engine = engine_for(index, p, c);
      const auto queue = static_cast<size_t>(engine - options_.first_engine);
      // Host: one thread makes submission after submission. GPU: one writer per engine queue.
      // Prelaunched: one trigger releases everything recorded.
      const int position = dm.gpu_initiated ? queued[queue]++ : index;
      const TimePs submitted = dm.prelaunched ? per : per * (position / per_doorbell + 1);
      const TimePs ready = submitted + start_cost;
      const size_t rec = records_.size();
      records_.push_back(DmaTransferRecord{engine, p, chunk_bytes, 0, 0});
      flows_.emplace_back();
      ++outstanding_;
      const size_t initiator = dm.gpu_initiated ? queue : 0;
      last_submitted[initiator] = std::max(last_submitted[initiator], submitted);
      sim_.after(ready, [this, rec, engine, p, chunk_bytes, engine_per_byte, llc_per_byte, hbm_per_byte,
                         reduce = ph.reduce, &m] {
        engine::FlowSpec f;
        f.work = chunk_bytes;
        f.owner = engine::FlowOwner{options_.kernel, engine::KernelKind::dma_transfer};
        f.demands.push_back({res_.dma_engines()[static_cast<size_t>(engine)], engine_per_byte});
        f.demands.push_back({res_.link_to_peer(p), 1.0});
        const int engine_iod = res_.engine_iod(engine);
        const int link_iod = res_.link_iod(p);
        if (engine_iod != link_iod) {
          f.demands.push_back({res_.iod_crossing(reduce ? link_iod : engine_iod), 1.0});
        }
        if (m.llc >= 0) f.demands.push_back({m.llc, llc_per_byte});
        f.demands.push_back({m.hbm, hbm_per_byte});
        f.bound = rate_cap();
        const double priority = spec_.model.dma.memory_priority;
        if (priority != 1) {
          // Served `priority` times its standalone share at a contended memory.
          const double alone =
              std::min({spec_.model.dma.engine_bw / engine_per_byte, spec_.model.collective.link_bw,
                        f.bound == engine::kUnbounded ? spec_.model.dma.engine_bw : f.bound});
          f.weight = priority * alone;
        }
        records_[rec].start = sim_.now();
        flows_[rec] = sim_.start_flow(std::move(f), [this, rec](TimePs now) {
          records_[rec].end = now;
          if (engine::TraceRecorder* tr = sim_.trace()) {
            // The engine's start cost nests inside the transfer's slice (one track, no overlap).
            const auto& r = records_[rec];
            const TimePs begin = r.start - s_to_ps(spec_.model.dma.engine_start_latency);
            const engine::TraceTrack track = engine::TraceTrack::dma_engine(r.engine);
            tr->span("gpu0", track, fmt::format("to gpu{}", r.peer + 1), begin, r.end,
                     {engine::KernelKind::dma_transfer});
            if (begin < r.start) {
              tr->span("gpu0", track, "engine start", begin, r.start, {engine::KernelKind::dma_transfer});
            }
          }
          transfer_done(now);
        });
      });
    }
  }
  engine::TraceRecorder* tr = sim_.trace();
  if (tr == nullptr || per <= 0) return;
  // One slice per initiator for its whole run of submissions (the host's serial ones, or each GPU
  // queue writer's).
  const char* what = dm.prelaunched ? "trigger" : "submissions";
  if (!dm.gpu_initiated) {
    tr->span("gpu0", engine::TraceTrack{engine::TrackKind::host, 0, "host submissions"}, what, sim_.now(),
             sim_.now() + last_submitted[0], {engine::KernelKind::dma_transfer});
    return;
  }
  for (size_t e = 0; e < last_submitted.size(); ++e) {
    if (last_submitted[e] > 0) {
      const int engine = options_.first_engine + static_cast<int>(e);
      tr->span("gpu0",
               engine::TraceTrack{engine::TrackKind::dma_engine, engine,
                                  fmt::format("sdma{} queue (gpu writer)", engine)},
               what, sim_.now(), sim_.now() + last_submitted[e], {engine::KernelKind::dma_transfer});
    }
  }
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
