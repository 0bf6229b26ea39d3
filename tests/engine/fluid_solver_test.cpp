// Fluid solver: expected rates derived by hand in the comments (weighted max-min fairness).
#include "sim/engine/fluid_solver.h"

#include <gtest/gtest.h>

#include "sim/base/errors.h"

namespace c3sim::engine {
namespace {

TEST(FluidSolver, SingleFlowTakesWholeResource) {
  // One flow, 1 byte per unit, on a 100 B/s link: rate 100 units/s, 50 units finish at 0.5 s.
  FluidSolver s;
  const ResourceId link = s.add_resource("link", 100.0);
  const FlowId f = s.add_flow(FlowSpec{50.0, {{link, 1.0}}, kUnbounded, 1.0, "f", {}}, 0);
  auto next = s.next_completion(0);
  ASSERT_TRUE(next.has_value());
  EXPECT_DOUBLE_EQ(s.rate(f), 100.0);
  EXPECT_EQ(next->first, s_to_ps(0.5));
}

TEST(FluidSolver, EqualSharingAndBoundRedistribution) {
  // Three flows share 90 B/s. Fair share is 30 each, but flow a is bounded at 10, so the 20 it
  // leaves goes to b and c: 10, 40, 40.
  FluidSolver s;
  const ResourceId r = s.add_resource("r", 90.0);
  const FlowId a = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, 10.0, 1.0, "a", {}}, 0);
  const FlowId b = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, kUnbounded, 1.0, "b", {}}, 0);
  const FlowId c = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, kUnbounded, 1.0, "c", {}}, 0);
  s.solve(0);
  EXPECT_NEAR(s.rate(a), 10.0, 1e-9);
  EXPECT_NEAR(s.rate(b), 40.0, 1e-9);
  EXPECT_NEAR(s.rate(c), 40.0, 1e-9);
}

TEST(FluidSolver, WeightsSplitProportionally) {
  // Weights 1 and 3 on 100 B/s: 25 and 75.
  FluidSolver s;
  const ResourceId r = s.add_resource("r", 100.0);
  const FlowId a = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, kUnbounded, 1.0, "a", {}}, 0);
  const FlowId b = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, kUnbounded, 3.0, "b", {}}, 0);
  s.solve(0);
  EXPECT_NEAR(s.rate(a), 25.0, 1e-9);
  EXPECT_NEAR(s.rate(b), 75.0, 1e-9);
}

TEST(FluidSolver, MultiResourceBottleneck) {
  // Flow x uses L1 (cap 10) and L2 (cap 100); flow y uses only L2.
  // Filling: both rise together; L1 saturates at x=10. y continues alone to 100-10 = 90.
  FluidSolver s;
  const ResourceId l1 = s.add_resource("l1", 10.0);
  const ResourceId l2 = s.add_resource("l2", 100.0);
  const FlowId x = s.add_flow(FlowSpec{1.0, {{l1, 1.0}, {l2, 1.0}}, kUnbounded, 1.0, "x", {}}, 0);
  const FlowId y = s.add_flow(FlowSpec{1.0, {{l2, 1.0}}, kUnbounded, 1.0, "y", {}}, 0);
  s.solve(0);
  EXPECT_NEAR(s.rate(x), 10.0, 1e-9);
  EXPECT_NEAR(s.rate(y), 90.0, 1e-9);
}

TEST(FluidSolver, DemandCoefficientsScaleConsumption) {
  // x needs 2 bytes of HBM per unit, y 1 byte; HBM 90 B/s. Equal rates r: 2r + r = 90, r = 30.
  FluidSolver s;
  const ResourceId hbm = s.add_resource("hbm", 90.0);
  const FlowId x = s.add_flow(FlowSpec{1.0, {{hbm, 2.0}}, kUnbounded, 1.0, "x", {}}, 0);
  const FlowId y = s.add_flow(FlowSpec{1.0, {{hbm, 1.0}}, kUnbounded, 1.0, "y", {}}, 0);
  s.solve(0);
  EXPECT_NEAR(s.rate(x), 30.0, 1e-9);
  EXPECT_NEAR(s.rate(y), 30.0, 1e-9);
  EXPECT_NEAR(s.load(hbm), 90.0, 1e-9);
}

