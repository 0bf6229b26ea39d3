#pragma once
// Weighted max-min fair sharing of resource capacities among flows (progressive filling), the
// model SimGrid's LMM uses. A flow has remaining work, a demand vector (resource units consumed
// per unit of work) and an optional rate bound (e.g. the compute rate of the CUs a workgroup
// cohort holds). Rates are recomputed only for the connected component of flows and resources an
// update touched; remaining work is settled lazily (only when a flow's rate changes), and
// completion times live in an indexed heap (each live flow with a rate has one entry, moved in
// place when its completion time changes).
//
// Costs: add/update/remove O(d) to mark dirty (d = demands of the flow) plus O(s) to keep the
// sorted list of s sharing flows; solve() is O(k * (f + r)) per dirty component of f flows, r
// resources, with k <= f filling rounds; a re-rate O(log n); next_completion() O(1) after solving.
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/units.h"
#include "sim/engine/identity.h"

namespace c3sim::engine {

using ResourceId = std::int32_t;

struct FlowId {
  std::int32_t index = -1;
  std::uint32_t generation = 0;
  [[nodiscard]] bool valid() const { return index >= 0; }
  bool operator==(const FlowId& o) const { return index == o.index && generation == o.generation; }
};

struct Demand {
  ResourceId resource = -1;
  double per_unit = 0;  // resource units (e.g. bytes) consumed per unit of flow work
};

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();
inline constexpr double kProportional = 0.0;

struct FlowSpec {
  double work = 0;              // units of work to do (> 0)
  std::vector<Demand> demands;  // may be empty only if bound is finite
  double bound = kUnbounded;    // max rate, work units per second
  // Share weight in max-min fairness. kProportional (the default) uses the flow's standalone rate
  // (its bound, or what its tightest resource allows alone): every flow through a saturated
  // resource is then slowed by the same factor, i.e. served in proportion to how fast it would
  // issue requests, as a FIFO memory system without QoS does. This is also invariant to splitting
  // a cohort into per-workgroup flows.
  double weight = kProportional;
  std::string label;  // for errors; empty: described by its owner
  FlowOwner owner;    // the kernel it works for
};

// A subscription to rate changes (see FluidSolver::subscribe).
using ChangeFeed = std::int32_t;

class FluidSolver {
public:
  // `where` names the instance within its kind ("xcd3", "out2"), for counters and traces.
  ResourceId add_resource(std::string name, double capacity, ResourceKind kind = ResourceKind::other,
                          std::string where = {});
  void set_capacity(ResourceId r, double capacity, TimePs now);

  FlowId add_flow(FlowSpec spec, TimePs now);
  // Changes a running flow's demands and bound (e.g. when cache hit rates change); its remaining
  // work is settled at `now` first.
  void update_flow(FlowId f, std::vector<Demand> demands, double bound, TimePs now);
  void remove_flow(FlowId f, TimePs now);

  // Re-solves every dirty component. Called automatically by next_completion().
  void solve(TimePs now);

  // Earliest completion among live flows (solving first if needed).
  [[nodiscard]] std::optional<std::pair<TimePs, FlowId>> next_completion(TimePs now);

  // The earliest completion the last solve scheduled, without solving (flows changed since keep
  // the time it gave them; flows added since have none unless bound-only).
  [[nodiscard]] std::optional<std::pair<TimePs, FlowId>> scheduled_completion() const {
    if (completions_.empty()) return std::nullopt;
    const Completion& c = completions_.front();
    return std::make_pair(c.at, FlowId{c.index, flows_[static_cast<size_t>(c.index)].generation});
  }

  // Inline, with get(): asked for every running cohort on every refresh.
  [[nodiscard]] bool alive(FlowId f) const {
    return f.index >= 0 && static_cast<std::size_t>(f.index) < flows_.size() &&
           flows_[static_cast<std::size_t>(f.index)].live &&
           flows_[static_cast<std::size_t>(f.index)].generation == f.generation;
  }
  // Inline too: observers read these for every changed flow on every step.
  [[nodiscard]] double rate(FlowId f) const { return get(f).rate; }
  [[nodiscard]] double remaining(FlowId f, TimePs now) const;
  [[nodiscard]] const std::string& label(FlowId f) const;
  [[nodiscard]] const FlowOwner& owner(FlowId f) const { return get(f).spec.owner; }
  [[nodiscard]] const std::vector<Demand>& demands(FlowId f) const { return get(f).spec.demands; }

  [[nodiscard]] std::size_t resource_count() const { return resources_.size(); }
  [[nodiscard]] const std::string& resource_name(ResourceId r) const;
  [[nodiscard]] ResourceKind resource_kind(ResourceId r) const;
  [[nodiscard]] const std::string& resource_where(ResourceId r) const;
  [[nodiscard]] double capacity(ResourceId r) const;
  // Current consumption (sum of rate * per_unit over flows), after the last solve.
  [[nodiscard]] double load(ResourceId r) const;
  [[nodiscard]] std::size_t live_flows() const { return live_; }
  [[nodiscard]] std::vector<FlowId> live_flow_ids() const;
  void live_flow_ids(std::vector<FlowId>& out) const;  // into a caller's buffer (per-step use)
  [[nodiscard]] std::uint64_t solves() const { return solve_count_; }

