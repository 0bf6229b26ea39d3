// Unit tests for the example policy, run on the CPU against the simulated MI300X node.
#include "size_aware_policy.h"

#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/run/c3_simulator.h"
#include "workloads/paper_catalog.h"

namespace {

c3sim::models::SimOptions fast() {
  c3sim::models::SimOptions o;
  o.attribution = false;
  return o;
}

TEST(SizeAwarePolicy, LargeCollectivesGoToDmaEngines) {
  const auto spec = c3sim::hw::load_hardware("mi300x");
  const auto s = *c3sim::wl::find_paper_scenario("cb4_1G_ag");
  const example::SizeAwarePolicy policy(std::int64_t{256} << 20);
  const c3sim::models::PolicyContext ctx{spec, s, 0, 0};
  EXPECT_EQ(policy.plan(ctx).comm_impl, c3sim::wl::CollectiveImpl::dma);
}

TEST(SizeAwarePolicy, SmallCollectivesGetTheSmallestPartitionAndGoFirst) {
  const auto spec = c3sim::hw::load_hardware("mi300x");
  auto s = *c3sim::wl::find_paper_scenario("cb4_1G_ag");
  s.collective.bytes = std::int64_t{16} << 20;
  const example::SizeAwarePolicy policy(std::int64_t{256} << 20);
  const auto plan = policy.plan(c3sim::models::PolicyContext{spec, s, 0, 0});
  EXPECT_TRUE(plan.comm_first);
  ASSERT_TRUE(plan.comm_cus.has_value());
  EXPECT_EQ(*plan.comm_cus, 8);
  EXPECT_EQ(*plan.gemm_cus, 296);
}

TEST(SizeAwarePolicy, BeatsTheBaselineOnTheSimulatedNode) {
  // The simulator is the device: the custom policy must do better than launching the GEMM first.
  const auto spec = c3sim::hw::load_hardware("mi300x");
  c3sim::models::C3Simulator sim(spec, fast());
  const example::SizeAwarePolicy policy(std::int64_t{256} << 20);
  for (const char* name : {"cb1_896M_ag", "cb4_1G_a2a", "mb1_896M_ag"}) {
    const auto s = *c3sim::wl::find_paper_scenario(name);
    const auto mine = sim.run(s, policy);
    const auto base = sim.run(s, *c3sim::models::make_policy("base", spec));
    EXPECT_LT(mine.total_us, base.total_us) << name;
    EXPECT_EQ(mine.policy, "size_aware");
  }
}

}  // namespace
