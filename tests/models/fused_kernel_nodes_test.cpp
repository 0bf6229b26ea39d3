// A fused kernel on several nodes (models/kernels/fused_kernel.h, peer_send.h): the share of its
// bytes bound for peers on other nodes goes as GPU-initiated NIC puts over the NIC (bandwidth and
// message rate), its PCIe path and the network latency; the rest over the links as on one node.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "hardware/hardware_loader.h"
#include "models/kernels/collective_plan.h"
#include "models/kernels/fused_kernel.h"
#include "models/policies/transform_registry.h"
#include "models/program/program_simulator.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

wl::Program load_one(const std::string& yaml) { return wl::load_programs_string(yaml, "test.yaml").front(); }

// An embedding-like memory kernel of 16 workgroups fused with an all-to-all, on 2 nodes.
const char* kTwoNodeFused = R"(program:
  name: two_node_fused
  nodes: 2
  streams: [{name: s}]
  kernels:
    - name: lookup_a2a
      stream: s
      fused: {messages_per_workgroup: 2}
      memory: {bytes: 64 MiB, workgroups: 16}
      collective: {op: all_to_all, bytes: 16 MiB}
)";

TEST(FusedKernelNodes, TwoNodeAllToAllSendsItsOffNodeShareOverTheNic) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  const hw::ClusterSpec& c = spec.cluster;
  ASSERT_TRUE(c.present());
  ASSERT_EQ(c.network, hw::Network::rail_optimized) << "no spine: the NIC is the network's only stage";
  ASSERT_GT(c.nic_message_rate, 0);
  ProgramSimulator sim(spec);
  const wl::Program p = load_one(kTwoNodeFused);
  // 16 workgroups on 132 SMs: one wave. Compute: each streams its 4 MiB at one workgroup's rate.
  const double w = 16;
  const double compute_s = (64.0 * (1 << 20) / w) / spec.model.memory.workgroup_stream_bw;
  // R = 16 ranks: an all-to-all sends 15/16 of its bytes, (R - g) / (R - 1) = 8/15 of them to the
  // 8 GPUs of the other node, through this GPU's NIC (one per GPU); the rest over NVLink.
  const double r = 16;
  const double g = 8;
  const double per_wg = 16.0 * (1 << 20) * (r - 1) / r / w;
  const double nic_share = (r - g) / (r - 1);
  // Per byte sent the NIC carries nic_share bytes plus the puts' message processing: 2 messages per
  // workgroup, nic_share of them off the node, each holding the NIC 1 / rate (the time of
  // nic_bw / rate bytes).
  const double message_bytes = per_wg / 2;
  const double nic_per_byte = nic_share * (1 + c.nic_bw / (c.nic_message_rate * 1e6) / message_bytes);
  // The 16 stores at once: each at one workgroup's store rate, or its share of the NIC or of the
  // PCIe path (NVLink's port, HBM and the fabric have far more: 16 x 23.55 GB/s x 7/15 of the
  // bytes on a 450 GB/s port).
  const double rate = std::min(
      {spec.model.collective.workgroup_copy_bw, c.nic_bw / (w * nic_per_byte), c.pcie_bw / (w * nic_share)});
  ASSERT_LT(rate, spec.model.collective.workgroup_copy_bw) << "the NIC binds here";
  // The last puts land one network step (cluster.nic_latency) after they leave.
  const double expected_us = (spec.model.dispatch.kernel_launch_latency + compute_s +
                              2 * fused_message_overhead(spec) + c.nic_latency + per_wg / rate) *
                             1e6;
  const ProgramRun run = sim.simulate(p);
  EXPECT_NEAR(run.step_us, expected_us, 1e-3) << "launch + compute + overheads + latency + NIC-bound send";
  EXPECT_DOUBLE_EQ(run.kernels[0].bytes_sent, per_wg * w);

  // The same kernel on one node sends everything over NVLink at the workgroups' own rate, with no
  // network latency: the NIC's share is what made the 2-node kernel longer.
  wl::Program one = p;
  one.nodes = 1;
  const double one_per_wg = 16.0 * (1 << 20) * (g - 1) / g / w;
  const double one_expected_us =
      (spec.model.dispatch.kernel_launch_latency + compute_s + 2 * fused_message_overhead(spec) +
       one_per_wg / spec.model.collective.workgroup_copy_bw) *
      1e6;
  EXPECT_NEAR(sim.simulate(one).step_us, one_expected_us, 1e-3);

  // A NIC of half the bandwidth (and half the message rate: the same cost per message in bytes)
  // lengthens the send by the NIC's own factor, which it could not if the bytes crossed the links.
  hw::NodeSpec half = spec;
  half.cluster.nic_bw /= 2;
  half.cluster.nic_message_rate /= 2;
  ProgramSimulator half_sim(half);
  const double half_rate = std::min({spec.model.collective.workgroup_copy_bw,
                                     half.cluster.nic_bw / (w * nic_per_byte), c.pcie_bw / (w * nic_share)});
  EXPECT_NEAR(half_sim.simulate(p).step_us, expected_us + (per_wg / half_rate - per_wg / rate) * 1e6, 1e-3);
}

