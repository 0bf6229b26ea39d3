// DMA-engine architecture what-ifs (issue 17): each launch, arithmetic, memory-side and placement
// mechanism against a hand-derived time, monotonicity of DMA policies in engine speed, latencies and
// engine count, channel partitioning's shares, and which policies the hardware can run.
//
// Every test pins the fields it derives from (set_field), so preset refits elsewhere do not move
// the expectations: 8 GPUs, 7 peers, engines at 39 GB/s, links at 48 GB/s, host submission 4.3 us,
// engine start 2.9 us, host-seen completion 2.7 us. An isolated collective has no GEMM, so the
// engines and links are the only limits unless a test says otherwise (7 x 39 GB/s x 2 bytes/byte =
// 546 GB/s of LLC traffic, below the 1.8 TB/s LLC and 4.2 TB/s HBM). The collectives are in place:
// the local block an out-of-place one also copies has its own tests (dma_local_block_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hardware/hardware_fields.h"
#include "hardware/hardware_loader.h"
#include "hardware/hardware_validate.h"
#include "models/node/node_resources.h"
#include "models/policies/policy.h"
#include "models/policies/transform_registry.h"
#include "models/run/c3_simulator.h"
#include "tests/models/model_test_util.h"
#include "workloads/paper_catalog.h"

namespace c3sim::models {
namespace {

constexpr double kArchMiB = 1 << 20;

hw::NodeSpec pinned(const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  hw::NodeSpec s = hw::load_hardware("mi300x");
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"model.dma.engine_bandwidth", "39 GB/s"},
                                                        {"model.collective.link_bandwidth", "48 GB/s"},
                                                        {"model.dma.submit_latency", "4.3 us"},
                                                        {"model.dma.engine_start_latency", "2.9 us"},
                                                        {"model.dma.completion_latency", "2.7 us"},
                                                        {"model.dma.engine_map", "per_peer"},
                                                        {"model.memory.llc_bandwidth", "1.8 TB/s"},
                                                        {"model.memory.hbm_bandwidth", "4.2 TB/s"}}) {
    hw::set_field(s, k, v);
  }
  for (const auto& [k, v] : extra) hw::set_field(s, k, v);
  return s;
}

double iso(const hw::NodeSpec& spec, wl::CollectiveOp op, double bytes,
           wl::CollectiveImpl impl = wl::CollectiveImpl::dma) {
  C3Simulator sim(spec, testing::timing_only());
  return sim.iso_coll(wl::Collective{op, static_cast<std::int64_t>(bytes), impl, {}, true}, 8).time_us;
}

// One 1 MiB all-gather: 7 transfers of 1 MiB / 8 = 131072 B, each 131072 / 39e9 = 3.3608 us.
constexpr double kChunkUs = 131072 / 39e3;

TEST(DmaLaunch, HostDrivenSubmissionsAreSerialOnTheHostThread) {
  // 7 submissions of 4.3 us, then engine start, copy, host-seen completion:
  // 30.1 + 2.9 + 3.3608 + 2.7 = 39.06 us.
  EXPECT_NEAR(iso(pinned(), wl::CollectiveOp::all_gather, kArchMiB), 30.1 + 2.9 + kChunkUs + 2.7, 1e-3);
}

TEST(DmaLaunch, GpuInitiatedQueuesFillInParallel) {
  // One GPU writer per engine queue, one transfer per queue: 1 us + 2.9 + 3.3608 + 2.7 = 9.96 us.
  const auto s = pinned({{"model.dma.gpu_initiated", "true"}, {"model.dma.gpu_submit_latency", "1 us"}});
  EXPECT_NEAR(iso(s, wl::CollectiveOp::all_gather, kArchMiB), 1 + 2.9 + kChunkUs + 2.7, 1e-3);
  // And the completion polled on the GPU (0.5 us) instead of seen by the host: 7.76 us.
  auto p = s;
  hw::set_field(p, "model.dma.gpu_polled_completion", "true");
  hw::set_field(p, "model.dma.gpu_completion_latency", "0.5 us");
  EXPECT_NEAR(iso(p, wl::CollectiveOp::all_gather, kArchMiB), 1 + 2.9 + kChunkUs + 0.5, 1e-3);
}

