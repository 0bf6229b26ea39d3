// The CU collective's protocol chosen by size (models/kernels/collective_plan.h), with hand-derived
// crossovers, and the all-reduce latencies it gives against rccl-tests.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/kernels/collective_plan.h"
#include "models/run/c3_simulator.h"

namespace c3sim::models {
namespace {

constexpr std::int64_t MiB = std::int64_t{1} << 20;

wl::Collective all_reduce(std::int64_t bytes) {
  return {wl::CollectiveOp::all_reduce, bytes, wl::CollectiveImpl::cu, {}};
}

// MI300X, 8 GPUs, ring all-reduce: 14 steps, 2 x 7/8 x S sent over 7 x 48 GB/s = 336 GB/s.
//   LL:     14 x 0.5 us + 1.75 S / (336 GB/s x 0.5)
//   simple: 14 x 3.6 us + 1.75 S / (336 GB/s x 0.95)
// equal where 1.75 S (1/168 - 1/319.2) / 1e9 = 43.4 us: S = 8.79e6 B (8.4 MiB).
TEST(CollectiveProtocol, SmallMessagesGoLowLatencyLargeOnesSimple) {
  const hw::NodeSpec mi = hw::load_hardware("mi300x");
  const CollectivePlan small = plan_collective(all_reduce(8 * MiB), mi, 8, std::nullopt);
  EXPECT_STREQ(small.protocol, "ll");
  EXPECT_EQ(small.steps, 14);
  EXPECT_DOUBLE_EQ(small.step_latency, 0.5e-6);
  EXPECT_DOUBLE_EQ(small.link_efficiency, 0.5);
  const CollectivePlan large = plan_collective(all_reduce(9 * MiB), mi, 8, std::nullopt);
  EXPECT_STREQ(large.protocol, "simple");
  EXPECT_DOUBLE_EQ(large.step_latency, 3.6e-6);
  EXPECT_DOUBLE_EQ(large.link_efficiency, 0.95);
}

TEST(CollectiveProtocol, WithoutAnLlProtocolEverySizeIsSimple) {
  hw::NodeSpec h200 = hw::load_hardware("h200-sxm-x4");
  h200.model.collective.ll_protocol_efficiency = 0;  // the file without its LL data
  for (std::int64_t b : {std::int64_t{1024}, MiB, 1024 * MiB}) {
    EXPECT_STREQ(plan_collective(all_reduce(b), h200, 4, std::nullopt).protocol, "simple") << b;
  }
}

// rccl-tests on 8 x MI300X (ROCm xGMI blog): 1 KiB 13.1 us (flat to 128 KiB), 1 MiB 27.4 us.
// 1 KiB: 6 us launch + 14 x 0.5 us + ~0 = 13.0 us. 1 MiB (not a fitted point): 6 + 7 +
// 1.75 x 1 MiB / 168 GB/s = 23.9 us, within 15% of 27.4.
TEST(CollectiveProtocol, SmallAllReducesPayOneLatencyPerCollective) {
  C3Simulator sim(hw::load_hardware("mi300x"));
  EXPECT_NEAR(sim.iso_coll(all_reduce(1024), 8).time_us, 13.0, 0.2);
  EXPECT_NEAR(sim.iso_coll(all_reduce(128 * 1024), 8).time_us, 13.0 + 1.75 * 131072 / 168e3, 0.3);
  EXPECT_NEAR(sim.iso_coll(all_reduce(MiB), 8).time_us, 23.9, 0.3);
}

}  // namespace
}  // namespace c3sim::models
