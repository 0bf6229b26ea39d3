#include "models/bottleneck_tally.h"

#include <array>

namespace c3sim::models {

std::string resource_group(const std::string& name) {
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (starts("l2_")) return "l2";
  if (starts("fabric_")) return "xcd_fabric";
  if (starts("llc")) return "llc";
  if (starts("hbm")) return "hbm";
  if (starts("link") || starts("switch")) return "link";
  if (starts("dma")) return "dma_engine";
  return "other";
}

void BottleneckObserver::before_step(engine::Simulation& sim, TimePs next) {
  const double dt = ps_to_s(next - sim.now());
  if (dt <= 0) return;
  engine::FluidSolver& solver = sim.solver();
  solver.solve(sim.now());
  const size_t nres = solver.resource_count();
  while (groups_.size() < nres)
    groups_.push_back(resource_group(solver.resource_name(static_cast<engine::ResourceId>(groups_.size()))));

  solver.live_flow_ids(live_);
  const std::vector<engine::FlowId>& flows = live_;
  std::vector<std::array<double, 2>> load(nres, {0.0, 0.0});
  std::vector<int> cls(flows.size());
  std::array<int, 2> count{0, 0};
  for (size_t i = 0; i < flows.size(); ++i) {
    cls[i] = classify_.is_gemm(solver, flows[i]) ? 0 : 1;
    count[static_cast<size_t>(cls[i])]++;
    const double rate = solver.rate(flows[i]);
    for (const auto& d : solver.demands(flows[i]))
      load[static_cast<size_t>(d.resource)][static_cast<size_t>(cls[i])] += rate * d.per_unit;
  }
  for (size_t i = 0; i < flows.size(); ++i) {
    const int c = cls[i];
    const int other = 1 - c;
    auto& out = c == 0 ? tally_.gemm : tally_.comm;
    for (const auto& d : solver.demands(flows[i])) {
      const auto r = static_cast<size_t>(d.resource);
      const double total = load[r][0] + load[r][1];
      const double cap = solver.capacity(d.resource);
      if (cap <= 0 || total < cap * (1 - 1e-6) || load[r][static_cast<size_t>(other)] <= 0) continue;
      const double share_other = load[r][static_cast<size_t>(other)] / total;
      out[groups_[r]] += dt * share_other / count[static_cast<size_t>(c)];
    }
  }
}

}  // namespace c3sim::models
