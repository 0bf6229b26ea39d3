// Simulation: the step loop's observer hooks.
#include "sim/engine/simulation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace c3sim::engine {
namespace {

// Halves one flow's rate the first time it settles: the rate the flow runs at depends on the
// state the previous step left, as the memory-queueing observer does.
class SlowDownOnce final : public StepObserver {
public:
  explicit SlowDownOnce(FlowId* flow) : flow_(flow) {}
  void settle(Simulation& sim) override {
    if (done_ || !sim.solver().alive(*flow_)) return;
    done_ = true;
    sim.update_flow(*flow_, {}, 0.5);
  }
  void before_step(Simulation& sim, TimePs next) override { steps.emplace_back(sim.now(), next); }
  std::vector<std::pair<TimePs, TimePs>> steps;  // (now, next) seen by before_step

private:
  FlowId* flow_;
  bool done_ = false;
};

TEST(Simulation, FlowsChangedWhileSettlingCompleteAtTheirNewRate) {
  // One unit of work at 1 unit/s would end at 1 s; the observer halves the rate at time 0, before
  // the first step picks its time, so the flow must end at 2 s and no step may go back in time.
  Simulation sim;
  FlowId flow;
  SlowDownOnce observer(&flow);
  sim.add_observer(&observer);
  TimePs done = -1;
  flow = sim.start_flow(FlowSpec{1.0, {}, 1.0, kProportional, "f", {}}, [&](TimePs t) { done = t; });
  sim.run();
  EXPECT_EQ(done, s_to_ps(2.0));
  ASSERT_FALSE(observer.steps.empty());
  EXPECT_EQ(observer.steps.back().second, s_to_ps(2.0));
  for (const auto& [now, next] : observer.steps) EXPECT_LE(now, next);
}

// Counts the steps the loop takes (before_step runs once per step).
class StepCounter final : public StepObserver {
public:
  void before_step(Simulation& /*sim*/, TimePs /*next*/) override { ++steps; }
  int steps = 0;
};

TEST(Simulation, FlowsDueAtOneInstantFinishInOneStepBeforeDeferredWork) {
  // Three flows of 1, 1 and 2 units at 1 unit/s each (no shared resource): two are due at 1 s,
  // one at 2 s. The two due at 1 s must finish in one step (3 flows -> 2 steps), both callbacks
  // before the action the first one defers, which must therefore see both done; a flow that
  // deferred action starts runs from 1 s (0.5 units at 1 unit/s: done at 1.5 s, its own step).
  Simulation sim;
  StepCounter counter;
  sim.add_observer(&counter);
  std::vector<std::string> log;
  int finished_at_one = 0;
  TimePs late_done = -1;
  auto spec = [](double work, const char* name) { return FlowSpec{work, {}, 1.0, kProportional, name, {}}; };
  sim.start_flow(spec(1.0, "a"), [&](TimePs) {
    log.emplace_back("a");
    ++finished_at_one;
    sim.defer([&] {
      log.emplace_back("deferred saw " + std::to_string(finished_at_one));
      sim.start_flow(spec(0.5, "d"), [&](TimePs t) { late_done = t; });
    });
  });
  sim.start_flow(spec(1.0, "b"), [&](TimePs) {
    log.emplace_back("b");
    ++finished_at_one;
  });
  TimePs c_done = -1;
  sim.start_flow(spec(2.0, "c"), [&](TimePs t) { c_done = t; });
  sim.run();
  EXPECT_EQ(log, (std::vector<std::string>{"a", "b", "deferred saw 2"}));
  EXPECT_EQ(late_done, s_to_ps(1.5));
  EXPECT_EQ(c_done, s_to_ps(2.0));
  EXPECT_EQ(counter.steps, 3);  // 1 s (a and b), 1.5 s (d), 2 s (c)
}

}  // namespace
}  // namespace c3sim::engine
