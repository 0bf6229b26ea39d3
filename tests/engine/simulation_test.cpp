// Simulation: the step loop's observer hooks.
#include "sim/engine/simulation.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace c3sim::engine
