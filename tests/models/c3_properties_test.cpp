// Properties every C3 prediction must satisfy, whatever the parameters.
#include <gtest/gtest.h>

#include <algorithm>

#include "hardware/hardware_loader.h"
#include "models/policies/policy.h"
#include "models/run/c3_simulator.h"
#include "tests/models/model_test_util.h"
#include "workloads/paper_catalog.h"

namespace c3sim::models {
namespace {

using testing::timing_only;

const std::vector<std::string> kScenarios = {"cb1_896M_ag", "mb1_896M_a2a", "cb4_1G_ag", "cb3_512M_a2a"};

TEST(C3Properties, MoreDmaEngineBandwidthNeverSlowsADmaRun) {
  // Every Table II scenario. To first order a collective's cost to the GEMM scales with the bytes
  // it moves, not with how fast it moves them. The tolerance admits the second-order remainder: a
  // slower engine's rate sags while the GEMM loads memory hardest and so yields to it, which a
  // faster engine with headroom does not (worst on the preset: 1.4e-5 of the run, cb1_896M_ag, with
  // the DMA-Latte launch costs; 3.3e-6 with the former 5 us + 35 us fit). On the grounded preset
  // (issue 14) with the local-block copy on the engines, no scenario is slower with faster engines
  // (20 -> 46 -> 60 -> 120 GB/s: largest step +0.0); before that copy, G-long scenarios with a
  // short collective were 1.9e-3 slower at 46 than at 20 GB/s.
  for (const wl::Scenario& s : wl::paper_scenarios()) {
    double previous = 1e300;
    for (const char* bw : {"20 GB/s", "46 GB/s", "60 GB/s", "120 GB/s"}) {
      hw::NodeSpec spec = hw::load_hardware("mi300x");
      hw::set_field(spec, "model.dma.engine_bandwidth", bw);
      C3Simulator sim(spec, timing_only());
      const double t = sim.run(s, *make_policy("dma", spec)).total_us;
      EXPECT_LE(t, previous * (1 + 3e-5)) << s.name << " at " << bw;
      previous = t;
    }
  }
}

TEST(C3Properties, MoreCusNeverSlowTheCollectiveAlone) {
  C3Simulator sim(hw::load_hardware("mi300x"), timing_only());
  for (auto op : {wl::CollectiveOp::all_gather, wl::CollectiveOp::all_to_all}) {
    for (std::int64_t bytes : {std::int64_t{8} << 20, std::int64_t{1} << 30}) {
      const wl::Collective c{op, bytes, wl::CollectiveImpl::cu, {}};
      double previous = 1e300;
      for (int w : {8, 16, 32, 64, 128, 256}) {
        const double t = sim.iso_coll(c, 8, w).time_us;
        EXPECT_LE(t, previous * (1 + 1e-9)) << wl::to_string(op) << " " << bytes << " with " << w;
        previous = t;
      }
    }
  }
}

TEST(C3Properties, ConcurrentTimeNeverBeatsTheBestIsolatedTimes) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  C3Simulator sim(spec, timing_only());
  for (const auto& name : kScenarios) {
    const wl::Scenario s = *wl::find_paper_scenario(name);
    // Best isolated GEMM over every CU count a policy can leave it, best collective of either kind.
    double gemm_best = sim.iso_gemm(s.gemm).time_us;
    for (int cus : rp_sweep_cus(spec))
      gemm_best = std::min(gemm_best, sim.iso_gemm(s.gemm, 304 - cus).time_us);
    wl::Collective dma = s.collective;
    dma.impl = wl::CollectiveImpl::dma;
    const double coll_best = std::min(sim.iso_coll(s.collective, 8).time_us, sim.iso_coll(dma, 8).time_us);
    for (const char* p : {"base", "sp", "prio", "rp:64", "sp_rp:32", "dma", "dma_rp:8"}) {
      const C3Result r = sim.run(s, *make_policy(p, spec));
      EXPECT_GE(r.total_us, std::max(gemm_best, coll_best) * (1 - 1e-9)) << name << " " << p;
    }
  }
}

TEST(C3Properties, PerWorkgroupFidelityAgreesWithCohorts) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  SimOptions per_wg = timing_only();
  per_wg.max_cohort_size = 1;
  C3Simulator cohorts(spec, timing_only());
  C3Simulator single(spec, per_wg);
  const wl::Scenario s = *wl::find_paper_scenario("cb1_896M_ag");
  EXPECT_NEAR(single.iso_gemm(s.gemm).time_us, cohorts.iso_gemm(s.gemm).time_us,
              1e-6 * cohorts.iso_gemm(s.gemm).time_us);
  // Concurrent runs differ by two granularities, which add. (1) Memory queueing: a cohort's
  // stall is read from the other kernels' load when it starts or when that load moves by more
  // than a point (memory_load_observer.cpp), per workgroup at every start; within 1% (grounded
  // preset: sp 0.65%, dma 0.98%; with every stall fraction zero both agree to the bit). (2) Under
  // base only, the later kernel's share of the CUs a GEMM wave frees is split per cohort instead of
  // per workgroup: 0.68% with the stalls off (`c3sim run --per-workgroup` beside the default,
  // cb1_896M_ag, stall fractions 0). Base's bound is the sum, 1% + 0.7% (measured 1.24%).
  for (const char* p : {"base", "sp", "dma"}) {
    const double a = cohorts.run(s, *make_policy(p, spec)).total_us;
    const double b = single.run(s, *make_policy(p, spec)).total_us;
    EXPECT_NEAR(a, b, (std::string(p) == "base" ? 0.017 : 0.01) * a) << p;
  }
}

