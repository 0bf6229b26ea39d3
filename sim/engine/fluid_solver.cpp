#include "sim/engine/fluid_solver.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/base/errors.h"

namespace c3sim::engine {

namespace {
// A resource counts as saturated when less than this fraction of its capacity is left; a flow as
// at its bound when within this fraction of it. Relative, so it works for bytes/s and FLOP/s alike.
constexpr double kSaturationTolerance = 1e-9;
}  // namespace

double FluidSolver::effective_weight(const FlowSpec& spec) const {
  if (spec.weight > 0) return spec.weight;
  double alone = spec.bound;
  for (const Demand& d : spec.demands) {
    alone = std::min(alone, resources_[static_cast<size_t>(d.resource)].capacity / d.per_unit);
  }
  // A flow through a zero-capacity resource can't move anyway; any positive weight will do.
  return (alone > 0 && std::isfinite(alone)) ? alone : 1.0;
}

ResourceId FluidSolver::add_resource(std::string name, double capacity, ResourceKind kind,
                                     std::string where) {
  if (!(capacity >= 0) || !std::isfinite(capacity)) {
    throw ModelError(fmt::format("resource '{}' has invalid capacity {}", name, capacity));
  }
  resources_.push_back(Resource{std::move(name), capacity, kind, std::move(where), {}, false, 0, -1});
  return static_cast<ResourceId>(resources_.size() - 1);
}

void FluidSolver::set_capacity(ResourceId r, double capacity, TimePs now) {
  (void)now;
  Resource& res = resources_.at(static_cast<size_t>(r));
  if (!(capacity >= 0) || !std::isfinite(capacity)) {
    throw ModelError(fmt::format("resource '{}' set to invalid capacity {}", res.name, capacity));
  }
  res.capacity = capacity;
  // Observers reading saturation see its flows as changed even if no rate moves.
  for (const std::int32_t fi : res.flows) note_change(fi);
  if (!res.dirty) {
    res.dirty = true;
    dirty_.push_back(r);
  }
}

void FluidSolver::throw_dead_flow() { throw ModelError("FluidSolver: use of a finished or invalid flow"); }

void FluidSolver::mark_dirty(const Flow& fl) {
  for (const Demand& d : fl.spec.demands) {
    Resource& r = resources_[static_cast<size_t>(d.resource)];
    if (!r.dirty) {
      r.dirty = true;
      dirty_.push_back(d.resource);
    }
  }
}

void FluidSolver::attach(std::int32_t index) {
  for (const Demand& d : flows_[static_cast<size_t>(index)].spec.demands) {
    auto& v = resources_[static_cast<size_t>(d.resource)].flows;
    if (v.empty()) note_used(d.resource);
    v.push_back(index);
  }
}

void FluidSolver::detach(std::int32_t index) {
  for (const Demand& d : flows_[static_cast<size_t>(index)].spec.demands) {
    auto& v = resources_[static_cast<size_t>(d.resource)].flows;
    v.erase(std::remove(v.begin(), v.end(), index), v.end());
    if (v.empty()) note_unused(d.resource);
  }
}

void FluidSolver::note_used(ResourceId r) {
  resources_[static_cast<size_t>(r)].used_pos = static_cast<std::int32_t>(used_resources_.size());
  used_resources_.push_back(r);
}

void FluidSolver::note_unused(ResourceId r) {
  // Swap-remove: do_solve's result does not depend on the order of a component's resources.
  Resource& res = resources_[static_cast<size_t>(r)];
  const ResourceId last = used_resources_.back();
  used_resources_[static_cast<size_t>(res.used_pos)] = last;
  resources_[static_cast<size_t>(last)].used_pos = res.used_pos;
  used_resources_.pop_back();
  res.used_pos = -1;
}

void FluidSolver::note_sharing(std::int32_t index, bool sharing) {
  const auto at = std::lower_bound(sharing_list_.begin(), sharing_list_.end(), index);
  const bool listed = at != sharing_list_.end() && *at == index;
  if (sharing && !listed) sharing_list_.insert(at, index);
  if (!sharing && listed) sharing_list_.erase(at);
}

std::string FluidSolver::describe(const FlowSpec& spec) {
  if (!spec.label.empty()) return spec.label;
  return fmt::format("{} kernel {}", to_string(spec.owner.kind), spec.owner.kernel);
}

// Validates a demand vector and merges repeated resources in place, so each resource appears once
// per flow (sorted by resource id, zero demands dropped). In place: this runs for every cohort
// started and every refresh, and a fresh vector each time would be a measurable share of a run.
std::vector<Demand> FluidSolver::merged_demands(std::vector<Demand> demands, const FlowSpec& spec) const {
  // Models list their demands in resource order already (L2, fabric, LLC, HBM, links), each
  // resource once with a positive finite demand: such a vector is its own merge, returned as is.
  const auto clean = [this, &demands](size_t i) {
    const Demand& d = demands[i];
    return d.resource >= 0 && static_cast<size_t>(d.resource) < resources_.size() && d.per_unit > 0 &&
           std::isfinite(d.per_unit) && (i == 0 || demands[i - 1].resource < d.resource);
  };
  size_t checked = 0;
  while (checked < demands.size() && clean(checked)) ++checked;
  if (checked == demands.size()) return demands;
  const auto by_resource = [](const Demand& a, const Demand& b) { return a.resource < b.resource; };
  if (!std::is_sorted(demands.begin(), demands.end(), by_resource))
    std::sort(demands.begin(), demands.end(), by_resource);
  size_t out = 0;
  for (const Demand& d : demands) {
    if (d.resource < 0 || static_cast<size_t>(d.resource) >= resources_.size()) {
      throw ModelError(fmt::format("flow '{}' uses unknown resource {}", describe(spec), d.resource));
    }
    if (!(d.per_unit >= 0) || !std::isfinite(d.per_unit)) {
      throw ModelError(fmt::format("flow '{}' has invalid demand on '{}'", describe(spec),
                                   resources_[static_cast<size_t>(d.resource)].name));
    }
    if (d.per_unit == 0) continue;
    if (out > 0 && demands[out - 1].resource == d.resource) {
      demands[out - 1].per_unit += d.per_unit;
    } else {
      demands[out++] = d;
    }
  }
  demands.resize(out);
  return demands;
}

FlowId FluidSolver::add_flow(FlowSpec spec, TimePs now) {
  if (!(spec.work > 0) || !std::isfinite(spec.work)) {
    throw ModelError(fmt::format("flow '{}' has invalid work {}", describe(spec), spec.work));
  }
  if (!(spec.weight >= 0) || !std::isfinite(spec.weight)) {
    throw ModelError(fmt::format("flow '{}' has invalid weight", describe(spec)));
  }
  spec.demands = merged_demands(std::move(spec.demands), spec);
  if (spec.demands.empty() && !std::isfinite(spec.bound)) {
    throw ModelError(fmt::format("flow '{}' has neither demands nor a bound: infinite rate", describe(spec)));
  }

  std::int32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<std::int32_t>(flows_.size());
    flows_.emplace_back();
  }
  Flow& fl = flows_[static_cast<size_t>(index)];
  fl.generation++;
  fl.completes_at = -1;
  fl.spec = std::move(spec);
  fl.weight = effective_weight(fl.spec);
  fl.remaining = fl.spec.work;
  fl.rate = 0;
  fl.settled_at = now;
  fl.live = true;
  attach(index);
  if (!fl.spec.demands.empty()) note_sharing(index, true);
  mark_dirty(fl);
  note_change(index);
  if (fl.spec.demands.empty()) {
    // Bound-only flow: nothing to share, its rate is its bound.
    fl.rate = fl.spec.bound;
    schedule_completion(index, now);
  }
  live_++;
  return FlowId{index, fl.generation};
}

