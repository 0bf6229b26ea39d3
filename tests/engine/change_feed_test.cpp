// Changed-flow reporting and typed identity across the engine seam. Expected sets are derived by
// hand in the comments from weighted max-min fairness (every flow here has weight 1).
#include <algorithm>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "sim/engine/fluid_solver.h"
#include "sim/engine/gpu_dispatcher.h"

namespace c3sim::engine {
namespace {

std::vector<std::int32_t> drained(FluidSolver& s, ChangeFeed feed) {
  std::vector<std::int32_t> out;
  s.take_changes(feed, out);
  return out;
}

std::vector<std::int32_t> sorted(std::vector<std::int32_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(ChangeFeed, ReportsOnlyFlowsWhoseRateOrDemandsChanged) {
  FluidSolver s;
  const ResourceId r1 = s.add_resource("r1", 100.0);
  const ResourceId r2 = s.add_resource("r2", 100.0);
  const ChangeFeed feed = s.subscribe();
  // a alone on r1, b alone on r2: each runs at 100. Both are new: slots {0, 1}, each once although
  // each was both added and re-rated.
  const FlowId a = s.add_flow(FlowSpec{1.0, {{r1, 1.0}}, kUnbounded, 1.0, "a", {}}, 0);
  const FlowId b = s.add_flow(FlowSpec{1.0, {{r2, 1.0}}, kUnbounded, 1.0, "b", {}}, 0);
  s.solve(0);
  EXPECT_EQ(drained(s, feed), (std::vector<std::int32_t>{a.index, b.index}));
  EXPECT_TRUE(drained(s, feed).empty());  // drained: nothing until the next change

  // c joins b on r2: b 100 -> 50, c 0 -> 50. a's component is untouched and a is not reported.
  const FlowId c = s.add_flow(FlowSpec{1.0, {{r2, 1.0}}, kUnbounded, 1.0, "c", {}}, 0);
  s.solve(0);
  EXPECT_EQ(sorted(drained(s, feed)), sorted({b.index, c.index}));

  // b leaves: c 50 -> 100; b's slot is reported too (removed), and now holds no live flow.
  s.remove_flow(b, 0);
  s.solve(0);
  EXPECT_EQ(sorted(drained(s, feed)), sorted({b.index, c.index}));
  EXPECT_FALSE(s.flow_in_slot(b.index).valid());
  EXPECT_TRUE(s.flow_in_slot(c.index) == c);

  // New coefficients on a (2 units of r1 per unit of work): 100 -> 50 units/s. Only a.
  s.update_flow(a, {{r1, 2.0}}, kUnbounded, 0);
  s.solve(0);
  EXPECT_EQ(drained(s, feed), (std::vector<std::int32_t>{a.index}));
}

TEST(ChangeFeed, AFlowHeldAtItsBoundIsNotReported) {
  // x bounded at 10 and y share 100: x 10, y 90. z joins: x stays at 10 (its bound is below the
  // fair share of 100 / 3), y and z split the 90 left: 45 each. Changed: y and z, not x.
  FluidSolver s;
  const ResourceId r = s.add_resource("r", 100.0);
  const FlowId x = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, 10.0, 1.0, "x", {}}, 0);
  const FlowId y = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, kUnbounded, 1.0, "y", {}}, 0);
  s.solve(0);
  const ChangeFeed feed = s.subscribe();  // subscribes after the fact: sees only what follows
  const FlowId z = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, kUnbounded, 1.0, "z", {}}, 0);
  s.solve(0);
  EXPECT_NEAR(s.rate(x), 10.0, 1e-9);
  EXPECT_NEAR(s.rate(y), 45.0, 1e-9);
  EXPECT_NEAR(s.rate(z), 45.0, 1e-9);
  EXPECT_EQ(sorted(drained(s, feed)), sorted({y.index, z.index}));
}

TEST(ChangeFeed, FeedsAreIndependent) {
  FluidSolver s;
  const ResourceId r = s.add_resource("r", 10.0);
  const ChangeFeed first = s.subscribe();
  const ChangeFeed second = s.subscribe();
  const FlowId f = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, kUnbounded, 1.0, "f", {}}, 0);
  s.solve(0);
  EXPECT_EQ(drained(s, first), (std::vector<std::int32_t>{f.index}));
  // Draining one feed leaves the other's changes in place.
  EXPECT_EQ(drained(s, second), (std::vector<std::int32_t>{f.index}));
}

TEST(TypedIdentity, FlowsCarryTheirOwnerAndResourcesTheirKind) {
  FluidSolver s;
  const ResourceId l2 = s.add_resource("l2_xcd3", 1.0, ResourceKind::l2, "xcd3");
  const FlowId f =
      s.add_flow(FlowSpec{1.0, {{l2, 1.0}}, kUnbounded, 1.0, "", {7, KernelKind::dma_transfer}}, 0);
  EXPECT_EQ(s.owner(f), (FlowOwner{7, KernelKind::dma_transfer}));
  EXPECT_EQ(s.resource_kind(l2), ResourceKind::l2);
  EXPECT_EQ(s.resource_where(l2), "xcd3");
  EXPECT_EQ(to_string(KernelKind::cu_collective), "cu_collective");
  EXPECT_EQ(to_string(ResourceKind::xcd_fabric), "xcd_fabric");
}

TEST(TypedIdentity, ErrorsNameAnUnlabelledFlowByItsOwner) {
  FluidSolver s;
  try {
    (void)s.add_flow(FlowSpec{1.0, {{5, 1.0}}, kUnbounded, 1.0, "", {3, KernelKind::gemm}}, 0);
    FAIL() << "unknown resource accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("gemm kernel 3"), std::string::npos) << e.what();
  }
}

// A workgroup model whose cohorts each need one second of pure compute.
class OneSecondModel final : public WorkgroupModel {
public:
  CohortWork cohort_work(const CohortContext& ctx) override {
    owners.push_back(ctx.owner);
    return CohortWork{1.0, {}, 1.0, 0};
  }
  std::vector<FlowOwner> owners;
};

TEST(TypedIdentity, EveryCohortFlowCarriesItsKernelsOwner) {
  // 2 XCDs x 2 CUs, 4 workgroups of kernel 5: one cohort per XCD, both owned by {5, memory}.
  Simulation sim;
  GpuDispatcher gpu(sim, GpuConfig{0, 2, 2, 1, 1 << 30, 0});
  const StreamId st = gpu.add_stream(StreamConfig{"s", 0, {}});
  auto model = std::make_shared<OneSecondModel>();
  gpu.launch(st, KernelDesc{"copy", 4, 1, 0, {5, KernelKind::memory}}, model, nullptr);
  sim.run_until(s_to_ps(0.5));
  const auto live = sim.solver().live_flow_ids();
  ASSERT_EQ(live.size(), 2u);
  for (const FlowId f : live) EXPECT_EQ(sim.solver().owner(f), (FlowOwner{5, KernelKind::memory}));
  EXPECT_EQ(model->owners, (std::vector<FlowOwner>(2, FlowOwner{5, KernelKind::memory})));
}

}  // namespace
}  // namespace c3sim::engine