TEST(FluidSolver, RemovalFreesCapacityAndLazyRemainsAreExact) {
  // Two flows of 100 units share 100/s: 50 each. At t=1 s remove one; the other has 50 left and
  // now runs at 100/s: it finishes at t = 1.5 s.
  FluidSolver s;
  const ResourceId r = s.add_resource("r", 100.0);
  const FlowId a = s.add_flow(FlowSpec{100.0, {{r, 1.0}}, kUnbounded, 1.0, "a", {}}, 0);
  const FlowId b = s.add_flow(FlowSpec{100.0, {{r, 1.0}}, kUnbounded, 1.0, "b", {}}, 0);
  s.solve(0);
  s.remove_flow(b, s_to_ps(1.0));
  auto next = s.next_completion(s_to_ps(1.0));
  ASSERT_TRUE(next.has_value());
  EXPECT_TRUE(next->second == a);
  EXPECT_NEAR(s.remaining(a, s_to_ps(1.0)), 50.0, 1e-9);
  EXPECT_EQ(next->first, s_to_ps(1.5));
}

TEST(FluidSolver, IndependentComponentsAreNotResolved) {
  // Touching a flow on r2 must not re-solve the component on r1 (selective update).
  FluidSolver s;
  const ResourceId r1 = s.add_resource("r1", 10.0);
  const ResourceId r2 = s.add_resource("r2", 10.0);
  s.add_flow(FlowSpec{1.0, {{r1, 1.0}}, kUnbounded, 1.0, "a", {}}, 0);
  s.solve(0);
  const auto before = s.solves();
  s.add_flow(FlowSpec{1.0, {{r2, 1.0}}, kUnbounded, 1.0, "b", {}}, 0);
  s.solve(0);
  EXPECT_EQ(s.solves(), before + 1);
}

TEST(FluidSolver, UpdateFlowChangesRateAndKeepsProgress) {
  // 100 units at 10/s for 2 s leaves 80; the demand doubles (2 B per unit on a 10 B/s resource),
  // so the rate halves to 5/s: finishes 16 s later, at 18 s.
  FluidSolver s;
  const ResourceId r = s.add_resource("r", 10.0);
  const FlowId f = s.add_flow(FlowSpec{100.0, {{r, 1.0}}, kUnbounded, 1.0, "f", {}}, 0);
  s.solve(0);
  s.update_flow(f, {{r, 2.0}}, kUnbounded, s_to_ps(2.0));
  auto next = s.next_completion(s_to_ps(2.0));
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->first, s_to_ps(18.0));
}

TEST(FluidSolver, RejectsInvalidFlows) {
  FluidSolver s;
  const ResourceId r = s.add_resource("r", 10.0);
  EXPECT_THROW(s.add_flow(FlowSpec{0.0, {{r, 1.0}}, kUnbounded, 1.0, "zero", {}}, 0), ModelError);
  EXPECT_THROW(s.add_flow(FlowSpec{1.0, {}, kUnbounded, 1.0, "unbounded", {}}, 0), ModelError);
  EXPECT_THROW(s.add_flow(FlowSpec{1.0, {{7, 1.0}}, kUnbounded, 1.0, "bad resource", {}}, 0), ModelError);
}

TEST(FluidSolver, BoundOnlyFlowRunsAtBound) {
  // Compute-only work: 5 units at 2/s finish at 2.5 s.
  FluidSolver s;
  s.add_flow(FlowSpec{5.0, {}, 2.0, 1.0, "compute", {}}, 0);
  auto next = s.next_completion(0);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->first, s_to_ps(2.5));
}