TEST(DmaLaunch, PrelaunchedQueuesNeedOneTrigger) {
  // One host trigger releases the 7 recorded copies: 4.3 + 2.9 + 3.3608 + 2.7 = 13.26 us.
  const auto s = pinned({{"model.dma.prelaunched", "true"}});
  const double t = iso(s, wl::CollectiveOp::all_gather, kArchMiB);
  EXPECT_NEAR(t, 4.3 + 2.9 + kChunkUs + 2.7, 1e-3);
  // DMA-Latte: pre-launching speeds up small all-gathers 2.3-3.6x.
  const double speedup = iso(pinned(), wl::CollectiveOp::all_gather, kArchMiB) / t;
  EXPECT_GT(speedup, 2.3);
  EXPECT_LT(speedup, 3.6);
}

TEST(DmaLaunch, BatchedDescriptorsPayOnePerDoorbell) {
  // 4 transfers per submission: 7 transfers take ceil(7/4) = 2 submissions, the last ready at
  // 8.6 us: 8.6 + 2.9 + 3.3608 + 2.7 = 17.56 us.
  const auto s = pinned({{"model.dma.transfers_per_doorbell", "4"}});
  EXPECT_NEAR(iso(s, wl::CollectiveOp::all_gather, kArchMiB), 8.6 + 2.9 + kChunkUs + 2.7, 1e-3);
}

TEST(DmaPlacement, AllOnOneEngineSerializesThePeers) {
  // 1 GiB all-gather: 7 x 128 MiB through one 39 GB/s engine take 7 x 134217728 / 39e9 = 24090 us
  // against 3441 us on one engine per peer, 1/7 = 0.143 of the throughput (DMA-Latte: 0.13-0.16x).
  const double per_peer = iso(pinned(), wl::CollectiveOp::all_gather, 1024 * kArchMiB);
  const double one =
      iso(pinned({{"model.dma.engine_map", "all_on_one"}}), wl::CollectiveOp::all_gather, 1024 * kArchMiB);
  EXPECT_NEAR(one, 7 * 134217728 / 39e3, 0.002 * one);
  EXPECT_NEAR(per_peer / one, 1.0 / 7, 0.01);
}

TEST(DmaReduction, EnginesWithoutAReductionUnitCannotRunReduceScatter) {
  C3Simulator sim(pinned(), testing::timing_only());
  const wl::Collective rs{wl::CollectiveOp::reduce_scatter, 64 << 20, wl::CollectiveImpl::dma, {}};
  EXPECT_THROW((void)sim.iso_coll(rs, 8), ModelError);
}

TEST(DmaReduction, ReduceScatterRunsAtTheSlowerOfCopyAndReduce) {
  // Output shard 64 MiB: each peer gets my 64 MiB contribution, summed by its engine at
  // min(39, 16) = 16 GB/s: 30.1 + 2.9 + 67108864 / 16e9 (4194.30 us) + 2.7 = 4230.0 us.
  const auto slow = pinned({{"spec.dma.reduce_bandwidth", "16 GB/s"}});
  EXPECT_NEAR(iso(slow, wl::CollectiveOp::reduce_scatter, 64 * kArchMiB), 30.1 + 2.9 + 67108864 / 16e3 + 2.7,
              0.01);
  // A reduction unit faster than the copy path leaves the engine's 39 GB/s: 1720.7 us of copy.
  const auto fast = pinned({{"spec.dma.reduce_bandwidth", "64 GB/s"}});
  EXPECT_NEAR(iso(fast, wl::CollectiveOp::reduce_scatter, 64 * kArchMiB), 30.1 + 2.9 + 67108864 / 39e3 + 2.7,
              0.01);
}

TEST(DmaReduction, AllReduceIsAReducePhaseThenAGatherPhase) {
  // 64 MiB all-reduce: shards of 8 MiB to each peer, 8388608 / 39e9 = 215.09 us a phase. Each
  // phase: 7 host submissions + engine start + copy + the host seeing it end:
  // 2 x (30.1 + 2.9 + 215.09 + 2.7) = 501.58 us.
  const auto s = pinned({{"spec.dma.reduce_bandwidth", "64 GB/s"}});
  EXPECT_NEAR(iso(s, wl::CollectiveOp::all_reduce, 64 * kArchMiB), 2 * (30.1 + 2.9 + 8388608 / 39e3 + 2.7),
              0.01);
}

