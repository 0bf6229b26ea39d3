#include "models/program/counterfactuals.h"

#include <algorithm>
#include <cmath>

#include "sim/base/errors.h"

namespace c3sim::models {

namespace {

double duration_us(const KernelRun& k) { return ps_to_us(k.end_ps - k.ready_ps); }

}  // namespace

std::vector<Attribution> attribute_slowdowns(ProgramSimulator& sim, const wl::Program& program,
                                             const ProgramRun& full, const std::vector<double>& iso_us) {
  const size_t n = program.kernels.size();
  if (full.kernels.size() != n || iso_us.size() != n)
    throw ModelError("attribute_slowdowns: the run and the isolated times must cover every kernel");
  ProgramKnobs cf;
  cf.private_memory = true;
  cf.isolate_caches = true;
  cf.isolate_queueing = true;
  const ProgramRun compute_only = sim.simulate(program, cf);
  cf.isolate_caches = false;
  const ProgramRun with_cache = sim.simulate(program, cf);
  cf.isolate_queueing = false;
  const ProgramRun with_latency = sim.simulate(program, cf);

  std::vector<Attribution> out(n);
  for (size_t i = 0; i < n; ++i) {
    const KernelRun& k = full.kernels[i];
    const double t_full = duration_us(k);
    const double t_compute = duration_us(compute_only.kernels[i]);
    const double t_cache = duration_us(with_cache.kernels[i]);
    const double t_latency = duration_us(with_latency.kernels[i]);
    Attribution& a = out[i];
    a.slowdown_us = t_full - iso_us[i];
    a.dispatch_delay_us = (k.first_dispatch_ps >= 0 && k.arrived_ps >= 0)
                              ? std::max(0.0, ps_to_us(k.first_dispatch_ps - k.arrived_ps))
                              : 0.0;
    a.cus_unavailable_us = std::max(0.0, t_compute - iso_us[i] - a.dispatch_delay_us);
    a.cache_us = t_cache - t_compute;
    a.memory_latency_us = t_latency - t_cache;
    const double bw = t_full - t_latency;
    const std::map<std::string, double>& weights = full.tally.of(static_cast<std::int32_t>(i));
    double total_w = 0;
    for (const auto& [group, w] : weights) total_w += w;
    if (total_w > 0) {
      for (const auto& [group, w] : weights) a.bandwidth_us[group] = bw * w / total_w;
    } else if (std::fabs(bw) > 0) {
      a.bandwidth_us["unattributed"] = bw;
    }
  }
  return out;
}

}  // namespace c3sim::models
