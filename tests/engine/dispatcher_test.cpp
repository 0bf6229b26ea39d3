// Dispatcher: occupancy, CU masks, priorities, wave counts, strict XCD round-robin, starvation.
#include "sim/engine/gpu_dispatcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "sim/base/errors.h"

namespace c3sim::engine {
namespace {

// Each workgroup is `seconds` of pure compute (a bound-only flow).
class FixedTimeModel final : public WorkgroupModel {
public:
  explicit FixedTimeModel(double seconds) : seconds_(seconds) {}
  CohortWork cohort_work(const CohortContext& ctx) override {
    contexts.push_back(ctx);
    return CohortWork{1.0, {}, 1.0 / seconds_, 0};
  }
  std::vector<CohortContext> contexts;

private:
  double seconds_;
};

struct Rig {
  Simulation sim;
  GpuDispatcher gpu;
  explicit Rig(GpuConfig c) : gpu(sim, c) {}
};

TEST(GpuDispatcher, WaveCountFromOccupancy) {
  // 2 XCDs x 4 CUs, one workgroup per CU: 20 workgroups of 1 ms need ceil(20 / 8) = 3 waves.
  Rig r(GpuConfig{0, 2, 4, 1, 1 << 30});
  const StreamId s = r.gpu.add_stream({"s", 0, {}});
  TimePs done = -1;
  r.gpu.launch(s, KernelDesc{"k", 20, 1, 0, {0, KernelKind::gemm}}, std::make_shared<FixedTimeModel>(1e-3),
               [&](TimePs t) { done = t; });
  r.sim.run();
  EXPECT_EQ(done, s_to_ps(3e-3));
}

TEST(GpuDispatcher, RunningKernelsAreThoseWithWorkgroupsResident) {
  // 1 XCD x 4 CUs. Stream a: kernel 0 (4 workgroups of 1 ms, the whole GPU) then kernel 2; stream
  // b: kernel 1 (1 workgroup), which waits for a CU until kernel 0 ends at 1 ms.
  Rig r(GpuConfig{0, 1, 4, 1, 1 << 30});
  const StreamId a = r.gpu.add_stream({"a", 0, {}});
  const StreamId b = r.gpu.add_stream({"b", 0, {}});
  auto model = std::make_shared<FixedTimeModel>(1e-3);
  std::vector<std::vector<KernelId>> seen;  // running kernels at each residency change
  r.gpu.set_residency_listener([&](GpuDispatcher& g) { seen.push_back(g.running_kernels()); });
  r.gpu.launch(a, KernelDesc{"k0", 4, 1, 0, {0, KernelKind::gemm}}, model, nullptr);
  r.gpu.launch(b, KernelDesc{"k1", 1, 1, 0, {1, KernelKind::gemm}}, model, nullptr);
  r.gpu.launch(a, KernelDesc{"k2", 2, 1, 0, {2, KernelKind::gemm}}, model, nullptr);
  r.sim.run();
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front(), (std::vector<KernelId>{0}));  // k1 waits: no CU free
  // At 1 ms k0's CUs go to k1 and k2 together (ascending ids); at 2 ms both end.
  EXPECT_NE(std::find(seen.begin(), seen.end(), std::vector<KernelId>{1, 2}), seen.end());
  EXPECT_TRUE(seen.back().empty());
  EXPECT_TRUE(r.gpu.running_kernels().empty());
}

TEST(GpuDispatcher, StrictRoundRobinAcrossXcds) {
  // Workgroup i goes to XCD i mod 2: 5 workgroups put 3 on XCD 0 and 2 on XCD 1.
  Rig r(GpuConfig{0, 2, 4, 1, 1 << 30});
  const StreamId s = r.gpu.add_stream({"s", 0, {}});
  auto model = std::make_shared<FixedTimeModel>(1e-3);
  r.gpu.launch(s, KernelDesc{"k", 5, 1, 0, {0, KernelKind::gemm}}, model, nullptr);
  r.sim.run();
  ASSERT_EQ(model->contexts.size(), 2u);
  EXPECT_EQ(model->contexts[0].xcd, 0);
  EXPECT_EQ(model->contexts[0].count, 3);
  EXPECT_EQ(model->contexts[1].xcd, 1);
  EXPECT_EQ(model->contexts[1].count, 2);
}

TEST(GpuDispatcher, SlotsLimitOccupancy) {
  // A CU has 4 slots; workgroups needing 2 slots fit two per CU: 1 XCD x 2 CUs runs 4 at once,
  // so 8 workgroups of 1 ms take 2 ms.
  Rig r(GpuConfig{0, 1, 2, 4, 1 << 30});
  const StreamId s = r.gpu.add_stream({"s", 0, {}});
  TimePs done = -1;
  r.gpu.launch(s, KernelDesc{"k", 8, 2, 0, {0, KernelKind::gemm}}, std::make_shared<FixedTimeModel>(1e-3),
               [&](TimePs t) { done = t; });
  r.sim.run();
  EXPECT_EQ(done, s_to_ps(2e-3));
}

TEST(GpuDispatcher, CuMaskRestrictsPlacement) {
  // Mask allows 1 CU per XCD (2 of 8): 4 workgroups of 1 ms take 2 waves = 2 ms.
  Rig r(GpuConfig{0, 2, 4, 1, 1 << 30});
  const StreamId s = r.gpu.add_stream({"s", 0, CuMask::per_xcd(2, 4, 1, true)});
  TimePs done = -1;
  r.gpu.launch(s, KernelDesc{"k", 4, 1, 0, {0, KernelKind::gemm}}, std::make_shared<FixedTimeModel>(1e-3),
               [&](TimePs t) { done = t; });
  r.sim.run();
  EXPECT_EQ(done, s_to_ps(2e-3));
}

// Kernel A (a_wgs x 1 ms) on 1 XCD x `cus` CUs, then B (b_wgs x 1 ms) arriving just after at equal
// priority. Returns when B's last workgroup finishes.
TimePs later_kernel_finish(int cus, int a_wgs, int b_wgs, double share, int cohort) {
  Rig r(GpuConfig{0, 1, cus, 1, cohort, share});
  const StreamId sa = r.gpu.add_stream({"a", 0, {}});
  const StreamId sb = r.gpu.add_stream({"b", 0, {}});
  TimePs b_done = -1;
  r.gpu.launch(sa, KernelDesc{"A", a_wgs, 1, 0, {0, KernelKind::gemm}},
               std::make_shared<FixedTimeModel>(1e-3), nullptr);
  r.sim.after(1, [&] {
    r.gpu.launch(sb, KernelDesc{"B", b_wgs, 1, 0, {1, KernelKind::cu_collective}},
                 std::make_shared<FixedTimeModel>(1e-3), [&](TimePs t) { b_done = t; });
  });
  r.sim.run();
  return b_done;
}

// A: 40 workgroups on 10 CUs (4 waves); B: 4 workgroups.
TimePs later_kernel_finish(double share, int cohort) { return later_kernel_finish(10, 40, 4, share, cohort); }

TEST(GpuDispatcher, EarlierKernelStarvesLaterOneAtEqualPriority) {
  // 1 XCD x 2 CUs. Kernel A (4 x 1 ms) arrives first and keeps claiming freed CUs; B (1 x 1 ms)
  // arrives just after and only runs once A has nothing pending: A's second wave runs 1-2 ms,
  // so B starts at 2 ms and ends at 3 ms.
  EXPECT_EQ(later_kernel_finish(2, 4, 1, 0.0, 1 << 30), s_to_ps(3e-3));
}

TEST(GpuDispatcher, LaterKernelShareOfFreedSlots) {
  // Share 0: A claims every CU freed until its last wave is out (3-4 ms); B runs 4-5 ms.
  EXPECT_EQ(later_kernel_finish(0.0, 1 << 30), s_to_ps(5e-3));
  // Fair round robin: B wins 5 of the 10 CUs freed at 1 ms, enough for all 4, and ends at 2 ms.
  EXPECT_EQ(later_kernel_finish(0.5, 1 << 30), s_to_ps(2e-3));
  // Share 0.15: 1.5 CUs per freed wave, carried as credit: 1 at 1 ms, 2 at 2 ms (1 + 0.5 owed),
  // the last one at 3 ms, ending at 4 ms; share 0.25 gets 2 + 2 and ends at 3 ms.
  EXPECT_EQ(later_kernel_finish(0.15, 1 << 30), s_to_ps(4e-3));
  EXPECT_EQ(later_kernel_finish(0.25, 1 << 30), s_to_ps(3e-3));
}

TEST(GpuDispatcher, LaterKernelShareDoesNotDependOnCohortSize) {
  for (double share : {0.0, 0.15, 0.25, 0.5}) {
    EXPECT_EQ(later_kernel_finish(share, 1), later_kernel_finish(share, 1 << 30)) << "share " << share;
  }
}

TEST(GpuDispatcher, ShareNeverSplitsACohortWhenMasksDoNotOverlap) {
  // A (masked to CUs 0-2) arrives first, B (masked to CU 3) just after: nothing is contested, so
  // whatever the share, each dispatch round gives each kernel one cohort, exactly as share 0 does.
  auto run = [](double share) {
    Rig r(GpuConfig{0, 1, 4, 1, 1 << 30, share});
    CuMask a_mask = CuMask::none(4);
    for (int cu = 0; cu < 3; ++cu) a_mask.set(cu, true);
    const StreamId sa = r.gpu.add_stream({"a", 0, a_mask});
    const StreamId sb = r.gpu.add_stream({"b", 0, a_mask.complement()});
    auto a = std::make_shared<FixedTimeModel>(1e-3);
    auto b = std::make_shared<FixedTimeModel>(1e-3);
    r.gpu.launch(sa, KernelDesc{"A", 9, 1, 0, {0, KernelKind::gemm}}, a, nullptr);
    r.sim.after(1, [&] {
      r.gpu.launch(sb, KernelDesc{"B", 3, 1, 0, {1, KernelKind::cu_collective}}, b, nullptr);
    });
    r.sim.run();
    return std::make_pair(a->contexts.size(), b->contexts.size());
  };
  EXPECT_EQ(run(0.0), std::make_pair(size_t{3}, size_t{3}));
  EXPECT_EQ(run(0.25), run(0.0));
  EXPECT_EQ(run(0.5), run(0.0));
}

TEST(GpuDispatcher, LaterKernelShareOutsideRangeIsRejected) {
  Simulation sim;
  EXPECT_THROW(GpuDispatcher(sim, GpuConfig{0, 1, 2, 1, 1, 0.6}), ModelError);
  EXPECT_THROW(GpuDispatcher(sim, GpuConfig{0, 1, 2, 1, 1, -0.1}), ModelError);
}

TEST(GpuDispatcher, HigherPriorityTakesFreedSlotsFirst) {
  // Same as above but B is on a high-priority stream: it takes the first freed CU at 1 ms.
  Rig r(GpuConfig{0, 1, 2, 1, 1 << 30});
  const StreamId sa = r.gpu.add_stream({"a", 0, {}});
  const StreamId sb = r.gpu.add_stream({"b", 1, {}});
  TimePs b_done = -1;
  r.gpu.launch(sa, KernelDesc{"A", 4, 1, 0, {0, KernelKind::gemm}}, std::make_shared<FixedTimeModel>(1e-3),
               nullptr);
  r.sim.after(1, [&] {
    r.gpu.launch(sb, KernelDesc{"B", 1, 1, 0, {1, KernelKind::cu_collective}},
                 std::make_shared<FixedTimeModel>(1e-3), [&](TimePs t) { b_done = t; });
  });
  r.sim.run();
  EXPECT_EQ(b_done, s_to_ps(2e-3));
}

TEST(GpuDispatcher, KernelsOnOneStreamRunInOrderAfterLaunchLatency) {
  Rig r(GpuConfig{0, 1, 4, 1, 1 << 30});
  const StreamId s = r.gpu.add_stream({"s", 0, {}});
  TimePs first = -1, second = -1;
  const TimePs lat = us_to_ps(5);
  r.gpu.launch(s, KernelDesc{"k1", 1, 1, lat, {}}, std::make_shared<FixedTimeModel>(1e-3),
               [&](TimePs t) { first = t; });
  r.gpu.launch(s, KernelDesc{"k2", 1, 1, lat, {}}, std::make_shared<FixedTimeModel>(1e-3),
               [&](TimePs t) { second = t; });
  r.sim.run();
  EXPECT_EQ(first, lat + s_to_ps(1e-3));
  EXPECT_EQ(second, 2 * (lat + s_to_ps(1e-3)));
}

TEST(GpuDispatcher, PerWorkgroupModeMatchesCohorts) {
  // Pure compute: splitting cohorts into single workgroups must not change the finish time.
  for (int cohort : {1, 1 << 30}) {
    Rig r(GpuConfig{0, 2, 3, 1, cohort});
    const StreamId s = r.gpu.add_stream({"s", 0, {}});
    TimePs done = -1;
    r.gpu.launch(s, KernelDesc{"k", 13, 1, 0, {0, KernelKind::gemm}}, std::make_shared<FixedTimeModel>(2e-3),
                 [&](TimePs t) { done = t; });
    r.sim.run();
    EXPECT_EQ(done, s_to_ps(6e-3)) << "cohort size " << cohort;  // 13 over 6 CUs: 3 waves
  }
}

TEST(GpuDispatcher, HoldsCusKeepsFreedCusFromHigherPriority) {
  // 1 XCD x 4 CUs. A (holds_cus, 12 workgroups of 1 ms) starts at 0; B (4 of 1 ms) arrives at
  // 0.5 ms on a high-priority stream. A's CUs go back to A as its workgroups finish: A runs three
  // waves, 0-3 ms, and B gets the CUs only when A has nothing pending, 3-4 ms. Without holds_cus B
  // takes the four CUs A frees at 1 ms (1-2 ms) and A finishes 2-4 ms.
  for (bool holds : {true, false}) {
    Rig r(GpuConfig{0, 1, 4, 1, 1 << 30});
    const StreamId sa = r.gpu.add_stream({"a", 0, {}});
    const StreamId sb = r.gpu.add_stream({"b", 1, {}});
    TimePs a_done = -1, b_done = -1;
    r.gpu.launch(sa, KernelDesc{"A", 12, 1, 0, {0, KernelKind::gemm}, holds},
                 std::make_shared<FixedTimeModel>(1e-3), [&](TimePs t) { a_done = t; });
    r.sim.after(s_to_ps(0.5e-3), [&] {
      r.gpu.launch(sb, KernelDesc{"B", 4, 1, 0, {1, KernelKind::cu_collective}},
                   std::make_shared<FixedTimeModel>(1e-3), [&](TimePs t) { b_done = t; });
    });
    r.sim.run();
    EXPECT_EQ(a_done, s_to_ps(holds ? 3e-3 : 4e-3)) << "holds_cus " << holds;
    EXPECT_EQ(b_done, s_to_ps(holds ? 4e-3 : 2e-3)) << "holds_cus " << holds;
  }
}

TEST(GpuDispatcher, HoldsCusLateWorkgroupsTakeWhatIsLeft) {
  // 1 XCD x 4 CUs. B (2 workgroups of 1.5 ms) is launched first and holds 2 CUs until 1.5 ms. A
  // persistent kernel with a shared tile queue (holds_cus, one 1 ms workgroup per tile, 8 tiles)
  // gets the other 2 CUs: tiles run 0-1, 1-2 (its own CUs back), 1.5-2.5 and 2-3 ms (B's two CUs
  // join at 1.5 ms): A ends at 3 ms. The same kernel with a fixed share per workgroup (grid of
  // 4 workgroups x 2 tiles = 2 ms each) ends at 1.5 + 2 = 3.5 ms: two of them start only when B
  // ends.
  for (bool dynamic : {true, false}) {
    Rig r(GpuConfig{0, 1, 4, 1, 1 << 30});
    const StreamId sb = r.gpu.add_stream({"b", 0, {}});
    const StreamId sa = r.gpu.add_stream({"a", 0, {}});
    TimePs a_done = -1;
    r.gpu.launch(sb, KernelDesc{"B", 2, 1, 0, {1, KernelKind::cu_collective}},
                 std::make_shared<FixedTimeModel>(1.5e-3), nullptr);
    if (dynamic) {
      r.gpu.launch(sa, KernelDesc{"A", 8, 1, 0, {0, KernelKind::gemm}, true},
                   std::make_shared<FixedTimeModel>(1e-3), [&](TimePs t) { a_done = t; });
    } else {
      r.gpu.launch(sa, KernelDesc{"A", 4, 1, 0, {0, KernelKind::gemm}},
                   std::make_shared<FixedTimeModel>(2e-3), [&](TimePs t) { a_done = t; });
    }
    r.sim.run();
    EXPECT_EQ(a_done, s_to_ps(dynamic ? 3e-3 : 3.5e-3)) << "dynamic tiles " << dynamic;
  }
}

// Logs the refresh protocol: 'B' for begin_refresh, 'R' for refresh of one cohort.
class RefreshLogModel final : public WorkgroupModel {
public:
  explicit RefreshLogModel(double seconds) : seconds_(seconds) {}
  CohortWork cohort_work(const CohortContext& ctx) override {
    (void)ctx;
    return CohortWork{1.0, {}, 1.0 / seconds_, 0};
  }
  void begin_refresh() override { log += 'B'; }
  std::optional<CohortWork> refresh(const CohortContext& ctx) override {
    (void)ctx;
    log += 'R';
    return std::nullopt;
  }
  std::string log;

private:
  double seconds_;
};

TEST(GpuDispatcher, RefreshRoundBeginsOncePerRunningKernel) {
  // 1 XCD x 2 CUs; the listener refreshes every dispatch. A (2 workgroups of 1 ms) takes both
  // CUs at t = 0 as one cohort; B (2 of 3 ms, other stream) waits for them and runs 1-4 ms. Rounds:
  // t = 0 after A's dispatch (A running: B then R; B has nothing dispatched: not asked), t = 1 ms
  // after A retires and B is placed (A finished: not asked; B: B then R), t = 4 ms (nothing
  // running: nobody asked).
  Rig r(GpuConfig{0, 1, 2, 1, 1 << 30});
  const StreamId sa = r.gpu.add_stream({"a", 0, {}});
  const StreamId sb = r.gpu.add_stream({"b", 0, {}});
  int rounds = 0;
  r.gpu.set_residency_listener([&rounds](GpuDispatcher& g) {
    ++rounds;
    g.refresh_all();
  });
  auto a = std::make_shared<RefreshLogModel>(1e-3);
  auto b = std::make_shared<RefreshLogModel>(3e-3);
  TimePs b_done = -1;
  r.gpu.launch(sa, KernelDesc{"A", 2, 1, 0, {0, KernelKind::gemm}}, a, nullptr);
  r.gpu.launch(sb, KernelDesc{"B", 2, 1, 0, {1, KernelKind::gemm}}, b, [&](TimePs t) { b_done = t; });
  r.sim.run();
  EXPECT_EQ(rounds, 3);
  EXPECT_EQ(a->log, "BR");
  EXPECT_EQ(b->log, "BR");
  EXPECT_EQ(b_done, s_to_ps(4e-3));
}

}  // namespace
}  // namespace c3sim::engine
