#include "sim/engine/simulation.h"

#include "sim/base/errors.h"
#include "sim/engine/trace_recorder.h"

namespace c3sim::engine {

EventId Simulation::at(TimePs when, EventQueue::Action action) {
  if (when < now_) throw ModelError("Simulation: event scheduled in the past");
  return events_.schedule(when, std::move(action));
}

FlowId Simulation::start_flow(FlowSpec spec, FlowDone done) {
  const FlowId id = solver_.add_flow(std::move(spec), now_);
  if (on_done_.size() <= static_cast<size_t>(id.index)) on_done_.resize(static_cast<size_t>(id.index) + 1);
  on_done_[static_cast<size_t>(id.index)] = std::move(done);
  return id;
}

bool Simulation::step() {
  for (StepObserver* o : observers_) o->settle(*this);
  const auto completion = solver_.next_completion(now_);
  const bool have_event = !events_.empty();
  if (!have_event && !completion) return false;
  const TimePs next = (have_event && (!completion || events_.next_time() <= completion->first))
                          ? events_.next_time()
                          : completion->first;
  for (StepObserver* o : observers_) o->before_step(*this, next);
  if (have_event && (!completion || events_.next_time() <= completion->first)) {
    TimePs t = 0;
    EventQueue::Action action = events_.pop(&t);
    now_ = t;
    ++processed_;
    action();
    run_deferred();
    // Sampled after the step so a counter holds the value the step left until the next change.
    if (trace_) trace_->sample_counters(*this);
    return true;
  }
  now_ = completion->first;
  finish_flow(completion->second);
  // The rest of the flows due now, as the last solve scheduled them (earliest first, then index
  // order; no re-solve between them: no time passes, so their progress is what that solve gave).
  while (const auto also = solver_.scheduled_completion()) {
    if (also->first != now_) break;
    finish_flow(also->second);
  }
  run_deferred();
  if (trace_) trace_->sample_counters(*this);
  return true;
}

void Simulation::finish_flow(FlowId f) {
  solver_.remove_flow(f, now_);
  FlowDone done = std::move(on_done_[static_cast<size_t>(f.index)]);
  on_done_[static_cast<size_t>(f.index)] = nullptr;
  ++processed_;
  if (done) done(now_);
}

void Simulation::run_deferred() {
  while (!deferred_.empty()) {
    running_.swap(deferred_);
    for (EventQueue::Action& a : running_) a();
    running_.clear();
  }
}

void Simulation::run() {
  while (step()) {}
}

void Simulation::run_until(TimePs until) {
  for (;;) {
    for (StepObserver* o : observers_) o->settle(*this);
    const auto completion = solver_.next_completion(now_);
    TimePs next = completion ? completion->first : until + 1;
    if (!events_.empty()) next = std::min(next, events_.next_time());
    if (next > until) break;
    step();
  }
  if (until > now_) now_ = until;
}

}  // namespace c3sim::engine