void FluidSolver::settle(Flow& fl, TimePs now) {
  if (now > fl.settled_at) {
    fl.remaining -= fl.rate * ps_to_s(now - fl.settled_at);
    if (fl.remaining < 0) fl.remaining = 0;
    fl.settled_at = now;
  }
}

void FluidSolver::update_flow(FlowId f, std::vector<Demand> demands, double bound, TimePs now) {
  Flow& fl = get(f);
  demands = merged_demands(std::move(demands), fl.spec);  // throws before any state changes
  if (demands.empty() && !std::isfinite(bound)) {
    throw ModelError(fmt::format("flow '{}' updated to an infinite rate", describe(fl.spec)));
  }
  settle(fl, now);
  mark_dirty(fl);
  // Usually only the coefficients change (cache pressure): the flow stays in the same resources'
  // lists, which saves two linear scans of the busiest ones (HBM, LLC).
  const bool same_resources =
      std::equal(demands.begin(), demands.end(), fl.spec.demands.begin(), fl.spec.demands.end(),
                 [](const Demand& a, const Demand& b) { return a.resource == b.resource; });
  if (!same_resources) detach(f.index);
  if (fl.spec.demands.empty() != demands.empty()) note_sharing(f.index, !demands.empty());
  fl.spec.demands = std::move(demands);
  fl.spec.bound = bound;
  fl.weight = effective_weight(fl.spec);
  if (!same_resources) {
    attach(f.index);
    mark_dirty(fl);  // the new resources (the same ones were marked above)
  }
  note_change(f.index);  // its demand coefficients changed, whether or not its rate does
  if (fl.spec.demands.empty()) {
    fl.rate = fl.spec.bound;
    schedule_completion(f.index, now);
  }
}

