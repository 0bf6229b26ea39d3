#include "models/dma_collective.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/base/errors.h"
#include "sim/engine/trace_recorder.h"

namespace c3sim::models {

DmaCollective::DmaCollective(engine::Simulation& sim, const NodeResources& res, const hw::NodeSpec& spec,
                             CollectivePlan plan, InterferenceState& state, DmaOptions options)
    : sim_(sim), res_(res), spec_(spec), plan_(std::move(plan)), state_(state), options_(options) {
  if (plan_.reduction) {
    throw ModelError("copy engines cannot reduce: reduce-scatter/all-reduce have no DMA implementation");
  }
  const int present = static_cast<int>(res_.dma_engines().size());
  if (present <= 0) throw ModelError("this node has no DMA engines");
  engines_used_ =
      options_.engines_used > 0 ? std::min(options_.engines_used, present) : std::min(plan_.peers, present);
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
  submit_transfers(s_to_ps(spec_.model.dma.submit_latency));
}

// `submit`: host cost before a transfer reaches its engine (per transfer unless batched).
void DmaCollective::submit_transfers(TimePs submit) {
  // Each peer's share is split into enough chunks to give every engine in use a transfer.
  const int chunks = std::max(1, engines_used_ / plan_.peers);
  const double chunk_bytes = plan_.bytes_sent / plan_.peers / chunks;
  const auto& dm = spec_.model.dma;
  const MemoryResources& m = res_.memory(KernelClass::comm);
  state_.llc_pollution_bytes += plan_.llc_footprint;

  int index = 0;
  for (int c = 0; c < chunks; ++c) {
    for (int p = 0; p < plan_.peers; ++p, ++index) {
      int engine = 0;
      if (dm.engine_map == hw::EngineMap::per_peer) {
        engine = (p + c * plan_.peers) % engines_used_;
      } else {
        engine = index % engines_used_;
      }
      // Serialized host submissions: transfer i is on its engine after (i+1) submissions,
      // or after one submission for a batched vendor path.
      const TimePs ready = options_.batched ? submit : submit * (index + 1);
      const size_t rec = records_.size();
      records_.push_back(DmaTransferRecord{engine, p, chunk_bytes, 0, 0});
      flows_.emplace_back();
      ++outstanding_;
      sim_.after(ready, [this, rec, engine, p, chunk_bytes, &m] {
        engine::FlowSpec f;
        f.work = chunk_bytes;
        f.owner = engine::FlowOwner{options_.kernel, engine::KernelKind::dma_transfer};
        f.demands.push_back({res_.dma_engines()[static_cast<size_t>(engine)], 1.0});
        f.demands.push_back({res_.link_to_peer(p), 1.0});
        if (m.llc >= 0) f.demands.push_back({m.llc, plan_.llc_bytes_per_byte(false)});
        f.demands.push_back({m.hbm, plan_.hbm_bytes_per_byte()});
        f.bound = rate_cap();
        records_[rec].start = sim_.now();
        flows_[rec] = sim_.start_flow(std::move(f), [this, rec](TimePs now) {
          records_[rec].end = now;
          if (engine::TraceRecorder* tr = sim_.trace()) {
            const auto& r = records_[rec];
            tr->span("gpu0", engine::TraceTrack::dma_engine(r.engine), fmt::format("to gpu{}", r.peer + 1),
                     r.start, r.end, {engine::KernelKind::dma_transfer});
          }
          transfer_done(now);
        });
      });
    }
  }
}

double DmaCollective::rate_cap() const {
  const double e = spec_.model.dma.memory_stall_fraction;
  if (e <= 0 || state_.isolate_queueing) return engine::kUnbounded;
  const double u = std::clamp(state_.memory_load_of_others(options_.kernel), 0.0, 1.0);
  return spec_.model.dma.engine_bw / (1.0 + e * u);
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
  state_.llc_pollution_bytes -= plan_.llc_footprint;
  if (sync_on_cu()) {
    launch_sync("dma:completion", [this](TimePs end) {
      if (done_) done_(end);
    });
    return;
  }
  const TimePs sync = s_to_ps(spec_.model.dma.completion_latency);
  sim_.at(now + sync, [this] {
    if (done_) done_(sim_.now());
  });
}

}  // namespace c3sim::models
