// Programs on several nodes (docs/scale-out.md): a collective's inter-node bytes over the NIC at
// the cluster section's rate and latency, the network shares of each algorithm, the fat tree's
// spine, and NIC traffic beside a memory-bound kernel. Every test pins the fields its derivation
// uses (set_field), so preset refits do not move the expectations.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "hardware/hardware_fields.h"
#include "hardware/hardware_loader.h"
#include "models/kernels/collective_plan.h"
#include "models/kernels/network_plan.h"
#include "models/program/all_gpu_simulator.h"
#include "models/program/program_simulator.h"
#include "sim/base/errors.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

// Hopper with one NIC per GPU at 50 GB/s, the library's channels sharing links and NIC without the
// closed queueing network (so a flow's rate is the smallest of its resources' shares).
hw::NodeSpec hopper(const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  hw::NodeSpec s = hw::load_hardware("h100-sxm");
  hw::set_field(s, "model.collective.channel_queueing", "false");
  hw::set_field(s, "cluster.nic_bandwidth", "50 GB/s");
  hw::set_field(s, "cluster.pcie_bandwidth", "64 GB/s");
  hw::set_field(s, "cluster.nic_latency", "14 us");
  for (const auto& [k, v] : extra) hw::set_field(s, k, v);
  return s;
}

wl::Program collective_program(const std::string& op, const std::string& bytes, int gpus, int nodes) {
  wl::Program p = wl::load_programs_string(fmt::format(R"(program:
  name: coll
  gpus: {}
  nodes: {}
  streams: [{{name: comm}}]
  kernels:
    - {{name: c, stream: comm, collective: {{op: {}, bytes: {}}}}}
)",
                                                       gpus, nodes, op, bytes),
                                           "coll.yaml")
                      .front();
  return p;
}

double step_us(const hw::NodeSpec& spec, const wl::Program& p) {
  ProgramSimulator sim(spec);
  return sim.simulate(p).step_us;
}

TEST(ScaleOut, TwoNodeAllGatherTakesItsBytesAtTheNicRateAfterTheNetworkLatency) {
  // Two nodes of one GPU each: R = 2 ranks, no peer inside the node, so every byte a GPU sends
  // leaves through its NIC. An all-gather of S per-GPU output sends S (R - 1) / R = S / 2 per GPU,
  // at min(NIC 50 GB/s, PCIe 64 GB/s, the channels' copy rate far above) = 50 GB/s. Doubling S adds
  // S / 2 / 50 GB/s: for S = 1 GiB, 536870912 B / 50e9 B/s = 10737.41824 us.
  const hw::NodeSpec spec = hopper();
  const double t1 = step_us(spec, collective_program("all_gather", "1 GiB", 1, 2));
  const double t2 = step_us(spec, collective_program("all_gather", "2 GiB", 1, 2));
  EXPECT_NEAR(t2 - t1, 536870912.0 / 50e9 * 1e6, 1e-3);
  // One ring pass over 2 nodes has nNodes - 1 = 1 inter-node step: 10 us more NIC latency, 10 us more.
  const hw::NodeSpec slower = hopper({{"cluster.nic_latency", "24 us"}});
  EXPECT_NEAR(step_us(slower, collective_program("all_gather", "1 GiB", 1, 2)) - t1, 10.0, 1e-6);
  // Half the NIC rate (25 GB/s): the bandwidth term doubles.
  const hw::NodeSpec half = hopper({{"cluster.nic_bandwidth", "25 GB/s"}});
  const double h1 = step_us(half, collective_program("all_gather", "1 GiB", 1, 2));
  const double h2 = step_us(half, collective_program("all_gather", "2 GiB", 1, 2));
  EXPECT_NEAR(h2 - h1, 2 * (t2 - t1), 1e-3);
}