  // Changed-flow reporting, so observers do O(changed) work per step instead of rescanning every
  // live flow. A feed collects the slot index of every flow that was added, removed, re-rated by
  // a solve, or given new demands since the feed was last drained, each slot once (a slot may
  // have been freed and reused meanwhile: flow_in_slot() says what lives there now). Cost: O(feeds)
  // per change; draining is O(changes).
  [[nodiscard]] ChangeFeed subscribe();
  // Moves the feed's changed slots (in the order they first changed) into `out`, clearing both.
  void take_changes(ChangeFeed feed, std::vector<std::int32_t>& out);
  // The live flow in a slot, or an invalid FlowId.
  [[nodiscard]] FlowId flow_in_slot(std::int32_t slot) const;
  // One past the highest slot index ever used (for observers' per-slot arrays).
  [[nodiscard]] std::size_t slot_count() const { return flows_.size(); }

private:
  struct Resource {
    std::string name;
    double capacity = 0;
    ResourceKind kind = ResourceKind::other;
    std::string where;
    std::vector<std::int32_t> flows;  // indices of live flows that use it
    bool dirty = false;
    std::uint32_t mark = 0;      // BFS visit stamp
    std::int32_t used_pos = -1;  // position in used_resources_ while `flows` is non-empty
  };
  struct Flow {
    FlowSpec spec;
    double weight = 1.0;  // effective share weight
    double remaining = 0;
    double rate = 0;
    TimePs settled_at = 0;
    std::uint32_t generation = 0;
    TimePs completes_at = -1;    // valid while rate > 0
    std::int32_t heap_pos = -1;  // in completions_, or -1
    std::uint32_t mark = 0;
    bool live = false;
  };

  Flow& get(FlowId f) {
    if (!alive(f)) throw_dead_flow();
    return flows_[static_cast<std::size_t>(f.index)];
  }
  const Flow& get(FlowId f) const {
    if (!alive(f)) throw_dead_flow();
    return flows_[static_cast<std::size_t>(f.index)];
  }
  [[noreturn]] static void throw_dead_flow();
  void attach(std::int32_t index);
  void detach(std::int32_t index);
  void mark_dirty(const Flow& fl);
  void settle(Flow& fl, TimePs now);
  [[nodiscard]] double effective_weight(const FlowSpec& spec) const;
  [[nodiscard]] std::vector<Demand> merged_demands(std::vector<Demand> demands, const FlowSpec& spec) const;
  void do_solve(const std::vector<std::int32_t>& flows, const std::vector<ResourceId>& res, TimePs now);
  void schedule_completion(std::int32_t index, TimePs now);
  // The completion heap: flow indices ordered by (completes_at, index), earliest on top.
  // An entry carries its time, so comparisons read the heap alone (not the flows' records).
  struct Completion {
    TimePs at;
    std::int32_t index;
    [[nodiscard]] bool before(const Completion& o) const { return at != o.at ? at < o.at : index < o.index; }
  };
  void heap_place(size_t pos, Completion c);
  void heap_sift(size_t pos);
  void heap_erase(std::int32_t index);
  // Sorted list of live flows with demands (the fast path's component, in index order).
  void note_sharing(std::int32_t index, bool sharing);
  void note_used(ResourceId r);
  void note_unused(ResourceId r);
  void note_change(std::int32_t index);
  [[nodiscard]] static std::string describe(const FlowSpec& spec);

  struct Feed {
    std::vector<std::int32_t> changed;
    std::vector<std::uint32_t> seen;  // by slot: the epoch it was last listed in
    std::uint32_t epoch = 1;
  };
  std::vector<Feed> feeds_;

  // Scratch buffers reused by do_solve() so a solve allocates nothing in steady state.
  std::vector<double> cap_, weighted_demand_, new_rate_, saturated_at_;
  std::vector<char> active_;
  std::vector<size_t> local_;
  std::vector<ResourceId> comp_res_;  // solve()'s component being collected
  std::vector<std::int32_t> comp_flows_;
  std::vector<Resource> resources_;
  std::vector<Flow> flows_;
  std::vector<std::int32_t> free_;
  std::vector<ResourceId> dirty_;
  std::vector<Completion> completions_;     // a binary min-heap (Completion::before)
  std::vector<std::int32_t> sharing_list_;  // live flows with demands, ascending index
  std::vector<ResourceId> used_resources_;  // resources with at least one live flow, any order
  std::uint32_t stamp_ = 0;
  std::size_t live_ = 0;
  std::uint64_t solve_count_ = 0;
};

}  // namespace c3sim::engine
