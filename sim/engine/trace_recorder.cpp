#include "sim/engine/trace_recorder.h"

#include <cmath>

#include "sim/engine/simulation.h"

namespace c3sim::engine {

void TraceRecorder::span(std::string process, TraceTrack track, std::string name, TimePs begin, TimePs end,
                         SpanCategory category) {
  spans_.push_back(TraceSpan{std::move(process), std::move(track), std::move(name), begin, end, category});
}

void TraceRecorder::sample_counters(Simulation& sim) {
  FluidSolver& solver = sim.solver();
  solver.solve(sim.now());
  const size_t n = solver.resource_count();
  while (resources_.size() < n) {
    const auto r = static_cast<ResourceId>(resources_.size());
    resources_.push_back(
        TracedResource{solver.resource_name(r), solver.resource_kind(r), solver.resource_where(r)});
    last_.push_back(-1.0);
  }
  for (size_t r = 0; r < n; ++r) {
    const double cap = solver.capacity(static_cast<ResourceId>(r));
    const double u = cap > 0 ? solver.load(static_cast<ResourceId>(r)) / cap : 0.0;
    if (std::fabs(u - last_[r]) > 1e-6) {
      counters_.push_back(CounterSample{sim.now(), static_cast<std::int32_t>(r), u});
      last_[r] = u;
    }
  }
}

}  // namespace c3sim::engine
