#pragma once
// The simulation object: one event queue, one fluid solver, the current time. No globals, so any
// number of simulations can run side by side (sweeps run them on all cores).
//
// Two kinds of things happen: discrete events (kernel launches, host-side DMA submissions,
// dispatch decisions) and fluid flows finishing. run() always takes whichever is earliest; at
// equal times events go first, then flow completions in flow-index order. Every flow the last
// solve scheduled to finish at one instant finishes in one step (all their callbacks, in index
// order), and only then run the actions those callbacks deferred (defer()): a dispatcher whose
// workgroups of one kernel end together on every XCD dispatches and refreshes once for the lot,
// not once per cohort, with no solve in between.
//
// Costs per step: the observers' settle/before_step, one FluidSolver::next_completion (a solve of
// the dirty components, then O(1)), and either one EventQueue pop (O(log E)) or one completion
// batch (O(log F) per flow). Completion callbacks are kept by flow slot (O(1) set and take, one
// std::function per slot ever used); deferred actions in a reused vector (O(1) each).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/engine/event_queue.h"
#include "sim/engine/fluid_solver.h"

namespace c3sim::engine {

class TraceRecorder;
class Simulation;

// Hooks into every step:
// - settle: at the start of a step, before the next time is chosen. An observer whose state
//   depends on the rates the last step left (e.g. memory queueing) may update flows here; the
//   next completion is then computed from the updated rates.
// - before_step: once the next time is chosen, before it is reached: lets attribution and
//   counters integrate the (now fixed) state over [now, next). Must not change flows.
class StepObserver {
public:
  virtual ~StepObserver() = default;
  virtual void settle(Simulation& sim) { (void)sim; }
  virtual void before_step(Simulation& sim, TimePs next) {
    (void)sim;
    (void)next;
  }
};

class Simulation {
public:
  using FlowDone = std::function<void(TimePs)>;

  [[nodiscard]] TimePs now() const { return now_; }

  EventId at(TimePs when, EventQueue::Action action);
  EventId after(TimePs delay, EventQueue::Action action) { return at(now_ + delay, std::move(action)); }
  void cancel(EventId id) { events_.cancel(id); }

  // Runs `action` at the end of the current step: after every flow callback of a completion
  // batch (or after the event's action). For work that must see the whole instant's changes.
  void defer(EventQueue::Action action) { deferred_.push_back(std::move(action)); }

  FluidSolver& solver() { return solver_; }
  [[nodiscard]] const FluidSolver& solver() const { return solver_; }

  ResourceId add_resource(std::string name, double capacity, ResourceKind kind = ResourceKind::other,
                          std::string where = {}) {
    return solver_.add_resource(std::move(name), capacity, kind, std::move(where));
  }
  // Starts a flow now; `done` runs when its work is finished.
  FlowId start_flow(FlowSpec spec, FlowDone done);
  void update_flow(FlowId f, std::vector<Demand> demands, double bound) {
    solver_.update_flow(f, std::move(demands), bound, now_);
  }

  // Processes the next event or flow completion; false when nothing is left.
  bool step();
  void run();
  // Runs everything due at or before `until`, then sets now to `until`.
  void run_until(TimePs until);

  [[nodiscard]] std::uint64_t events_processed() const { return processed_; }

  void add_observer(StepObserver* o) { observers_.push_back(o); }
  void set_trace(TraceRecorder* trace) { trace_ = trace; }
  [[nodiscard]] TraceRecorder* trace() const { return trace_; }

private:
  void finish_flow(FlowId f);
  void run_deferred();

  EventQueue events_;
  FluidSolver solver_;
  std::vector<FlowDone> on_done_;  // by flow index (live flows only)
  TimePs now_ = 0;
  std::uint64_t processed_ = 0;
  TraceRecorder* trace_ = nullptr;
  std::vector<StepObserver*> observers_;
  std::vector<EventQueue::Action> deferred_;
  std::vector<EventQueue::Action> running_;  // the deferred actions being run (reused storage)
};

}  // namespace c3sim::engine
