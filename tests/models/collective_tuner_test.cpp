// The collective library's (algorithm, protocol) choice and each protocol's physics
// (models/kernels/collective_tuner.h): on a hardware file with the three protocols, small
// all-reduces pick LL, mid-sized LL128, large simple, at crossovers derived from the file's values;
// LL carries half the payload per link byte; a named protocol and channel count are kept.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/kernels/collective_plan.h"
#include "models/run/c3_simulator.h"

namespace c3sim::models {
namespace {

constexpr double kUs = 1e-6;

// The H200 preset with NCCL's published defaults as stand-ins for measured protocol data
// (NCCL 2.28 src/graph/tuning.cc, NVLink ring: hwLat LL 0.6 us, LL128 1.9 us, Simple 3.4 us per
// step; LL128's bus bandwidth 0.92 of Simple's, LL's 0.5), simple at its full link rate and
// channels fast enough that the link bounds every protocol.
hw::NodeSpec three_protocols() {
  hw::NodeSpec s = hw::load_hardware("h200-sxm");
  hw::CollectiveModel& cm = s.model.collective;
  cm.step_latency = 3.4 * kUs;
  cm.protocol_efficiency = hw::PerOp<double>{{1.0, 0, 0, 0}};
  cm.ll_step_latency = 0.6 * kUs;
  cm.ll_protocol_efficiency = 0.5;
  cm.ll128_step_latency = 1.9 * kUs;
  cm.ll128_protocol_efficiency = 0.92;
  cm.workgroup_copy_bw = cm.ll_channel_bw = cm.ll128_channel_bw = 1e12;
  return s;
}

wl::Collective tuner_all_reduce(double bytes) {
  wl::Collective c;
  c.op = wl::CollectiveOp::all_reduce;
  c.bytes = static_cast<std::int64_t>(bytes);
  return c;
}

// 2 GPUs, ring all-reduce: 2 steps, S bytes sent over one NVLink port of L bytes/s.
//   LL: 2 x 0.6 us + S / (0.5 L);  LL128: 2 x 1.9 us + S / (0.92 L);  simple: 2 x 3.4 us + S / L.
// LL = LL128 where S = 2.6 us / (1 / 0.5 - 1 / 0.92) x L; LL128 = simple where S = 3 us / (1 / 0.92 - 1) x L.
TEST(CollectiveTuner, SmallMessagesPickLlMidLl128LargeSimple) {
  const hw::NodeSpec s = three_protocols();
  const double link = s.model.collective.link_bw;
  const double ll_ll128 = 2.6 * kUs / (1 / 0.5 - 1 / 0.92) * link;
  const double ll128_simple = 3.0 * kUs / (1 / 0.92 - 1) * link;
  ASSERT_LT(ll_ll128, ll128_simple);
  const auto protocol = [&](double bytes) {
    return plan_collective(tuner_all_reduce(bytes), s, 2, std::nullopt).protocol;
  };
  EXPECT_STREQ(protocol(8192), "ll");
  EXPECT_STREQ(protocol(0.95 * ll_ll128), "ll");
  EXPECT_STREQ(protocol(1.05 * ll_ll128), "ll128");
  EXPECT_STREQ(protocol(0.95 * ll128_simple), "ll128");
  EXPECT_STREQ(protocol(1.05 * ll128_simple), "simple");
  EXPECT_STREQ(protocol(1e9), "simple");
  const CollectivePlan small = plan_collective(tuner_all_reduce(8192), s, 2, std::nullopt);
  EXPECT_STREQ(small.algorithm, "ring");
  EXPECT_EQ(small.steps, 2);
  EXPECT_DOUBLE_EQ(small.step_latency, 0.6 * kUs);
  EXPECT_DOUBLE_EQ(small.link_efficiency, 0.5);
}

// The H200 preset without its LL and LL128 data.
hw::NodeSpec simple_only() {
  hw::NodeSpec s = hw::load_hardware("h200-sxm");
  hw::CollectiveModel& cm = s.model.collective;
  cm.ll_protocol_efficiency = cm.ll_step_latency = cm.ll_channel_bw = 0;
  cm.ll128_protocol_efficiency = cm.ll128_step_latency = cm.ll128_channel_bw = 0;
  return s;
}

// A file without LL or LL128 data: every size simple.
TEST(CollectiveTuner, AProtocolWithoutDataIsNoCandidate) {
  const hw::NodeSpec s = simple_only();
  for (double b : {1024.0, 1e6, 1e9})
    EXPECT_STREQ(plan_collective(tuner_all_reduce(b), s, 2, std::nullopt).protocol, "simple");
}

// The tree (a chain on one node) sends no fewer bytes than the ring in as many steps and reaches
// 0.92 of its rate in NCCL's estimate, so on one node the tuner keeps the ring; named, it runs.
TEST(CollectiveTuner, TreeOnlyWhenNamedOnOneNode) {
  const hw::NodeSpec s = three_protocols();
  for (double b : {8192.0, 1e6, 1e9}) {
    EXPECT_STREQ(plan_collective(tuner_all_reduce(b), s, 4, std::nullopt).algorithm, "ring") << b;
  }
  wl::Collective tree = tuner_all_reduce(1e6);
  tree.algorithm = wl::CollectiveAlgorithm::tree;
  const CollectivePlan p = plan_collective(tree, s, 4, std::nullopt);
  EXPECT_STREQ(p.algorithm, "tree");
  EXPECT_EQ(p.steps, 6);                // up and down a chain of 4: 2 x 3
  EXPECT_DOUBLE_EQ(p.bytes_sent, 2e6);  // a GPU inside the chain sends the buffer up and down
}

// LL's 8-byte words carry 4 data bytes: with the link the bound, a 1 GiB all-gather named LL
// spends twice simple's (payload share 1 here) time on the wire. Each time less its fixed part,
// the launch and its one step at the protocol's step latency, is the wire time.
TEST(CollectiveTuner, LlSendsTwiceTheLinkBytesOfItsPayload) {
  hw::NodeSpec s = three_protocols();
  s.model.collective.channel_queueing = false;
  C3Simulator sim(s);
  wl::Collective c;
  c.op = wl::CollectiveOp::all_gather;
  c.bytes = std::int64_t{1} << 30;
  c.protocol = wl::CollectiveProtocol::simple;
  const double simple = sim.iso_coll(c, 2).time_us;
  c.protocol = wl::CollectiveProtocol::ll;
  const double ll = sim.iso_coll(c, 2).time_us;
  const CollectivePlan plan = plan_collective(c, s, 2, std::nullopt);
  EXPECT_DOUBLE_EQ(plan.link_efficiency, 0.5);
  const double launch = s.model.collective.launch_latency / kUs;
  const double wire_simple = simple - launch - s.model.collective.step_latency / kUs;
  const double wire_ll = ll - launch - s.model.collective.ll_step_latency / kUs;
  EXPECT_NEAR(wire_ll / wire_simple, 2.0, 0.002);
}

// One named channel at LL's per-channel rate: the time is the bytes sent at the channel's rate
// (plan.channel_rate: its copy passes at ll_channel_bandwidth plus its local block), not the link's.
TEST(CollectiveTuner, NamedChannelsRunAtTheProtocolsChannelRate) {
  hw::NodeSpec s = three_protocols();
  s.model.collective.ll_channel_bw = 5e9;
  C3Simulator sim(s);
  wl::Collective c;
  c.op = wl::CollectiveOp::all_gather;
  c.bytes = std::int64_t{256} << 20;
  c.protocol = wl::CollectiveProtocol::ll;
  c.channels = 1;
  const CollectivePlan plan = plan_collective(c, s, 2, std::nullopt);
  EXPECT_EQ(plan.workgroups, 1);
  const double rate = plan.channel_rate(s.model.collective);
  EXPECT_LT(rate, 5e9);  // the local block's writes come on top of the sends
  EXPECT_NEAR(sim.iso_coll(c, 2).time_us / (plan.bytes_sent / rate / kUs), 1.0, 0.01);
}

// Named on a file without LL data: the wire format's payload share, the simple protocol's step
// latency and channel rate.
TEST(CollectiveTuner, ANamedProtocolWithoutDataTakesItsWireFormat) {
  const hw::NodeSpec s = simple_only();
  wl::Collective c = tuner_all_reduce(1e6);
  c.protocol = wl::CollectiveProtocol::ll128;
  const CollectivePlan p = plan_collective(c, s, 2, std::nullopt);
  EXPECT_STREQ(p.protocol, "ll128");
  EXPECT_DOUBLE_EQ(p.link_efficiency, 120.0 / 128.0);
  EXPECT_DOUBLE_EQ(p.step_latency, s.model.collective.step_latency);
  EXPECT_DOUBLE_EQ(p.channel_bw, s.model.collective.workgroup_copy_bw);
}

}  // namespace
}  // namespace c3sim::models