TEST(ScaleOut, NetworkSharesFollowTheAlgorithm) {
  // Ring and tree: 1 / g of a GPU's bytes leave the node; all-to-all: (R - g) / (R - 1).
  EXPECT_DOUBLE_EQ(nic_share(NetworkAlgorithm::ring, 2, 8), 1.0 / 8);
  EXPECT_DOUBLE_EQ(nic_share(NetworkAlgorithm::tree, 4, 8), 1.0 / 8);
  EXPECT_DOUBLE_EQ(nic_share(NetworkAlgorithm::direct, 2, 8), 8.0 / 15);
  EXPECT_DOUBLE_EQ(nic_share(NetworkAlgorithm::ring, 1, 8), 0.0);
  // Fat tree, 8 nodes, 4 under each leaf (0-3, 4-7): the ring 0..7 crosses between leaves at 3->4
  // and 7->0 (2 of 8 hops); an all-to-all sends 4 of its 7 off-node blocks to the other leaf; the
  // tree's edges (child: parent (i - 1) / 2) 1:0 2:0 3:1 stay, 4:1 5:2 6:2 7:3 cross (4 of 7).
  EXPECT_DOUBLE_EQ(spine_share(NetworkAlgorithm::ring, 8, 4), 2.0 / 8);
  EXPECT_DOUBLE_EQ(spine_share(NetworkAlgorithm::direct, 8, 4), 4.0 / 7);
  EXPECT_DOUBLE_EQ(spine_share(NetworkAlgorithm::tree, 8, 4), 4.0 / 7);
  // Every node under one leaf: nothing crosses.
  EXPECT_DOUBLE_EQ(spine_share(NetworkAlgorithm::direct, 4, 4), 0.0);
}

TEST(ScaleOut, OversubscribedFatTreeSlowsWhatCrossesTheSpine) {
  // All-to-all over 4 nodes of 1 GPU, one node per leaf: every off-node byte crosses the spine.
  // With oversubscription 2 the spine gives each GPU 25 GB/s: the bandwidth term doubles.
  const wl::Program a = collective_program("all_to_all", "1 GiB", 1, 4);
  const wl::Program b = collective_program("all_to_all", "2 GiB", 1, 4);
  const hw::NodeSpec rail = hopper();
  const hw::NodeSpec tree = hopper({{"cluster.network", "fat_tree"}, {"cluster.oversubscription", "2"}});
  const double rail_delta = step_us(rail, b) - step_us(rail, a);
  const double tree_delta = step_us(tree, b) - step_us(tree, a);
  // 1 GiB more output sends 3/4 GiB more, at 50 GB/s on the rail network.
  EXPECT_NEAR(rail_delta, 0.75 * 1073741824.0 / 50e9 * 1e6, 1e-3);
  EXPECT_NEAR(tree_delta, 2 * rail_delta, 1e-3);
  // With all 4 nodes under one leaf nothing crosses the spine: the rail network's time.
  const hw::NodeSpec one_leaf = hopper(
      {{"cluster.network", "fat_tree"}, {"cluster.oversubscription", "2"}, {"cluster.nodes_per_leaf", "4"}});
  EXPECT_NEAR(step_us(one_leaf, b) - step_us(one_leaf, a), rail_delta, 1e-3);
}

TEST(ScaleOut, AllReduceTakesTheTreeOnlyWhereTheLibrarysEstimateSaysSo) {
  const hw::NodeSpec spec = hw::load_hardware("h100-sxm");
  const wl::Collective small{wl::CollectiveOp::all_reduce, 1 << 20, wl::CollectiveImpl::cu, {}, true};
  const wl::Collective large{
      wl::CollectiveOp::all_reduce, std::int64_t{1} << 32, wl::CollectiveImpl::cu, {}, true};
  // 1 MiB on 64 nodes: the ring's 2 x 63 network steps of 14 us dwarf the bytes; the tree's 2 x 6.
  EXPECT_STREQ(plan_collective(small, spec, 8, std::nullopt, 64).algorithm, "tree");
  // 4 GiB on 2 nodes: both pay one level; the ring's full bandwidth wins.
  EXPECT_STREQ(plan_collective(large, spec, 8, std::nullopt, 2).algorithm, "ring");
  // One node: the plan is the node's own, no network.
  EXPECT_FALSE(plan_collective(large, spec, 8, std::nullopt, 1).network.has_value());
}

