// Queueing behind an LLC and HBM (models/node/queueing_utilization.h). Expected values derived by hand
// from  u = (u_llc + (1 - hit)(r - 1) u_hbm) / (hit + (1 - hit) r).
#include <gtest/gtest.h>

#include "models/node/queueing_utilization.h"

namespace c3sim::models {
namespace {

TEST(QueueingUtilization, AllHitsQueueAtTheLlcOnly) {
  // hit = 1: the denominator is 1 and the HBM term vanishes.
  EXPECT_DOUBLE_EQ(queueing_utilization(0.2, 0.9, 1.0, 2.0), 0.2);
}

TEST(QueueingUtilization, MissesSpendTheirExtraLatencyAtHbm) {
  // hit = 0.25, r = 2: (0.1 + 0.75 x 1 x 0.3) / (0.25 + 0.75 x 2) = 0.325 / 1.75 = 0.185714...
  EXPECT_NEAR(queueing_utilization(0.1, 0.3, 0.25, 2.0), 0.325 / 1.75, 1e-15);
  // All misses, r = 2: half the latency at each level, (0.1 + 0.3) / 2.
  EXPECT_NEAR(queueing_utilization(0.1, 0.3, 0.0, 2.0), 0.2, 1e-15);
  // r = 1: an HBM miss costs no more than a hit, so only the LLC's queue counts.
  EXPECT_NEAR(queueing_utilization(0.1, 0.3, 0.0, 1.0), 0.1, 1e-15);
}

TEST(QueueingUtilization, EqualLoadsGiveThatLoad) {
  // u_llc = u_hbm = u: (u (1 + (1 - hit)(r - 1))) / (hit + (1 - hit) r) = u, the numerator's factor
  // equals the denominator.
  EXPECT_NEAR(queueing_utilization(0.4, 0.4, 0.6, 3.0), 0.4, 1e-15);
}

TEST(QueueingUtilization, HitRateOutOfRangeIsClamped) {
  // A collective whose HBM bytes exceed its LLC bytes (reductions) has no LLC hits: hit = 0.
  EXPECT_NEAR(queueing_utilization(0.1, 0.3, -0.5, 2.0), 0.2, 1e-15);
}

}  // namespace
}  // namespace c3sim::models