TEST(FluidSolver, CompletionsComeInTimeThenIndexOrderAfterReRatesAndRemovals) {
  // Bound-only flows of 1 unit each, so a flow completes at 1 / bound seconds:
  //   a (index 0) bound 1 -> 1 s; b (1) bound 2 -> 0.5 s; c (2) bound 1 -> 1 s, re-rated to bound
  //   2 at t = 0 -> 0.5 s; d (3) bound 4 -> 0.25 s, removed; e (4) bound 2 -> 0.5 s;
  //   f bound 4 -> 0.25 s, added after d's removal, so it reuses slot 3.
  // Expected order: f (0.25 s), then b, c, e (0.5 s, ties by index 1 < 2 < 4), then a (1 s).
  FluidSolver s;
  const FlowId a = s.add_flow(FlowSpec{1.0, {}, 1.0, 1.0, "a", {}}, 0);
  const FlowId b = s.add_flow(FlowSpec{1.0, {}, 2.0, 1.0, "b", {}}, 0);
  const FlowId c = s.add_flow(FlowSpec{1.0, {}, 1.0, 1.0, "c", {}}, 0);
  const FlowId d = s.add_flow(FlowSpec{1.0, {}, 4.0, 1.0, "d", {}}, 0);
  const FlowId e = s.add_flow(FlowSpec{1.0, {}, 2.0, 1.0, "e", {}}, 0);
  s.update_flow(c, {}, 2.0, 0);
  s.remove_flow(d, 0);
  const FlowId f = s.add_flow(FlowSpec{1.0, {}, 4.0, 1.0, "f", {}}, 0);
  EXPECT_EQ(f.index, d.index);
  const std::vector<std::pair<FlowId, double>> expected = {{f, 0.25}, {b, 0.5}, {c, 0.5}, {e, 0.5}, {a, 1.0}};
  for (const auto& [flow, seconds] : expected) {
    const auto next = s.next_completion(0);
    ASSERT_TRUE(next.has_value());
    EXPECT_EQ(next->second, flow);
    EXPECT_EQ(next->first, s_to_ps(seconds));
    s.remove_flow(next->second, next->first);
  }
  EXPECT_FALSE(s.next_completion(s_to_ps(1.0)).has_value());
}

TEST(FluidSolver, SharingFlowsAddedOutOfIndexOrderSolveAsOneComponent) {
  // Slots freed and reused out of order: flows x (slot 0), y (slot 1), z (slot 2); y removed and
  // w added (reuses slot 1). w, x, z share r (120 B/s) with equal weights: 40 each; z also uses
  // q (10 B/s), so z is held to 10 and x and w split the remaining 110: 55 each.
  FluidSolver s;
  const ResourceId r = s.add_resource("r", 120.0);
  const ResourceId q = s.add_resource("q", 10.0);
  const FlowId x = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, kUnbounded, 1.0, "x", {}}, 0);
  const FlowId y = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, kUnbounded, 1.0, "y", {}}, 0);
  const FlowId z = s.add_flow(FlowSpec{1.0, {{r, 1.0}, {q, 1.0}}, kUnbounded, 1.0, "z", {}}, 0);
  s.solve(0);
  s.remove_flow(y, 0);
  const FlowId w = s.add_flow(FlowSpec{1.0, {{r, 1.0}}, kUnbounded, 1.0, "w", {}}, 0);
  s.solve(0);
  EXPECT_NEAR(s.rate(x), 55.0, 1e-9);
  EXPECT_NEAR(s.rate(w), 55.0, 1e-9);
  EXPECT_NEAR(s.rate(z), 10.0, 1e-9);
  EXPECT_NEAR(s.load(r), 120.0, 1e-9);
  // Removing z empties q; the rest re-solve without it: 60 each.
  s.remove_flow(z, 0);
  s.solve(0);
  EXPECT_NEAR(s.rate(x), 60.0, 1e-9);
  EXPECT_NEAR(s.rate(w), 60.0, 1e-9);
}

TEST(FluidSolver, ComponentFoundFromAnyDirtyResource) {
  // a uses hbm (100 B/s); b uses hbm and a link (30 B/s), listed after hbm, so a change to b marks
  // the link dirty last. Equal weights: b is held to 30 by the link, a takes the 70 left.
  // Then b needs 2 link bytes per unit: the link allows b 15, a takes 85.
  FluidSolver s;
  const ResourceId hbm = s.add_resource("hbm", 100.0);
  const ResourceId link = s.add_resource("link", 30.0);
  const FlowId a = s.add_flow(FlowSpec{1.0, {{hbm, 1.0}}, kUnbounded, 1.0, "a", {}}, 0);
  const FlowId b = s.add_flow(FlowSpec{1.0, {{hbm, 1.0}, {link, 1.0}}, kUnbounded, 1.0, "b", {}}, 0);
  s.solve(0);
  EXPECT_NEAR(s.rate(a), 70.0, 1e-9);
  EXPECT_NEAR(s.rate(b), 30.0, 1e-9);
  const auto before = s.solves();
  s.update_flow(b, {{hbm, 1.0}, {link, 2.0}}, kUnbounded, 0);
  s.solve(0);
  EXPECT_EQ(s.solves(), before + 1);  // one component, solved once
  EXPECT_NEAR(s.rate(a), 85.0, 1e-9);
  EXPECT_NEAR(s.rate(b), 15.0, 1e-9);
}

}  // namespace
}  // namespace c3sim::engine