TEST(DmaReduction, HybridAllReduceIsACuReduceScatterThenADmaGather) {
  // The CU reduce-scatter of the 8 MiB shards, the host seeing its end (2.7 us), then the DMA
  // all-gather of the shards: 30.1 + 2.9 + 215.09 + 2.7 us.
  const auto s = pinned();
  const double cu_rs = iso(s, wl::CollectiveOp::reduce_scatter, 8 * kArchMiB, wl::CollectiveImpl::cu);
  const double hybrid = iso(s, wl::CollectiveOp::all_reduce, 64 * kArchMiB, wl::CollectiveImpl::dma_hybrid);
  EXPECT_NEAR(hybrid, cu_rs + 2.7 + 30.1 + 2.9 + 8388608 / 39e3 + 2.7, 0.01);
}

TEST(DmaMemory, WriteBackProducerNeedsAnL2FlushFirst) {
  // The producer's 131072 dirty bytes (my shard, well under the L2s) written back at 100 GB/s:
  // 1.31072 us before the first submission.
  const auto s = pinned({{"model.dma.l2_flush_bandwidth", "100 GB/s"}});
  EXPECT_NEAR(iso(s, wl::CollectiveOp::all_gather, kArchMiB), 1.31072 + 30.1 + 2.9 + kChunkUs + 2.7, 1e-3);
}

TEST(DmaMemory, ChannelPartitionGivesEachSideAtMostItsShare) {
  const auto s = pinned({{"model.memory.collective_channel_share", "0.25"}});
  engine::Simulation sim;
  const NodeResources res(sim, s, false);
  const auto& g = res.memory(KernelClass::gemm);
  const auto& c = res.memory(KernelClass::comm);
  EXPECT_NE(g.hbm, c.hbm);
  EXPECT_DOUBLE_EQ(sim.solver().capacity(g.hbm), 0.75 * 4.2e12);
  EXPECT_DOUBLE_EQ(sim.solver().capacity(c.hbm), 0.25 * 4.2e12);
  EXPECT_DOUBLE_EQ(sim.solver().capacity(g.llc), 0.75 * 1.8e12);
  EXPECT_DOUBLE_EQ(sim.solver().capacity(c.llc), 0.25 * 1.8e12);
  EXPECT_EQ(g.l2, c.l2);  // the XCD L2s and fabric stay shared
  // A 1 GiB all-gather on a quarter of the LLC (450 GB/s), its 7 copies pre-launched so they start
  // together: 7 flows x 2 LLC bytes per byte share it, 32.14 GB/s each, below the 39 GB/s
  // engines: 4.3 + 2.9 + 134217728 / 32.142857e9 (4175.7 us) + 2.7.
  auto p = s;
  hw::set_field(p, "model.dma.prelaunched", "true");
  const double t = iso(p, wl::CollectiveOp::all_gather, 1024 * kArchMiB);
  EXPECT_NEAR(t, 4.3 + 2.9 + 134217728 / (450e3 / 14) + 2.7, 0.01);
}

TEST(DmaFields, ImpossibleValuesAreInputErrors) {
  hw::NodeSpec s = pinned();
  EXPECT_THROW(hw::set_field(s, "model.dma.transfers_per_doorbell", "0"), InputError);
  EXPECT_THROW(hw::set_field(s, "spec.dma.reduce_bandwidth", "-1 GB/s"), InputError);
  EXPECT_THROW(hw::set_field(s, "model.dma.gpu_submit_latency", "3 GB/s"), InputError);  // wrong unit
  EXPECT_THROW(hw::set_field(s, "model.dma.memory_priority", "0"), InputError);
  hw::set_field(s, "model.memory.collective_channel_share", "1");
  EXPECT_THROW(hw::validate(s), InputError);  // leaves the GEMM no channel
}

TEST(DmaMemory, StreamingWritesTakeHalfTheLlcTraffic) {
  // Same quarter-LLC partition, writes bypassing the LLC: 1 LLC byte per byte, 450 / 7 = 64.3 GB/s
  // a flow, so the 39 GB/s engines bind again: 30.1 + 2.9 + 3441.5 + 2.7 us.
  const auto s =
      pinned({{"model.memory.collective_channel_share", "0.25"}, {"model.dma.llc_bypass", "true"}});
  EXPECT_NEAR(iso(s, wl::CollectiveOp::all_gather, 1024 * kArchMiB), 30.1 + 2.9 + 134217728 / 39e3 + 2.7,
              0.5);
}

// C3 runs of the dma policy on six paper scenarios (both collectives, every taxonomy class).
double c3_dma_total(const hw::NodeSpec& spec, const wl::Scenario& sc) {
  C3Simulator sim(spec, testing::timing_only());
  return sim.run_timing(sc, *make_policy("dma", spec)).total_us;
}