TEST(C3Properties, RunsAreDeterministic) {
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  const wl::Scenario s = *wl::find_paper_scenario("mb1_4G_a2a");
  C3Simulator a(spec);
  C3Simulator b(spec);
  const C3Result ra = a.run(s, *make_policy("sp", spec));
  const C3Result rb = b.run(s, *make_policy("sp", spec));
  EXPECT_EQ(ra.total_us, rb.total_us);
  EXPECT_EQ(ra.gemm_attribution->cache_us, rb.gemm_attribution->cache_us);
}

TEST(C3Properties, BasePolicyLetsTheEarlierGemmClaimFreedCus) {
  // GEMM launched first takes every CU. The collective's first workgroup waits at least one GEMM
  // wave, and how much of each freed wave it wins is the dispatcher's later_kernel_share.
  hw::NodeSpec spec = hw::load_hardware("mi300x");
  const wl::Scenario s = *wl::find_paper_scenario("cb1_896M_ag");
  auto run = [&](double share, const char* policy) {
    spec.model.dispatch.later_kernel_share = share;
    return C3Simulator(spec).run(s, *make_policy(policy, spec));
  };
  const C3Result sp = run(0.03, "sp");
  const C3Result base = run(0.03, "base");
  EXPECT_LT(sp.coll_attribution->dispatch_delay_us, 1.0);
  EXPECT_GT(base.coll_attribution->dispatch_delay_us, 100.0);
  EXPECT_GT(base.coll_us, sp.coll_us + base.coll_attribution->dispatch_delay_us);
  EXPECT_LT(sp.total_us, base.total_us);
  // Share 0: the collective waits for the GEMM's last dispatch (its tail).
  const C3Result starved = run(0.0, "base");
  EXPECT_GT(starved.coll_attribution->dispatch_delay_us, 0.5 * starved.iso_gemm_us);
  EXPECT_GE(starved.total_us, base.total_us);
  // Fair round robin: about one GEMM wave of delay, then as good as sp.
  const C3Result fair = run(0.5, "base");
  EXPECT_LT(fair.total_us, base.total_us);
  EXPECT_LT(fair.total_us, sp.total_us + 1.2 * fair.coll_attribution->dispatch_delay_us);
}

TEST(C3Properties, HopperPresetsArePlausible) {
  C3Simulator sim(hw::load_hardware("h200-sxm"), timing_only());
  const wl::Gemm g{"", 8192, 8192, 8192, hw::Dtype::bf16, ""};
  const double tflops = g.flops() / sim.iso_gemm(g).time_us * 1e-6;
  EXPECT_NEAR(tflops, 790.0, 79.0);
  // All-gather bandwidth at large sizes is bounded by NVLink (450 GB/s per direction per GPU).
  const wl::Collective ag{wl::CollectiveOp::all_gather, std::int64_t{4} << 30, wl::CollectiveImpl::cu, {}};
  const IsoCollResult r = sim.iso_coll(ag, 8);
  const double sent_gbps = r.bytes_sent / (r.time_us * 1e-6) * 1e-9;
  EXPECT_LE(sent_gbps, 450.0);
  EXPECT_GE(sent_gbps, 300.0);
}

}  // namespace
}  // namespace c3sim::models
