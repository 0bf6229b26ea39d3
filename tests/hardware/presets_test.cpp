// The built-in presets load (from any working directory) and hold the documented values.
#include <gtest/gtest.h>

#include <filesystem>

#include "hardware/hardware_loader.h"
#include "hardware_test_util.h"

namespace c3sim::hw {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TEST(HardwarePresets, Mi300x) {
  const NodeSpec s = load_hardware("mi300x");
  EXPECT_EQ(s.name, "mi300x");
  EXPECT_EQ(s.compute.total_cus(), 304);
  EXPECT_DOUBLE_EQ(s.memory.l2_bytes_per_xcd, 4 * kMiB);
  EXPECT_DOUBLE_EQ(s.memory.llc_bytes, 256 * kMiB);
  EXPECT_DOUBLE_EQ(s.memory.hbm_bw, 5.3e12);
  EXPECT_DOUBLE_EQ(s.compute.clock_hz, 2100e6);
  EXPECT_DOUBLE_EQ(s.compute.peak_flops.at(Dtype::bf16), 1307.4e12);
  EXPECT_EQ(s.compute.peak_flops.count(Dtype::tf32), 0u);  // optional dtype absent stays absent
  EXPECT_EQ(s.interconnect.topology, Topology::fully_connected);
  EXPECT_EQ(s.model.dma.engine_map, EngineMap::per_peer);
  EXPECT_DOUBLE_EQ(s.model.collective.launch_latency, 6e-6);
  EXPECT_EQ(s.source_file, "hardware/presets/mi300x.yaml");
}

TEST(HardwarePresets, H100AndH200) {
  const NodeSpec h100 = load_hardware("h100-sxm");
  const NodeSpec h200 = load_hardware("h200-sxm");
  for (const NodeSpec* s : {&h100, &h200}) {
    EXPECT_EQ(s->compute.xcds, 1);
    EXPECT_EQ(s->compute.total_cus(), 132);
    EXPECT_EQ(s->compute.cu_mask_granularity, 8);  // 132 % 8 != 0 is allowed
    EXPECT_EQ(s->compute.stream_priority_levels, 6);
    EXPECT_DOUBLE_EQ(s->memory.llc_bytes, 0);
    EXPECT_DOUBLE_EQ(s->memory.llc_bw, 0);
    EXPECT_EQ(s->interconnect.topology, Topology::switched);
    EXPECT_EQ(s->interconnect.gpus, 8);
    EXPECT_DOUBLE_EQ(s->interconnect.link_bw, 450e9);
    EXPECT_EQ(s->dma.engines, 3);
    EXPECT_TRUE(s->model.gemm.persistent);
    EXPECT_EQ(s->model.gemm.macro_tile_m, 128);
    EXPECT_EQ(s->model.gemm.macro_tile_n, 256);
    EXPECT_DOUBLE_EQ(s->compute.peak_flops.at(Dtype::bf16), 989.4e12);
  }
  EXPECT_DOUBLE_EQ(h100.memory.l2_bytes_per_xcd, 50 * kMiB);
  EXPECT_DOUBLE_EQ(h200.memory.l2_bytes_per_xcd, 60 * kMiB);
  EXPECT_DOUBLE_EQ(h100.memory.hbm_bw, 3.35e12);
  EXPECT_DOUBLE_EQ(h200.memory.hbm_bw, 4.8e12);
  EXPECT_DOUBLE_EQ(h200.memory.hbm_bytes, 141e9);
}

TEST(HardwarePresets, LentMachineVariantExtendsH200) {
  const NodeSpec x4 = load_hardware("h200-sxm-x4");
  NodeSpec h200 = load_hardware("h200-sxm");
  EXPECT_EQ(x4.name, "h200-sxm-x4");
  EXPECT_EQ(x4.interconnect.gpus, 4);
  // The launch gap is a property of launching from one host thread, the same on any GPU count
  // (c3bench's old simultaneous release is left out of validation, not copied into the model).
  EXPECT_DOUBLE_EQ(x4.model.dispatch.c3_launch_gap, 4.3e-6);
  // Everything else is inherited: make the two agree on the overridden fields and compare.
  h200.name = x4.name;
  h200.description = x4.description;
  h200.interconnect.gpus = 4;
  h200.source_file = x4.source_file;
  EXPECT_EQ(to_yaml(x4), to_yaml(h200));
}

TEST(HardwarePresets, EveryPresetLoadsAndMatchesItsFile) {
  ASSERT_GE(preset_names().size(), 4u);
  for (const std::string& name : preset_names()) {
    SCOPED_TRACE(name);
    const NodeSpec embedded = load_hardware(name);
    const std::string path = std::string(C3SIM_SOURCE_DIR) + "/hardware/presets/" + name + ".yaml";
    const NodeSpec from_file = load_hardware(path);
    EXPECT_EQ(from_file.source_file, path);
    EXPECT_EQ(to_yaml(embedded), to_yaml(from_file));  // the embedded copy is up to date
  }
}

TEST(HardwarePresets, PresetNamesWorkFromAnyDirectory) {
  const auto old = std::filesystem::current_path();
  std::filesystem::current_path(std::filesystem::temp_directory_path());
  EXPECT_NO_THROW((void)load_hardware("mi300x"));
  EXPECT_NO_THROW((void)load_hardware("h200-sxm-x4"));
  std::filesystem::current_path(old);
}

}  // namespace
}  // namespace c3sim::hw