TEST(ScaleOut, NicTrafficSlowsAMemoryKernelOnlyThroughTheMemoryItShares) {
  // A memory-bound kernel on half the SMs beside a cross-node all-to-all on the other half. The
  // collective's NIC bytes are read from and written to HBM (GPUDirect RDMA), so with a slow HBM the
  // memory kernel slows; with HBM, L2 and fabric far above both kernels' needs, the two share
  // nothing but the launch and the kernel runs as alone.
  const std::string text = R"(program:
  name: beside
  gpus: 8
  nodes: 2
  launch_gap_us: 0
  streams: [{name: mem, cus: 64, own_group: true}, {name: comm, cus: 64, own_group: true}]
  kernels:
    - {name: m, stream: mem, memory: {bytes: 16 GiB, workgroups: 64}}
    - {name: c, stream: comm, collective: {op: all_to_all, bytes: 8 GiB}}
)";
  const wl::Program p = wl::load_programs_string(text, "beside.yaml").front();
  const auto slowdown = [&](const hw::NodeSpec& spec) {
    ProgramSimulator sim(spec);
    const ProgramRun run = sim.simulate(p);
    return (run.kernels[0].end_us - run.kernels[0].ready_us) / sim.isolated_us(p, 0);
  };
  const hw::NodeSpec slow_hbm = hopper({{"model.memory.hbm_bandwidth", "1 TB/s"}});
  EXPECT_GT(slowdown(slow_hbm), 1.05);
  const hw::NodeSpec wide = hopper({{"model.memory.hbm_bandwidth", "1000 TB/s"},
                                    {"spec.memory.hbm_bandwidth", "1000 TB/s"},
                                    {"model.memory.l2_bandwidth_per_xcd", "1000 TB/s"},
                                    {"model.memory.xcd_fabric_bandwidth", "1000 TB/s"}});
  EXPECT_NEAR(slowdown(wide), 1.0, 1e-9);
}

TEST(ScaleOut, ProgramsOnSeveralNodesNeedAClusterSection) {
  hw::NodeSpec bare = hw::load_hardware("h100-sxm");
  bare.cluster = hw::ClusterSpec{};
  const wl::Program p = collective_program("all_gather", "1 GiB", 8, 2);
  try {
    check_program_nodes(p, bare);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("coll.nodes"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_program_nodes(p, hw::load_hardware("h100-sxm")));
}

TEST(ScaleOut, SymmetricRunEqualsEveryRankOfANodeAtTwoNodesOfTwoGpus) {
  // All-GPU mode on several nodes runs the g ranks of one node, every node alike; for a symmetric
  // program each rank is the representative GPU, so the two modes agree (to the engine's
  // picosecond rounding of the ranks' shared gates: 1e-6 us).
  const wl::Program p = wl::load_programs_string(R"(program:
  name: sym
  gpus: 2
  nodes: 2
  launch_gap_us: 3
  streams: [{name: compute}, {name: comm}]
  kernels:
    - {name: g, stream: compute, gemm: {m: 8192, n: 8192, k: 4096}}
    - {name: ag, stream: comm, collective: {op: all_gather, bytes: 512 MiB}}
    - {name: rs, stream: comm, after: [g], collective: {op: reduce_scatter, bytes: 64 MiB}}
)",
                                                 "sym.yaml")
                            .front();
  ProgramSimulator sim(hopper());
  const double one = sim.simulate(p).step_us;
  const AllGpuRun all = simulate_all_gpus(sim, {wl::program_for_rank(p, 0), wl::program_for_rank(p, 1)});
  ASSERT_EQ(all.ranks.size(), 2U);
  for (const ProgramRun& r : all.ranks) EXPECT_NEAR(r.step_us, one, 1e-6);
  EXPECT_NEAR(all.step_us, one, 1e-6);
}

TEST(ScaleOut, AThousandGpusRunAsOneRepresentativeRank) {
  // 128 nodes x 8 GPUs: one simulated GPU. An all-gather of 8 GiB over R = 1024 ranks sends
  // S (R - 1) / R per GPU, 1 / 8 of it over its 50 GB/s NIC and 7 / 8 over NVLink, at the slower
  // share's rate; before the bytes, the ring's R - 1 steps of protocol latency and its N - 1 = 127
  // network steps of 14 us. So the time lies between the NIC-bound transfer plus the network
  // latency and the NVLink-bound transfer plus every latency.
  const hw::NodeSpec spec = hopper();
  const double t = step_us(spec, collective_program("all_gather", "8 GiB", 8, 128));
  const double sent = 8.0 * 1073741824 * 1023 / 1024;
  const double network_us = 127 * 14.0;
  const double steps_us = 1023 * spec.model.collective.step_latency * 1e6;
  const double nvlink =
      spec.model.collective.link_bw * spec.model.collective.protocol_efficiency[wl::CollectiveOp::all_gather];
  const double nic_bound_us = sent / 8 / 50e9 * 1e6;
  const double link_bound_us = sent * 7 / 8 / nvlink * 1e6;
  EXPECT_GT(t, nic_bound_us + network_us);
  EXPECT_LT(t, std::max(nic_bound_us, link_bound_us) + network_us + steps_us + 100);
}

}  // namespace
}  // namespace c3sim::models
