// The cluster section (docs/scale-out.md): presets, parsing with units, the network's spellings,
// errors naming file, line and key, and the rules between its fields.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "hardware_test_util.h"

namespace c3sim::hw {
namespace {

using testing::expect_input_error;
using testing::ScratchDir;

TEST(ClusterFields, PresetsCarryOneNicPerGpuOnARailOptimizedNetwork) {
  for (const char* name : {"h100-sxm", "h200-sxm", "mi300x"}) {
    const NodeSpec s = load_hardware(name);
    EXPECT_TRUE(s.cluster.present()) << name;
    EXPECT_EQ(s.cluster.nics_per_node, 8) << name;
    EXPECT_EQ(s.cluster.gpus_per_nic, 1) << name;
    EXPECT_DOUBLE_EQ(s.cluster.nic_bw, 50e9) << name;   // 400 Gb/s
    EXPECT_DOUBLE_EQ(s.cluster.pcie_bw, 64e9) << name;  // Gen5 x16, one direction
    EXPECT_EQ(s.cluster.network, Network::rail_optimized) << name;
  }
  // A file without the section is one node: nothing present, validate accepts it.
  NodeSpec bare = load_hardware("h100-sxm");
  bare.cluster = ClusterSpec{};
  EXPECT_NO_THROW(validate(bare));
}

TEST(ClusterFields, SetFieldParsesUnitsAndSpellings) {
  NodeSpec s = load_hardware("h100-sxm");
  set_field(s, "cluster.nic_bandwidth", "200 Gb/s");
  EXPECT_DOUBLE_EQ(s.cluster.nic_bw, 25e9);
  set_field(s, "cluster.network", "fat_tree");
  set_field(s, "cluster.oversubscription", "2");
  set_field(s, "cluster.nodes_per_leaf", "16");
  set_field(s, "cluster.switch_latency", "600 ns");
  EXPECT_EQ(s.cluster.network, Network::fat_tree);
  EXPECT_DOUBLE_EQ(s.cluster.switch_latency, 600e-9);
  EXPECT_NO_THROW(validate(s));
  EXPECT_EQ(get_field(s, "cluster.network"), "fat_tree");
  expect_input_error([&] { set_field(s, "cluster.network", "torus"); }, "<override>", 0, "cluster.network");
  expect_input_error([&] { set_field(s, "cluster.oversubscription", "0.5"); }, "<override>", 0,
                     "cluster.oversubscription");
  expect_input_error([&] { set_field(s, "cluster.nic_bandwidth", "5 us"); }, "<override>", 0,
                     "cluster.nic_bandwidth");
}

TEST(ClusterFields, NetworkChannelsAndNvlinkSharpAreOptional) {
  // Hopper: 16 channels over nodes (one ring per NIC, duplicated) and NVLink SHARP; MI300X neither,
  // so its collectives over nodes keep the node's channels and never run NVLSTree.
  const NodeSpec h100 = load_hardware("h100-sxm");
  EXPECT_EQ(h100.cluster.channels, 16);
  EXPECT_DOUBLE_EQ(h100.model.collective.nvls_all_reduce_bw, 275e9);
  EXPECT_DOUBLE_EQ(h100.model.collective.nvls_latency, 25e-6);
  const NodeSpec mi300x = load_hardware("mi300x");
  EXPECT_EQ(mi300x.cluster.channels, 0);
  EXPECT_DOUBLE_EQ(mi300x.model.collective.nvls_all_reduce_bw, 0.0);
  EXPECT_EQ(get_field(h100, "cluster.channels"), "16");
  NodeSpec s = h100;
  set_field(s, "cluster.channels", "24");
  set_field(s, "model.collective.nvls_all_reduce_bandwidth", "300 GB/s");
  EXPECT_EQ(s.cluster.channels, 24);
  EXPECT_DOUBLE_EQ(s.model.collective.nvls_all_reduce_bw, 300e9);
  expect_input_error([&] { set_field(s, "cluster.channels", "-1"); }, "<override>", 0, "cluster.channels");
  expect_input_error([&] { set_field(s, "model.collective.nvls_all_reduce_bandwidth", "5 us"); },
                     "<override>", 0, "model.collective.nvls_all_reduce_bandwidth");
  expect_input_error([&] { set_field(s, "model.collective.nvls_latency", "-1 us"); }, "<override>", 0,
                     "model.collective.nvls_latency");
}

TEST(ClusterFields, ErrorsNameTheFileLineAndKey) {
  ScratchDir dir;
  const std::string unit = dir.write("unit.yaml",
                                     "extends: h100-sxm\n"
                                     "cluster:\n"
                                     "  nic_bandwidth: 400 Gb\n");
  expect_input_error([&] { (void)load_hardware(unit); }, "unit.yaml", 3, "cluster.nic_bandwidth");
  const std::string unknown = dir.write("unknown.yaml",
                                        "extends: h100-sxm\n"
                                        "cluster:\n"
                                        "  nic_speed: 50 GB/s\n");
  expect_input_error([&] { (void)load_hardware(unknown); }, "unknown.yaml", 3, "cluster.nic_speed");
  // 8 GPUs, 2 NICs of 2 GPUs each: 4 GPUs have no NIC.
  const std::string few = dir.write("few.yaml",
                                    "extends: h100-sxm\n"
                                    "cluster:\n"
                                    "  nics_per_node: 2\n"
                                    "  gpus_per_nic: 2\n");
  expect_input_error([&] { (void)load_hardware(few); }, "few.yaml", 4, "cluster.gpus_per_nic");
  // Oversubscription on a rail-optimized network would be ignored: an error.
  const std::string rail = dir.write("rail.yaml",
                                     "extends: h100-sxm\n"
                                     "cluster:\n"
                                     "  oversubscription: 2\n");
  expect_input_error([&] { (void)load_hardware(rail); }, "rail.yaml", 3, "cluster.oversubscription");
}

}  // namespace
}  // namespace c3sim::hw