void FluidSolver::remove_flow(FlowId f, TimePs now) {
  Flow& fl = get(f);
  settle(fl, now);
  mark_dirty(fl);
  detach(f.index);
  if (!fl.spec.demands.empty()) note_sharing(f.index, false);
  note_change(f.index);
  fl.live = false;
  fl.rate = 0;
  fl.completes_at = -1;
  heap_erase(f.index);
  // Kept in descending order, so the lowest free slot is reused first: flows started after a
  // batch of completions take the slots in the order the finished ones held them.
  free_.insert(std::lower_bound(free_.begin(), free_.end(), f.index, std::greater<>()), f.index);
  live_--;
}

void FluidSolver::solve(TimePs now) {
  // A dirty resource that carries every flow with demands (the HBM in a GPU step, usually) puts
  // them all in one component with every resource they use: solved once here from the kept lists
  // (flows sorted by index, the order the search below sorts into; which order the resources come
  // in does not matter to do_solve) instead of by a graph search from whichever resource was
  // marked dirty last (often a link, which only the collective's flows use). Any other dirty
  // resource either belongs to that component or carries no flow.
  if (!sharing_list_.empty()) {
    const bool whole = std::any_of(dirty_.begin(), dirty_.end(), [this](ResourceId r) {
      const Resource& res = resources_[static_cast<size_t>(r)];
      return res.dirty && res.flows.size() == sharing_list_.size();
    });
    if (whole) {
      for (const ResourceId r : used_resources_) resources_[static_cast<size_t>(r)].dirty = false;
      do_solve(sharing_list_, used_resources_, now);
    }
  }
  while (!dirty_.empty()) {
    // Collect the connected component reachable from one dirty resource through shared flows.
    const ResourceId seed = dirty_.back();
    dirty_.pop_back();
    if (!resources_[static_cast<size_t>(seed)].dirty) continue;
    ++stamp_;
    std::vector<ResourceId>& comp_res = comp_res_;
    std::vector<std::int32_t>& comp_flows = comp_flows_;
    comp_res.assign(1, seed);
    comp_flows.clear();
    resources_[static_cast<size_t>(seed)].mark = stamp_;
    for (size_t i = 0; i < comp_res.size(); ++i) {
      Resource& r = resources_[static_cast<size_t>(comp_res[i])];
      r.dirty = false;
      for (std::int32_t fi : r.flows) {
        Flow& fl = flows_[static_cast<size_t>(fi)];
        if (fl.mark == stamp_) continue;
        fl.mark = stamp_;
        comp_flows.push_back(fi);
        for (const Demand& d : fl.spec.demands) {
          Resource& r2 = resources_[static_cast<size_t>(d.resource)];
          if (r2.mark != stamp_) {
            r2.mark = stamp_;
            comp_res.push_back(d.resource);
          }
        }
      }
    }
    // Deterministic order regardless of how the BFS met the flows.
    std::sort(comp_flows.begin(), comp_flows.end());
    do_solve(comp_flows, comp_res, now);
  }
}

