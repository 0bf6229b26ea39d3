// The paper's isolated characterization (Section IV-B) must come out of the MI300X mechanisms: these
// bounds are the paper's statements, not fitted outputs. Run on the preset as fitted to the paper
// (examples/mi300x_paper_fit.yaml): with hipBLASLt's XCD remap and the measured cache the grounded
// preset's mb1/mb2 hit their L2 and are compute-bound (README), so the memory-bound resilience and
// Table II's classes no longer follow; Grounded* below checks what holds there.
#include <gtest/gtest.h>

#include <algorithm>

#include "hardware/hardware_loader.h"
#include "models/run/c3_simulator.h"
#include "tests/models/model_test_util.h"
#include "workloads/paper_catalog.h"

namespace c3sim::models {
namespace {

class Mi300x : public ::testing::Test {
protected:
  static C3Simulator& sim() {
    static C3Simulator s(hw::load_hardware(testing::paper_fit_hardware()), testing::timing_only());
    return s;
  }
  static C3Simulator& grounded() {
    static C3Simulator s(hw::load_hardware("mi300x"), testing::timing_only());
    return s;
  }
  static double slowdown(const std::string& tag, int removed) {
    return testing::gemm_slowdown(sim(), tag, removed);
  }
};

TEST_F(Mi300x, GroundedComputeBoundGemmsLose17To30PercentWith64CusTaken) {
  // Paper IV-B1: "compute-bound kernels suffer up to 17-27% slowdowns" for 32-64 CUs taken.
  for (const char* tag : {"cb1", "cb2", "cb3", "cb4", "cb5"}) {
    for (C3Simulator* s : {&sim(), &grounded()}) {
      EXPECT_GE(testing::gemm_slowdown(*s, tag, 64), 1.17) << tag << " " << s->spec().name;
      EXPECT_LE(testing::gemm_slowdown(*s, tag, 64), 1.30) << tag << " " << s->spec().name;
      EXPECT_GE(testing::gemm_slowdown(*s, tag, 32), 1.0) << tag << " " << s->spec().name;
    }
  }
}

TEST_F(Mi300x, MemoryBoundGemmsAreResilientAndCanSpeedUp) {
  double best = 10;
  for (const char* tag : {"mb1", "mb2"}) {
    for (int removed : {8, 16, 32, 64}) {
      EXPECT_LT(slowdown(tag, removed), 1.10) << tag << " -" << removed;
      best = std::min(best, slowdown(tag, removed));
    }
  }
  EXPECT_LT(best, 1.0) << "some memory-bound GEMM should speed up with fewer CUs (paper footnote 3)";
}

// Grounded: model.collective.workgroup_copy_bandwidth is read from these saturation points with the
// measured link rate (32 x 10 GB/s = 64 x 10 / 2 = 7 x 48 x 0.95 GB/s).
TEST_F(Mi300x, GroundedAllGatherSaturatesNear32CusAllToAllNear64) {
  const wl::Collective ag{wl::CollectiveOp::all_gather, std::int64_t{1} << 30, wl::CollectiveImpl::cu, {}};
  const wl::Collective a2a{wl::CollectiveOp::all_to_all, std::int64_t{1} << 30, wl::CollectiveImpl::cu, {}};
  auto t = [&](const wl::Collective& c, int w) { return grounded().iso_coll(c, 8, w).time_us; };
  EXPECT_LT(t(ag, 32), 1.03 * t(ag, 64));
  EXPECT_GT(t(ag, 16), 1.5 * t(ag, 32));
  EXPECT_LT(t(a2a, 64), 1.03 * t(a2a, 128));
  EXPECT_GT(t(a2a, 32), 1.5 * t(a2a, 64));
}

TEST_F(Mi300x, IdealSpeedupsAndTaxonomyMatchTableII) {
  double sum = 0;
  int matches_ag = 0;
  for (const auto& s : wl::paper_scenarios()) {
    const double g = sim().iso_gemm(s.gemm).time_us;
    const double c = sim().iso_coll(s.collective, 8).time_us;
    const double ideal = (g + c) / std::max(g, c);
    EXPECT_GE(ideal, 1.05) << s.name;
    EXPECT_LE(ideal, 2.0) << s.name;
    sum += ideal;
    if (s.collective.op == wl::CollectiveOp::all_gather && wl::classify(g, c) == *s.paper_taxonomy)
      ++matches_ag;
  }
  const double mean = sum / static_cast<double>(wl::paper_scenarios().size());
  EXPECT_GT(mean, 1.45);
  EXPECT_LT(mean, 1.75);
  EXPECT_EQ(matches_ag, 15) << "every all-gather scenario in its Table II class";
}

// Grounded: model.dma.engine_bandwidth is read from Fig. 9's "at par" with the measured RCCL rate.
TEST_F(Mi300x, GroundedDmaCollectivesAreLaunchBoundSmallAndAtParLarge) {
  for (auto op : {wl::CollectiveOp::all_gather, wl::CollectiveOp::all_to_all}) {
    wl::Collective c{op, std::int64_t{1} << 20, wl::CollectiveImpl::cu, {}};
    const double cu_small = grounded().iso_coll(c, 8).time_us;
    c.impl = wl::CollectiveImpl::dma;
    const double dma_small = grounded().iso_coll(c, 8).time_us;
    // Paper Fig. 9: "as much as 4x"; AMD-DMA-Latte: 4.5x (all-gather) / 2.5x (all-to-all). Both
    // sides are grounded now: RCCL's small-message time in rccl-tests (LL protocol below ~1 MiB),
    // the DMA launch costs in DMA-Latte's breakdown (host submissions, engine start, host-seen
    // completion). The ratio is a check on the two, not a target.
    EXPECT_GT(dma_small / cu_small, 1.5);
    EXPECT_LT(dma_small / cu_small, 7.0);
    c.bytes = std::int64_t{1} << 30;
    const double dma_large = grounded().iso_coll(c, 8).time_us;
    c.impl = wl::CollectiveImpl::cu;
    const double cu_large = grounded().iso_coll(c, 8).time_us;
    EXPECT_GT(dma_large / cu_large, 0.80);
    EXPECT_LT(dma_large / cu_large, 1.05);
  }
}

}  // namespace
}  // namespace c3sim::models
