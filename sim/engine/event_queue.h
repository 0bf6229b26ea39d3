#pragma once
// Discrete-event queue ordered by (time, sequence number). The sequence number is the insertion
// order, so two events at the same picosecond always run in the order they were scheduled: runs
// are bit-for-bit deterministic.
//
// Costs: schedule O(log n), pop O(log n), cancel O(1) (lazy: a cancelled event is skipped when it
// reaches the top), memory O(n) for pending events including cancelled ones not yet popped.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <unordered_set>
#include <vector>

#include "sim/base/units.h"

namespace c3sim::engine {

using EventId = std::uint64_t;

class EventQueue {
public:
  using Action = std::function<void()>;

  EventId schedule(TimePs at, Action action);
  void cancel(EventId id);

  [[nodiscard]] bool empty();
  // Time of the earliest live event; only valid when !empty().
  [[nodiscard]] TimePs next_time();
  // Removes the earliest live event and returns its action.
  Action pop(TimePs* at);
  [[nodiscard]] std::uint64_t scheduled_count() const { return next_seq_; }

private:
  struct Entry {
    TimePs at;
    EventId seq;
    Action action;
  };
  // Heap order for std::push_heap/pop_heap (a max-heap): the smallest (at, seq) on top.
  static bool later(const Entry& a, const Entry& b) { return a.at != b.at ? a.at > b.at : a.seq > b.seq; }
  void drop_cancelled();

  std::vector<Entry> heap_;
  std::unordered_set<EventId> cancelled_;
  EventId next_seq_ = 0;
};

}  // namespace c3sim::engine