void FluidSolver::do_solve(const std::vector<std::int32_t>& flows, const std::vector<ResourceId>& res,
                           TimePs now) {
  ++solve_count_;
  if (flows.empty()) return;
  // Local index of each resource in this component.
  std::vector<double>& cap = cap_;
  std::vector<double>& weighted_demand = weighted_demand_;
  std::vector<size_t>& local = local_;
  cap.assign(res.size(), 0.0);
  weighted_demand.assign(res.size(), 0.0);
  if (local.size() < resources_.size()) local.resize(resources_.size(), SIZE_MAX);
  for (size_t i = 0; i < res.size(); ++i) {
    local[static_cast<size_t>(res[i])] = i;
    cap[i] = resources_[static_cast<size_t>(res[i])].capacity;
  }
  // A resource is saturated below this much capacity left (read per demand in every round).
  std::vector<double>& saturated_at = saturated_at_;
  saturated_at.resize(res.size());
  for (size_t i = 0; i < res.size(); ++i) saturated_at[i] = cap[i] * kSaturationTolerance;
  std::vector<double>& new_rate = new_rate_;
  std::vector<char>& active = active_;
  new_rate.assign(flows.size(), 0.0);
  active.assign(flows.size(), 1);
  size_t n_active = flows.size();

  while (n_active > 0) {
    std::fill(weighted_demand.begin(), weighted_demand.end(), 0.0);
    for (size_t i = 0; i < flows.size(); ++i) {
      if (!active[i]) continue;
      const Flow& fl = flows_[static_cast<size_t>(flows[i])];
      for (const Demand& d : fl.spec.demands) {
        weighted_demand[local[static_cast<size_t>(d.resource)]] += fl.weight * d.per_unit;
      }
    }
    double inc = kUnbounded;
    for (size_t r = 0; r < res.size(); ++r) {
      if (weighted_demand[r] > 0) inc = std::min(inc, std::max(0.0, cap[r]) / weighted_demand[r]);
    }
    for (size_t i = 0; i < flows.size(); ++i) {
      if (!active[i]) continue;
      const Flow& fl = flows_[static_cast<size_t>(flows[i])];
      inc = std::min(inc, std::max(0.0, fl.spec.bound - new_rate[i]) / fl.weight);
    }
    if (!std::isfinite(inc)) throw ModelError("FluidSolver: unbounded rate in a component");
    for (size_t i = 0; i < flows.size(); ++i) {
      if (active[i]) new_rate[i] += flows_[static_cast<size_t>(flows[i])].weight * inc;
    }
    for (size_t r = 0; r < res.size(); ++r) cap[r] -= weighted_demand[r] * inc;
    // Freeze flows at their bound or crossing a saturated resource.
    size_t frozen = 0;
    for (size_t i = 0; i < flows.size(); ++i) {
      if (!active[i]) continue;
      const Flow& fl = flows_[static_cast<size_t>(flows[i])];
      bool freeze = new_rate[i] >= fl.spec.bound * (1 - kSaturationTolerance);
      for (const Demand& d : fl.spec.demands) {
        if (freeze) break;
        const size_t r = local[static_cast<size_t>(d.resource)];
        freeze = cap[r] <= saturated_at[r];
      }
      if (freeze) {
        active[i] = 0;
        ++frozen;
      }
    }
    if (frozen == 0) throw ModelError("FluidSolver: progressive filling made no progress");
    n_active -= frozen;
  }

  for (size_t i = 0; i < flows.size(); ++i) {
    Flow& fl = flows_[static_cast<size_t>(flows[i])];
    if (fl.rate == new_rate[i]) continue;  // unchanged: its scheduled completion still holds
    settle(fl, now);
    fl.rate = new_rate[i];
    note_change(flows[i]);
    schedule_completion(flows[i], now);
  }
}

void FluidSolver::schedule_completion(std::int32_t index, TimePs now) {
  Flow& fl = flows_[static_cast<size_t>(index)];
  if (fl.rate <= 0) {
    fl.completes_at = -1;
    heap_erase(index);
    return;
  }
  const double seconds = fl.remaining / fl.rate;
  const double ps = std::ceil(seconds * 1e12);
  fl.completes_at = now + (ps > 4e18 ? static_cast<TimePs>(4e18) : static_cast<TimePs>(ps));
  if (fl.heap_pos < 0) {
    fl.heap_pos = static_cast<std::int32_t>(completions_.size());
    completions_.push_back(Completion{fl.completes_at, index});
  } else {
    completions_[static_cast<size_t>(fl.heap_pos)].at = fl.completes_at;
  }
  heap_sift(static_cast<size_t>(fl.heap_pos));
}

void FluidSolver::heap_place(size_t pos, Completion c) {
  completions_[pos] = c;
  flows_[static_cast<size_t>(c.index)].heap_pos = static_cast<std::int32_t>(pos);
}

