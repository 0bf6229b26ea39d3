#include "models/node/bottleneck_tally.h"

#include <algorithm>

namespace c3sim::models {

std::string resource_group(engine::ResourceKind kind) {
  switch (kind) {
    case engine::ResourceKind::l2: return "l2";
    case engine::ResourceKind::xcd_fabric: return "xcd_fabric";
    case engine::ResourceKind::llc: return "llc";
    case engine::ResourceKind::hbm: return "hbm";
    case engine::ResourceKind::link: return "link";
    case engine::ResourceKind::dma_engine: return "dma_engine";
    default: return "other";
  }
}

const std::map<std::string, double>& BottleneckTally::of(std::int32_t kernel) const {
  static const std::map<std::string, double> kNone;
  if (kernel < 0 || static_cast<size_t>(kernel) >= by_kernel.size()) return kNone;
  return by_kernel[static_cast<size_t>(kernel)];
}

void BottleneckObserver::update_slot(const engine::FluidSolver& solver, std::int32_t slot) {
  const auto i = static_cast<size_t>(slot);
  if (slots_.size() <= i) slots_.resize(solver.slot_count());
  SlotFlow& s = slots_[i];
  s.kernel = -1;
  s.loads.clear();
  const engine::FlowId f = solver.flow_in_slot(slot);
  if (!f.valid() || solver.owner(f).kernel < 0) return;
  s.kernel = solver.owner(f).kernel;
  const double rate = solver.rate(f);
  for (const auto& d : solver.demands(f)) s.loads.emplace_back(d.resource, rate * d.per_unit);
}

void BottleneckObserver::derive_terms(const engine::FluidSolver& solver) {
  const size_t nres = solver.resource_count();
  while (group_of_.size() < nres) {
    const std::string g =
        resource_group(solver.resource_kind(static_cast<engine::ResourceId>(group_of_.size())));
    auto it = std::find(group_names_.begin(), group_names_.end(), g);
    if (it == group_names_.end()) it = group_names_.insert(group_names_.end(), g);
    group_of_.push_back(static_cast<size_t>(it - group_names_.begin()));
  }
  size_t kernels = 0;
  for (const SlotFlow& s : slots_) kernels = std::max(kernels, static_cast<size_t>(s.kernel + 1));
  // load[r * kernels + k]: kernel k's consumption of resource r, summed in slot order.
  std::vector<double> load(nres * kernels, 0.0);
  std::vector<int> count(kernels, 0);
  for (const SlotFlow& s : slots_) {
    if (s.kernel < 0) continue;
    count[static_cast<size_t>(s.kernel)]++;
    for (const auto& [r, l] : s.loads)
      load[static_cast<size_t>(r) * kernels + static_cast<size_t>(s.kernel)] += l;
  }
  terms_.clear();
  for (const SlotFlow& s : slots_) {
    if (s.kernel < 0) continue;
    const auto c = static_cast<size_t>(s.kernel);
    for (const auto& [res, l] : s.loads) {
      const auto r = static_cast<size_t>(res);
      // In kernel order, so two kernels give exactly load[own] + load[other] and load[other].
      double total = 0;
      double others = 0;
      for (size_t k = 0; k < kernels; ++k) {
        total += load[r * kernels + k];
        if (k != c) others += load[r * kernels + k];
      }
      const double cap = solver.capacity(res);
      if (cap <= 0 || total < cap * (1 - 1e-6) || others <= 0) continue;
      terms_.push_back(Term{s.kernel, group_of_[r], others / total, static_cast<double>(count[c])});
    }
  }
}

void BottleneckObserver::before_step(engine::Simulation& sim, TimePs next) {
  const double dt = ps_to_s(next - sim.now());
  if (dt <= 0) return;
  engine::FluidSolver& solver = sim.solver();
  solver.solve(sim.now());
  bool changed = false;
  if (!subscribed_) {
    feed_ = solver.subscribe();
    subscribed_ = true;
    for (size_t s = 0; s < solver.slot_count(); ++s) update_slot(solver, static_cast<std::int32_t>(s));
    changed = true;
  } else {
    solver.take_changes(feed_, changed_);
    for (const std::int32_t s : changed_) update_slot(solver, s);
    changed = !changed_.empty();
  }
  if (changed) derive_terms(solver);
  for (const Term& t : terms_) {
    const auto k = static_cast<size_t>(t.kernel);
    if (tally_.by_kernel.size() <= k) tally_.by_kernel.resize(k + 1);
    tally_.by_kernel[k][group_names_[t.group]] += dt * t.share_other / t.count;
  }
}

}  // namespace c3sim::models
