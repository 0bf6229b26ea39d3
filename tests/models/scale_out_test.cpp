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
// closed queueing network (so a flow's rate is the smallest of its resources' shares), and 32
// channels over several nodes, enough that links or NIC bind rather than the channels' copy rate.
hw::NodeSpec hopper(const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  hw::NodeSpec s = hw::load_hardware("h100-sxm");
  hw::set_field(s, "model.collective.channel_queueing", "false");
  hw::set_field(s, "cluster.channels", "32");
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
  // Without NVLink SHARP the library chooses between ring and tree.
  hw::NodeSpec spec = hw::load_hardware("h100-sxm");
  hw::set_field(spec, "model.collective.nvls_all_reduce_bandwidth", "0 B/s");
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

TEST(ScaleOut, DoubleBinaryTreeLoadIsItsBusiestNodesEdges) {
  // NCCL's trees (src/graph/trees.cc), each carrying half the data up and down. Two nodes: 0 is the
  // root of one tree and 1 of the mirror; each node has one edge per tree, sends 2 x 1/2 = 1.
  EXPECT_DOUBLE_EQ(double_binary_tree_load(2), 1.0);
  // Three (odd: the second tree is the first shifted by one): 0 -> 2 -> 1 and 1 -> 0 -> 2; node 2
  // has 2 + 1 edges: 1.5.
  EXPECT_DOUBLE_EQ(double_binary_tree_load(3), 1.5);
  // Four: 0 -> 2 -> {1, 3} and its mirror 3 -> 1 -> {2, 0}: node 2 has 3 + 1 edges, 2. From there
  // on every tree has an inner node with two children that is a leaf of the other tree.
  EXPECT_DOUBLE_EQ(double_binary_tree_load(4), 2.0);
  EXPECT_DOUBLE_EQ(double_binary_tree_load(128), 2.0);
  EXPECT_DOUBLE_EQ(double_binary_tree_load(1), 0.0);
  // NVLSTree: each GPU sends S over its switch port and load x S / g over its NIC.
  EXPECT_DOUBLE_EQ(nic_share(NetworkAlgorithm::nvls_tree, 2, 8), 1.0 / 9);
  EXPECT_DOUBLE_EQ(nic_share(NetworkAlgorithm::nvls_tree, 4, 8), 2.0 / 10);
}

TEST(ScaleOut, AllReduceOverNodesTakesNvlsTreeWhereTheSwitchesReduce) {
  const hw::NodeSpec spec = hopper();
  const wl::Collective large{
      wl::CollectiveOp::all_reduce, std::int64_t{1} << 32, wl::CollectiveImpl::cu, {}, true};
  // NCCL prices NVLSTree's bytes at the NICs' bus bandwidth (twice it on two nodes) or NVLS's,
  // like the ring's, after a shorter latency: it wins on 2 and 4 nodes.
  EXPECT_STREQ(plan_collective(large, spec, 8, std::nullopt, 2).algorithm, "nvls_tree");
  EXPECT_STREQ(plan_collective(large, spec, 8, std::nullopt, 4).algorithm, "nvls_tree");
  // A call that names the ring (NCCL_ALGO=RING) runs the ring.
  wl::Collective ring = large;
  ring.algorithm = wl::CollectiveAlgorithm::ring;
  EXPECT_STREQ(plan_collective(ring, spec, 8, std::nullopt, 4).algorithm, "ring");
  // One node keeps its own plan; so does a node without NVLS.
  EXPECT_STREQ(plan_collective(large, spec, 8, std::nullopt, 1).algorithm, "ring");
  hw::NodeSpec no_nvls = spec;
  hw::set_field(no_nvls, "model.collective.nvls_all_reduce_bandwidth", "0 B/s");
  EXPECT_STRNE(plan_collective(large, no_nvls, 8, std::nullopt, 4).algorithm, "nvls_tree");
}

TEST(ScaleOut, NvlsTreeIsBoundByTheSwitchOnTwoNodesAndByTheNicsBeyond) {
  // Per GPU, S through the switch at the NVLS all-reduce's rate and load x S / 8 over its 50 GB/s
  // NIC, in parallel. Two nodes (load 1): S / 275 GB/s against S / 400 GB/s, the switch binds.
  // Four (load 2): S / 200 GB/s, the NIC binds. Differences of two sizes drop the latency.
  const hw::NodeSpec spec = hopper({{"model.collective.nvls_all_reduce_bandwidth", "275 GB/s"}});
  const double gib = 1073741824.0;
  const auto delta_us = [&](int nodes) {
    return step_us(spec, collective_program("all_reduce", "8 GiB", 8, nodes)) -
           step_us(spec, collective_program("all_reduce", "4 GiB", 8, nodes));
  };
  EXPECT_NEAR(delta_us(2), 4 * gib / 275e9 * 1e6, 1e-3 * delta_us(2));
  EXPECT_NEAR(delta_us(4), 4 * gib * 2 / 8 / 50e9 * 1e6, 1e-3 * delta_us(4));
}

TEST(ScaleOut, ChannelsOverSeveralNodesAreTheLibrarysNetworkChannels) {
  // 16 channels (NCCL: one ring per NIC, duplicated) copy a two-node all-gather's bytes slower than
  // its links (386 GB/s) or NICs (400 GB/s) carry them: each sends at its channel rate. 32 do not
  // bind: the links set the rate.
  const wl::Collective ag{
      wl::CollectiveOp::all_gather, std::int64_t{1} << 32, wl::CollectiveImpl::cu, {}, true};
  const hw::NodeSpec sixteen = hopper({{"cluster.channels", "16"}});
  const CollectivePlan plan = plan_collective(ag, sixteen, 8, std::nullopt, 2);
  EXPECT_EQ(plan.workgroups, 16);
  const double channel_rate = plan.channel_rate(sixteen.model.collective);
  ASSERT_LT(16 * channel_rate, plan.aggregate_link_rate(sixteen.model.collective.link_bw) *
                                   plan.link_efficiency / plan.link_share());
  const double gib = 1073741824.0;
  const double sent = 4 * gib * 15 / 16;  // the 8 GiB run's extra bytes sent over the 4 GiB one
  const auto delta_us = [&](const hw::NodeSpec& spec) {
    return step_us(spec, collective_program("all_gather", "8 GiB", 8, 2)) -
           step_us(spec, collective_program("all_gather", "4 GiB", 8, 2));
  };
  EXPECT_NEAR(delta_us(sixteen), sent / (16 * channel_rate) * 1e6, 1e-3 * delta_us(sixteen));
  const hw::NodeSpec many = hopper();
  const double links = plan.aggregate_link_rate(many.model.collective.link_bw) * plan.link_efficiency;
  EXPECT_NEAR(delta_us(many), sent * 7 / 8 / links * 1e6, 1e-3 * delta_us(many));
  // A call that names its channels runs them.
  wl::Collective named = ag;
  named.channels = 24;
  EXPECT_EQ(plan_collective(named, sixteen, 8, std::nullopt, 2).workgroups, 24);
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
