// The local block of an out-of-place collective on copy engines (issue 14): each GPU also copies
// its own block from its input into its slot of the output, HBM-bound, where the implementation
// puts it (models/kernels/dma_collective.h). Hand-derived times on the H200 preset (one copy queue feeding
// every peer) and on MI300X-like per-peer engines, with every launch cost zeroed so the time is
// the transfers' alone; in place there is no local copy.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hardware/hardware_fields.h"
#include "hardware/hardware_loader.h"
#include "hardware/hardware_validate.h"
#include "models/kernels/collective_plan.h"
#include "models/kernels/dma_collective.h"
#include "models/node/interference_state.h"
#include "models/node/node_resources.h"
#include "models/run/c3_simulator.h"
#include "sim/engine/simulation.h"
#include "tests/models/model_test_util.h"
#include "workloads/collective.h"
#include "workloads/program_io.h"
#include "workloads/scenario_io.h"

namespace c3sim::models {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

hw::NodeSpec with(const std::string& preset, const Fields& fields) {
  hw::NodeSpec s = hw::load_hardware(preset);
  for (const auto& [k, v] : fields) hw::set_field(s, k, v);
  hw::validate(s);
  return s;
}

// H200: the port 391 GB/s, a copy queue 2.14 TB/s, HBM 4.3 TB/s (read + write). No launch costs:
// no submission, engine start, completion or sync-kernel time.
hw::NodeSpec h200() {
  return with("h200-sxm-x4", {{"model.collective.link_bandwidth", "391 GB/s"},
                              {"model.dma.engine_bandwidth", "2.14 TB/s"},
                              {"model.memory.hbm_bandwidth", "4.3 TB/s"},
                              {"model.dma.submit_latency", "0 us"},
                              {"model.dma.engine_start_latency", "0 us"},
                              {"model.dma.completion_latency", "0 us"},
                              {"model.collective.launch_latency", "0 us"}});
}

double dma_us(const hw::NodeSpec& spec, wl::CollectiveOp op, std::int64_t bytes, int gpus, bool in_place,
              wl::CollectiveImpl impl = wl::CollectiveImpl::dma) {
  C3Simulator sim(spec, testing::timing_only());
  wl::Collective c{op, bytes, impl, {}, in_place};
  return sim.iso_coll(c, gpus).time_us;
}

TEST(DmaLocalBlock, OnlyOutOfPlaceGatherAndAllToAllMoveTheLocalBlock) {
  const wl::Collective ag{wl::CollectiveOp::all_gather, 8 * kGiB, wl::CollectiveImpl::dma, {}, false};
  EXPECT_DOUBLE_EQ(wl::local_block_bytes(ag, 4), 2.0 * kGiB);  // the 8 GiB output's own quarter
  wl::Collective a2a = ag;
  a2a.op = wl::CollectiveOp::all_to_all;
  EXPECT_DOUBLE_EQ(wl::local_block_bytes(a2a, 2), 4.0 * kGiB);  // the chunk a GPU keeps
  wl::Collective in_place = ag;
  in_place.in_place = true;
  EXPECT_DOUBLE_EQ(wl::local_block_bytes(in_place, 4), 0.0);
  wl::Collective rs = ag;
  rs.op = wl::CollectiveOp::reduce_scatter;  // its own contribution is summed in, not copied
  EXPECT_DOUBLE_EQ(wl::local_block_bytes(rs, 4), 0.0);
}

TEST(DmaLocalBlock, TwoGpuAllGatherCopiesTheLocalBlockAfterThePeer) {
  // 4 GiB all-gather on 2 GPUs: shard 2 GiB = 2147483648 B.
  // Peer: min(queue 2140, port 391, HBM 4300 / 2 bytes per byte) = 391 GB/s: 2147483648 / 391e3 =
  // 5492.29 us. Local, after it on the same queue: min(queue 2140, HBM 4300 / 2 = 2150) = 2140 GB/s:
  // 2147483648 / 2140e3 = 1003.50 us. Out of place 6495.79 us (measured 6.52 ms); in place 5492.29.
  const double shard = 2147483648.0;
  EXPECT_NEAR(dma_us(h200(), wl::CollectiveOp::all_gather, 4 * kGiB, 2, false),
              shard / 391e3 + shard / 2140e3, 0.01);
  EXPECT_NEAR(dma_us(h200(), wl::CollectiveOp::all_gather, 4 * kGiB, 2, true), shard / 391e3, 0.01);
}

TEST(DmaLocalBlock, FourGpuAllGatherCopiesTheLocalBlockAfterThePeers) {
  // 4 GiB on 4 GPUs: shard 1 GiB = 1073741824 B to each of 3 peers, one queue each (3 engines).
  // They share the port: 3 x 130.33 GB/s, all ending at 3 x 1073741824 / 391e3 = 8238.42 us (HBM
  // 3 x 130.33 x 2 = 782 GB/s, far from 4.3 TB/s). Then the local GiB at 2140 GB/s: 501.75 us.
  // Out of place 8740.17 us (measured 8.73 ms); in place 8238.42 us.
  const double shard = 1073741824.0;
  EXPECT_NEAR(dma_us(h200(), wl::CollectiveOp::all_gather, 4 * kGiB, 4, false),
              3 * shard / 391e3 + shard / 2140e3, 0.01);
  EXPECT_NEAR(dma_us(h200(), wl::CollectiveOp::all_gather, 4 * kGiB, 4, true), 3 * shard / 391e3, 0.01);
  // All-to-all moves the same bytes: a distinct 1 GiB chunk to each peer, and the one it keeps.
  EXPECT_NEAR(dma_us(h200(), wl::CollectiveOp::all_to_all, 4 * kGiB, 4, false),
              3 * shard / 391e3 + shard / 2140e3, 0.01);
}

TEST(DmaLocalBlock, BatchedVendorPathCopiesTheLocalBlockFirst) {
  // NCCL's CE all-gather puts the local copy first in its batch: the peers start when it ends.
  // Same bytes as above, so the same 8740.17 us; the order shows in the transfer records.
  const hw::NodeSpec spec = h200();
  const double shard = 1073741824.0;
  EXPECT_NEAR(
      dma_us(spec, wl::CollectiveOp::all_gather, 4 * kGiB, 4, false, wl::CollectiveImpl::vendor_zero_cta),
      3 * shard / 391e3 + shard / 2140e3, 0.01);

  engine::Simulation sim;
  NodeResources res(sim, spec, false);
  InterferenceState state(spec.compute.xcds);
  const wl::Collective ag{
      wl::CollectiveOp::all_gather, 4 * kGiB, wl::CollectiveImpl::vendor_zero_cta, {}, false};
  DmaOptions o;
  o.batched = true;
  DmaCollective dma(sim, res, spec, plan_collective(ag, spec, 4, std::nullopt), state, o);
  TimePs end = 0;
  dma.start([&end](TimePs t) { end = t; });
  sim.run();
  const auto& recs = dma.transfers();
  ASSERT_EQ(recs.size(), 4u);
  const DmaTransferRecord& local = recs.back();
  EXPECT_EQ(local.peer, kLocalBlock);
  EXPECT_EQ(local.start, 0);
  for (size_t i = 0; i + 1 < recs.size(); ++i) EXPECT_EQ(recs[i].start, local.end) << "peer " << i;
  EXPECT_NEAR(ps_to_us(local.end), shard / 2140e3, 0.01);
  EXPECT_NEAR(ps_to_us(end), 3 * shard / 391e3 + shard / 2140e3, 0.01);
}

// MI300X-like per-peer engines, as in dma_sharing_test.cpp: 39 GB/s engines, 48 GB/s links, LLC
// 1.8 TB/s and HBM 4.2 TB/s, no launch costs.
hw::NodeSpec per_peer(const Fields& extra = {}) {
  Fields f{{"model.dma.engine_bandwidth", "39 GB/s"},  {"model.collective.link_bandwidth", "48 GB/s"},
           {"model.dma.engine_map", "per_peer"},       {"model.memory.llc_bandwidth", "1.8 TB/s"},
           {"model.memory.hbm_bandwidth", "4.2 TB/s"}, {"model.dma.submit_latency", "0 us"},
           {"model.dma.engine_start_latency", "0 us"}, {"model.dma.completion_latency", "0 us"},
           {"model.dma.memory_stall_fraction", "0"}};
  f.insert(f.end(), extra.begin(), extra.end());
  return with("mi300x", f);
}

TEST(DmaLocalBlock, PerPeerEnginesCopyTheLocalBlockBesideThePeersOnAFreeEngine) {
  // 1 GiB on 8 GPUs: 134217728 B to each of 7 peers on engines 0-6, at 39 GB/s each: 3441.48 us.
  // The local block goes to engine 7 (14 engines) at the same time and the same 39 GB/s (LLC 8 x
  // 2 x 39 = 624 GB/s, below 1.8 TB/s), so out of place takes as long as in place.
  const double shard = 134217728.0;
  EXPECT_NEAR(dma_us(per_peer(), wl::CollectiveOp::all_gather, kGiB, 8, false), shard / 39e3, 0.01);
  EXPECT_NEAR(dma_us(per_peer(), wl::CollectiveOp::all_gather, kGiB, 8, true), shard / 39e3, 0.01);
}

TEST(DmaLocalBlock, PerPeerEnginesWithNoneFreeQueueTheLocalBlockOnTheFirst) {
  // 7 engines for 7 peers: none free, so the local block queues on engine 0 behind its peer
  // transfer (c3bench: "else engine 0"): 2 x 3441.48 us.
  const double shard = 134217728.0;
  const hw::NodeSpec spec = per_peer({{"spec.dma.engines", "7"}});
  EXPECT_NEAR(dma_us(spec, wl::CollectiveOp::all_gather, kGiB, 8, false), 2 * shard / 39e3, 0.01);
  EXPECT_NEAR(dma_us(spec, wl::CollectiveOp::all_gather, kGiB, 8, true), shard / 39e3, 0.01);
}

TEST(DmaLocalBlock, InPlaceIsAStrictKeyInScenariosAndPrograms) {
  const auto s = wl::load_scenarios_string(
      "scenarios:\n  - name: a\n    gemm: cb1\n    collective: {op: all_gather, bytes: 1 GiB, in_place: "
      "true}\n",
      "inline");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].collective.in_place);
  // Written back only when set, so a round trip keeps it.
  EXPECT_NE(wl::to_yaml(s).find("in_place: true"), std::string::npos);
  const auto p = wl::load_programs_string(
      "program:\n  name: p\n  streams:\n    - {name: s}\n  kernels:\n"
      "    - {name: ag, stream: s, collective: {op: all_gather, bytes: 1 GiB, impl: dma}}\n",
      "inline");
  EXPECT_FALSE(p.front().kernels.front().collective.in_place);  // out of place by default
  EXPECT_THROW(wl::load_scenarios_string("scenarios:\n  - name: a\n    gemm: cb1\n    collective: {op: "
                                         "all_gather, bytes: 1 GiB, in_place: sometimes}\n",
                                         "inline"),
               InputError);
}

}  // namespace
}  // namespace c3sim::models
