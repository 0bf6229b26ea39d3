#include "sim/engine/event_queue.h"

#include "sim/base/errors.h"

namespace c3sim::engine {

EventId EventQueue::schedule(TimePs at, Action action) {
  const EventId id = next_seq_++;
  heap_.push_back(Entry{at, id, std::move(action)});
  std::push_heap(heap_.begin(), heap_.end(), later);
  return id;
}

void EventQueue::cancel(EventId id) {
  if (id < next_seq_) cancelled_.insert(id);
}

void EventQueue::drop_cancelled() {
  while (!heap_.empty() && !cancelled_.empty() && cancelled_.count(heap_.front().seq)) {
    cancelled_.erase(heap_.front().seq);
    std::pop_heap(heap_.begin(), heap_.end(), later);
    heap_.pop_back();
  }
}

bool EventQueue::empty() {
  drop_cancelled();
  return heap_.empty();
}

TimePs EventQueue::next_time() {
  drop_cancelled();
  if (heap_.empty()) throw ModelError("EventQueue::next_time on an empty queue");
  return heap_.front().at;
}

EventQueue::Action EventQueue::pop(TimePs* at) {
  drop_cancelled();
  if (heap_.empty()) throw ModelError("EventQueue::pop on an empty queue");
  std::pop_heap(heap_.begin(), heap_.end(), later);
  Entry e = std::move(heap_.back());
  heap_.pop_back();
  if (at) *at = e.at;
  return std::move(e.action);
}

}  // namespace c3sim::engine
