#include "sim/engine/event_queue.h"

#include <gtest/gtest.h>

#include <vector>

namespace c3sim::engine {
namespace {

TEST(EventQueue, OrdersByTimeThenInsertion) {
  EventQueue q;
  std::vector<int> order;
  q.schedule(20, [&] { order.push_back(3); });
  q.schedule(10, [&] { order.push_back(1); });
  q.schedule(10, [&] { order.push_back(2); });  // same time: after the first scheduled at 10
  q.schedule(5, [&] { order.push_back(0); });
  TimePs t = 0;
  std::vector<TimePs> times;
  while (!q.empty()) {
    auto a = q.pop(&t);
    times.push_back(t);
    a();
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(times, (std::vector<TimePs>{5, 10, 10, 20}));
}

TEST(EventQueue, CancelledEventsNeverRun) {
  EventQueue q;
  int ran = 0;
  const EventId a = q.schedule(1, [&] { ran += 1; });
  q.schedule(2, [&] { ran += 10; });
  q.cancel(a);
  TimePs t = 0;
  while (!q.empty()) q.pop (&t)();
  EXPECT_EQ(ran, 10);
  EXPECT_EQ(t, 2);
}

}  // namespace
}  // namespace c3sim::engine