const std::vector<std::string>& probe_scenarios() {
  static const std::vector<std::string> names{"mb1_896M_ag",   "cb4_512M_a2a", "cb2_3.25G_ag",
                                              "mb2_26.5G_a2a", "cb1_896M_a2a", "cb5_13G_ag"};
  return names;
}

// Better hardware never makes the dma policy slower, to 1e-4 of the run: the only way back is the
// second-order yield through the GEMM's memory-load feedback (measured at most a few 1e-6).
void expect_not_slower(const std::vector<std::pair<std::string, std::string>>& worse,
                       const std::vector<std::pair<std::string, std::string>>& better) {
  for (const auto& name : probe_scenarios()) {
    const wl::Scenario sc = *wl::find_paper_scenario(name);
    const double w = c3_dma_total(pinned(worse), sc);
    const double b = c3_dma_total(pinned(better), sc);
    EXPECT_LE(b, w * (1 + 1e-4)) << name << ": " << better.front().first;
  }
}

TEST(DmaMonotonicity, FasterEnginesLowerLatenciesAndMoreEnginesNeverSlowDma) {
  expect_not_slower({{"model.dma.engine_bandwidth", "30 GB/s"}}, {{"model.dma.engine_bandwidth", "45 GB/s"}});
  expect_not_slower({{"model.dma.submit_latency", "10 us"}}, {{"model.dma.submit_latency", "1 us"}});
  expect_not_slower({{"model.dma.engine_start_latency", "5 us"}},
                    {{"model.dma.engine_start_latency", "0 us"}});
  expect_not_slower({{"model.dma.completion_latency", "20 us"}}, {{"model.dma.completion_latency", "1 us"}});
  expect_not_slower({{"model.dma.engine_map", "round_robin"}, {"spec.dma.engines", "7"}},
                    {{"model.dma.engine_map", "round_robin"}, {"spec.dma.engines", "14"}});
  expect_not_slower({{"model.dma.gpu_initiated", "false"}},
                    {{"model.dma.gpu_initiated", "true"}, {"model.dma.gpu_submit_latency", "1 us"}});
}

TEST(DmaPolicies, AReductionOnCopyOnlyEnginesIsAnInputErrorNamingScenarioAndPolicy) {
  const auto spec = pinned();
  wl::Scenario sc = *wl::find_paper_scenario("mb1_896M_ag");
  sc.name = "my_rs";
  sc.collective.op = wl::CollectiveOp::reduce_scatter;
  try {
    check_policy_runs(builtin_registry().parse("dma_rp_best", {}), sc, spec, SourceLocation{"f.yaml", 3, 1});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("my_rs"), std::string::npos) << what;
    EXPECT_NE(what.find("dma_rp_best"), std::string::npos) << what;
  }
  EXPECT_FALSE(
      policy_unsupported(builtin_registry().parse("hybrid_ar", {}), wl::CollectiveOp::all_gather, spec)
          .empty());
  EXPECT_TRUE(
      policy_unsupported(builtin_registry().parse("hybrid_ar", {}), wl::CollectiveOp::all_reduce, spec)
          .empty());
  EXPECT_TRUE(
      policy_unsupported(builtin_registry().parse("dma", {}), wl::CollectiveOp::all_gather, spec).empty());
  const auto reducing = pinned({{"spec.dma.reduce_bandwidth", "32 GB/s"}});
  EXPECT_TRUE(
      policy_unsupported(builtin_registry().parse("dma", {}), wl::CollectiveOp::reduce_scatter, reducing)
          .empty());
}

TEST(DmaPolicies, AllExpandsToWhatTheHardwareCanRun) {
  const auto has = [](const std::vector<std::string>& v, const std::string& n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  const auto copy_only = standard_policy_names(wl::CollectiveOp::all_reduce, pinned());
  EXPECT_FALSE(has(copy_only, "dma"));
  EXPECT_FALSE(has(copy_only, "dma_rp_best"));
  EXPECT_TRUE(has(copy_only, "hybrid_ar"));
  EXPECT_TRUE(has(copy_only, "sp"));
  const auto reducing =
      standard_policy_names(wl::CollectiveOp::all_reduce, pinned({{"spec.dma.reduce_bandwidth", "32 GB/s"}}));
  EXPECT_TRUE(has(reducing, "dma"));
  EXPECT_EQ(standard_policy_names(wl::CollectiveOp::all_gather, pinned()), standard_policy_names());
}

}  // namespace
}  // namespace c3sim::models