// Moves the entry at `pos` up or down to where its time now belongs (earliest first; equal times
// in flow-index order, so the order is deterministic).
void FluidSolver::heap_sift(size_t pos) {
  const Completion c = completions_[pos];
  while (pos > 0) {
    const size_t parent = (pos - 1) / 2;
    if (!c.before(completions_[parent])) break;
    heap_place(pos, completions_[parent]);
    pos = parent;
  }
  const size_t n = completions_.size();
  for (;;) {
    size_t child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n && completions_[child + 1].before(completions_[child])) ++child;
    if (!completions_[child].before(c)) break;
    heap_place(pos, completions_[child]);
    pos = child;
  }
  heap_place(pos, c);
}

void FluidSolver::heap_erase(std::int32_t index) {
  Flow& fl = flows_[static_cast<size_t>(index)];
  if (fl.heap_pos < 0) return;
  const auto pos = static_cast<size_t>(fl.heap_pos);
  fl.heap_pos = -1;
  const Completion last = completions_.back();
  completions_.pop_back();
  if (pos < completions_.size()) {
    completions_[pos] = last;
    heap_sift(pos);
  }
}

std::optional<std::pair<TimePs, FlowId>> FluidSolver::next_completion(TimePs now) {
  solve(now);
  if (completions_.empty()) return std::nullopt;
  const Completion& c = completions_.front();
  return std::make_pair(c.at, FlowId{c.index, flows_[static_cast<size_t>(c.index)].generation});
}

std::vector<FlowId> FluidSolver::live_flow_ids() const {
  std::vector<FlowId> out;
  live_flow_ids(out);
  return out;
}

void FluidSolver::live_flow_ids(std::vector<FlowId>& out) const {
  out.clear();
  for (size_t i = 0; i < flows_.size(); ++i) {
    if (flows_[i].live) out.push_back(FlowId{static_cast<std::int32_t>(i), flows_[i].generation});
  }
}

double FluidSolver::remaining(FlowId f, TimePs now) const {
  const Flow& fl = get(f);
  const double r = fl.remaining - fl.rate * ps_to_s(now - fl.settled_at);
  return r < 0 ? 0 : r;
}

const std::string& FluidSolver::label(FlowId f) const { return get(f).spec.label; }
ResourceKind FluidSolver::resource_kind(ResourceId r) const {
  return resources_.at(static_cast<size_t>(r)).kind;
}
const std::string& FluidSolver::resource_where(ResourceId r) const {
  return resources_.at(static_cast<size_t>(r)).where;
}

ChangeFeed FluidSolver::subscribe() {
  feeds_.emplace_back();
  return static_cast<ChangeFeed>(feeds_.size() - 1);
}

void FluidSolver::note_change(std::int32_t index) {
  const auto i = static_cast<size_t>(index);
  for (Feed& feed : feeds_) {
    if (feed.seen.size() <= i) feed.seen.resize(flows_.size(), 0);
    if (feed.seen[i] == feed.epoch) continue;
    feed.seen[i] = feed.epoch;
    feed.changed.push_back(index);
  }
}

void FluidSolver::take_changes(ChangeFeed feed, std::vector<std::int32_t>& out) {
  Feed& fd = feeds_.at(static_cast<size_t>(feed));
  out.clear();
  out.swap(fd.changed);
  ++fd.epoch;
}

FlowId FluidSolver::flow_in_slot(std::int32_t slot) const {
  if (slot < 0 || static_cast<size_t>(slot) >= flows_.size()) return FlowId{};
  const Flow& fl = flows_[static_cast<size_t>(slot)];
  return fl.live ? FlowId{slot, fl.generation} : FlowId{};
}
const std::string& FluidSolver::resource_name(ResourceId r) const {
  return resources_.at(static_cast<size_t>(r)).name;
}
double FluidSolver::capacity(ResourceId r) const { return resources_.at(static_cast<size_t>(r)).capacity; }

double FluidSolver::load(ResourceId r) const {
  double sum = 0;
  for (std::int32_t fi : resources_.at(static_cast<size_t>(r)).flows) {
    const Flow& fl = flows_[static_cast<size_t>(fi)];
    for (const Demand& d : fl.spec.demands) {
      if (d.resource == r) sum += fl.rate * d.per_unit;
    }
  }
  return sum;
}

}  // namespace c3sim::engine
