#include "models/kernels/dma_copy.h"

#include "sim/engine/trace_recorder.h"

namespace c3sim::models {

DmaCopy::DmaCopy(engine::Simulation& sim, const NodeResources& res, const hw::NodeSpec& spec,
                 wl::DmaCopy copy, std::string label, engine::FlowOwner owner)
    : sim_(sim), res_(res), spec_(spec), copy_(copy), label_(std::move(label)), owner_(owner) {
  if (res_.dma_engines().empty()) throw ModelError("this node has no DMA engines");
}

void DmaCopy::start(std::function<void(TimePs)> done) {
  done_ = std::move(done);
  // Host submission, then the engine's descriptor fetch before its first byte (as each transfer of
  // a DMA collective pays it), then the copy and the host-seen completion.
  const double before_first_byte = spec_.model.dma.submit_latency + spec_.model.dma.engine_start_latency;
  sim_.after(s_to_ps(before_first_byte), [this] {
    const MemoryResources& m = res_.memory(KernelClass::comm);
    engine::FlowSpec f;
    f.work = static_cast<double>(copy_.bytes);
    f.label = label_;
    f.owner = owner_;
    f.bound = spec_.model.dma.engine_bw;
    f.demands.push_back({res_.dma_engines().front(), 1.0});
    if (copy_.to_peer) f.demands.push_back({res_.link_to_peer(0), 1.0});
    // Two memory passes per byte: read here and write here (local), or read here and the
    // symmetric peer's write into this GPU (to a peer). Memory-side LLC sees both.
    if (m.llc >= 0) f.demands.push_back({m.llc, 2.0});
    f.demands.push_back({m.hbm, 2.0});
    res_.add_power_demand(f.demands);
    // The engine is busy from its descriptor fetch on (the collectives' trace spans begin there too).
    const TimePs began = sim_.now() - s_to_ps(spec_.model.dma.engine_start_latency);
    sim_.start_flow(std::move(f), [this, began](TimePs now) {
      if (engine::TraceRecorder* tr = sim_.trace()) {
        tr->span("gpu0", engine::TraceTrack::dma_engine(0), label_, began, now,
                 {engine::KernelKind::dma_transfer});
      }
      sim_.at(now + s_to_ps(spec_.model.dma.completion_latency), [this] { done_(sim_.now()); });
    });
  });
}

}  // namespace c3sim::models
