// The model reads each per-op parameter (hw::PerOp) through one accessor: an op's own value where the
// file gives one, else the parameter's absent rule, and no other op's value.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/kernels/collective_plan.h"
#include "workloads/collective.h"

namespace c3sim::models {
namespace {

using wl::CollectiveOp;

// MI300X's preset gives the all-gather's (0.95) protocol efficiency and the copying ops' passes
// only: every other op's value is absent.
TEST(PerOpParameters, AbsentValuesFollowEachParametersRule) {
  const hw::NodeSpec mi = hw::load_hardware("mi300x");
  const hw::CollectiveModel& cm = mi.model.collective;
  const double ag_passes = cm.copy_passes[CollectiveOp::all_gather];
  for (const CollectiveOp op : wl::kAllCollectiveOps) {
    SCOPED_TRACE(wl::to_string(op));
    EXPECT_EQ(simple_protocol_efficiency(op, cm), cm.protocol_efficiency[CollectiveOp::all_gather]);
    EXPECT_EQ(partition_rate(op, cm), 1.0);
  }
  // A reduction's passes: the all-gather's plus the share of its passes that reduce.
  EXPECT_EQ(copy_passes_of(CollectiveOp::reduce_scatter, cm), ag_passes + 1);
  EXPECT_EQ(copy_passes_of(CollectiveOp::all_reduce, cm), ag_passes + 0.5);
  EXPECT_EQ(copy_passes_of(CollectiveOp::all_to_all, cm), cm.copy_passes[CollectiveOp::all_to_all]);
}

TEST(PerOpParameters, EachOpReadsOnlyItsOwnValue) {
  const hw::NodeSpec base = hw::load_hardware("mi300x");
  for (const CollectiveOp op : wl::kAllCollectiveOps) {
    SCOPED_TRACE(wl::to_string(op));
    hw::NodeSpec s = base;
    hw::CollectiveModel& cm = s.model.collective;
    cm.protocol_efficiency[op] = 0.625;
    cm.partition_rate[op] = 1.25;
    cm.copy_passes[op] = 3;
    for (const CollectiveOp other : wl::kAllCollectiveOps) {
      const bool own = other == op;
      const hw::CollectiveModel& b = base.model.collective;
      // The all-gather's protocol efficiency is every op's default, so it reaches the ops without one.
      const bool through_default = op == CollectiveOp::all_gather;
      EXPECT_EQ(simple_protocol_efficiency(other, cm),
                own || through_default ? 0.625 : simple_protocol_efficiency(other, b));
      EXPECT_EQ(partition_rate(other, cm), own ? 1.25 : 1.0);
      if (own) {
        EXPECT_EQ(copy_passes_of(other, cm), 3.0);
      }
      // The plan carries the accessor's value.
      const CollectivePlan p =
          plan_collective({other, 1 << 20, wl::CollectiveImpl::cu, {}}, s, 8, std::nullopt);
      EXPECT_EQ(p.copy_passes, copy_passes_of(other, cm));
      EXPECT_EQ(p.reduction, wl::op_traits(other).reduces);
    }
  }
}

}  // namespace
}  // namespace c3sim::models