TEST(FusedKernelNodes, FusedBeatsBulkAcrossNodes) {
  // The embedding + all-to-all of examples/fused_embedding_all_to_all.yaml on 2 nodes: bulk runs
  // the lookup, then the all-to-all over NVLink and the NICs; fused streams each wave's rows out
  // while the next computes, so only the last wave's send (and one network step) is exposed.
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  ProgramSimulator sim(spec);
  const TransformRegistry& reg = builtin_registry();
  const wl::Program emb = load_one(R"(program:
  name: emb
  nodes: 2
  streams: [{name: s}]
  kernels:
    - {name: lookup, stream: s, memory: {bytes: 704 MiB, workgroups: 4096}}
    - {name: a2a, stream: s, after: [lookup], collective: {op: all_to_all, bytes: 64 MiB}}
)");
  const double lookup_alone = sim.isolated_us(emb, 0);
  const double a2a_alone = sim.isolated_us(emb, 1);
  const double base = sim.simulate(reg.apply("base", emb, spec)).step_us;
  const double fuse = sim.simulate(reg.apply("fuse", emb, spec)).step_us;
  EXPECT_GT(base, lookup_alone + 0.9 * a2a_alone);
  EXPECT_LT(fuse, base) << "base " << base << " fuse " << fuse;
  // The fused kernel cannot beat its slower half: the NIC's share of the bytes at the NIC's rate.
  const double nic_bytes = 64.0 * (1 << 20) * 15 / 16 * 8 / 15;
  EXPECT_GT(fuse, std::max(lookup_alone, nic_bytes / spec.cluster.nic_bw * 1e6));

  // On one node the same fused kernel is shorter: NVLink carries what the NIC carried.
  wl::Program one = emb;
  one.nodes = 1;
  EXPECT_LT(sim.simulate(reg.apply("fuse", one, spec)).step_us, fuse);
}

TEST(FusedKernelNodes, ReduceScatterSendsTheRingsShareOverTheNic) {
  // A fused GEMM + reduce-scatter takes the ring's rule: 1 / g of its bytes leave through the NIC.
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  wl::Collective rs;
  rs.op = wl::CollectiveOp::reduce_scatter;
  rs.bytes = 16 << 20;
  const CollectivePlan plan = plan_collective(rs, spec, 8, std::nullopt, 2);
  ASSERT_TRUE(plan.network.has_value());
  EXPECT_DOUBLE_EQ(plan.network->nic_share, 1.0 / 8);

  const wl::Program p = load_one(R"(program:
  name: gemm_rs
  streams: [{name: compute}, {name: comm}]
  kernels:
    - {name: fc2, stream: compute, gemm: {m: 8192, n: 8192, k: 4096, dtype: bf16}}
    - {name: rs, stream: comm, after: [fc2], collective: {op: reduce_scatter, bytes: 16 MiB}}
)");
  const TransformRegistry& reg = builtin_registry();
  const wl::Program fused = reg.apply("fuse", p, spec);
  wl::Program two = fused;
  two.nodes = 2;
  ProgramSimulator sim(spec);
  const double one_us = sim.simulate(fused).step_us;
  const double two_us = sim.simulate(two).step_us;
  EXPECT_GT(two_us, one_us) << "a network step's latency at least";
  // A NIC a hundredth as fast: the 1 / 8 share it carries now sets the send, which it would not if
  // the bytes crossed the links.
  hw::NodeSpec slow = spec;
  slow.cluster.nic_bw /= 100;
  const double slow_us = ProgramSimulator(slow).simulate(two).step_us;
  const double nic_bytes = plan.bytes_sent * plan.network->nic_share;
  EXPECT_GT(slow_us, nic_bytes / slow.cluster.nic_bw * 1e6);
  EXPECT_GT(slow_us, two_us);
}

TEST(FusedKernelNodes, AllReduceSendsTheLibrarysRingOrTreeShareNotNvlsTree) {
  // The library's all-reduce over H100 nodes runs NVLSTree (the switch reduces); a fused kernel's
  // puts cannot use the switch, so it sends what the ring or tree would: NVLS in the hardware file
  // changes nothing for it.
  const hw::NodeSpec spec = hw::load_hardware("h100-sxm");
  wl::Collective ar;
  ar.op = wl::CollectiveOp::all_reduce;
  ar.bytes = 64 << 20;
  ASSERT_STREQ(plan_collective(ar, spec, 8, std::nullopt, 4).algorithm, "nvls_tree");
  const wl::Program p = load_one(R"(program:
  name: gemm_ar
  streams: [{name: compute}, {name: comm}]
  kernels:
    - {name: fc2, stream: compute, gemm: {m: 8192, n: 8192, k: 4096, dtype: bf16}}
    - {name: ar, stream: comm, after: [fc2], collective: {op: all_reduce, bytes: 64 MiB}}
)");
  wl::Program fused = builtin_registry().apply("fuse", p, spec);
  ASSERT_TRUE(std::any_of(fused.kernels.begin(), fused.kernels.end(),
                          [](const wl::ProgramKernel& k) { return k.kind == wl::KernelKind::fused; }));
  fused.nodes = 4;
  hw::NodeSpec no_nvls = spec;
  no_nvls.model.collective.nvls_all_reduce_bw = 0;
  EXPECT_DOUBLE_EQ(ProgramSimulator(spec).simulate(fused).step_us,
                   ProgramSimulator(no_nvls).simulate(fused).step_us);
}

}  // namespace
}  // namespace c3sim::models
