// Family files (hardware/presets/families/): the Hopper presets take every mechanism and shared
// model parameter from one file and hold only their own datasheet facts and measured library data.
// A family file is a base for `extends:`, not a node: it is not listed, and naming it is an input error.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "hardware/hardware_fields.h"
#include "hardware/hardware_loader.h"
#include "hardware/preset_registry.h"
#include "sim/base/errors.h"
#include "tests/hardware/hardware_test_util.h"

namespace c3sim::hw {
namespace {

constexpr const char* kHopper = "hardware/presets/families/hopper.yaml";

// What may differ between two Hopper GPUs: datasheet facts and each GPU's own measurements.
const std::set<std::string>& chip_keys() {
  static const std::set<std::string> keys{
      "name",
      "description",
      "spec.compute.clock",
      "spec.compute.peak.bf16",
      "spec.compute.peak.fp16",
      "spec.compute.peak.fp8",
      "spec.compute.peak.tf32",
      "spec.compute.peak.fp32",
      "spec.memory.l2_per_xcd",
      "spec.memory.hbm",
      "spec.memory.hbm_bandwidth",
      "spec.interconnect.gpus",
      "spec.interconnect.link_bandwidth",
      "model.gemm.matrix_efficiency",
      "model.gemm.dtype_efficiency.fp16",
      "model.gemm.dtype_efficiency.fp8",
      "model.memory.hbm_bandwidth",
      "model.memory.xcd_fabric_bandwidth",
      // A gather's HBM round trip, random-row bandwidth and fixed cost: the H200's HBM3e, measured
      // there only (an H100 without them streams a gather's bytes).
      "model.memory.gather_latency",
      "model.memory.gather_bandwidth",
      "model.memory.gather_startup_latency",
      "model.dma.engine_bandwidth",
  };
  return keys;
}

TEST(FamilyFile, HopperPresetsHoldOnlyTheirFactsAndOwnMeasurements) {
  for (const char* name : {"h100-sxm", "h200-sxm"}) {
    SCOPED_TRACE(name);
    const LoadedHardware h = load_hardware_with_sources(name);
    const std::string own = std::string("hardware/presets/") + name + ".yaml";
    int from_family = 0;
    for (const FieldDef& f : hardware_fields()) {
      const std::string key(f.key);
      if (!h.sources.has(key)) continue;
      const std::string file = h.sources.at(key).file;
      if (chip_keys().count(key) != 0) {
        EXPECT_EQ(file, own) << key;  // each GPU states its own facts, none inherited by accident
      } else {
        EXPECT_EQ(file, kHopper) << key;
        ++from_family;
      }
    }
    EXPECT_GE(from_family, 40);
  }
}

// The mechanisms learned on H200 are the H100's too; before the family file the H100 preset lacked
// them and predicted an 8-GPU GEMM + all-gather under sp fully serialized.
TEST(FamilyFile, H100AndH200ShareTheMechanisms) {
  const NodeSpec h100 = load_hardware("h100-sxm");
  const NodeSpec h200 = load_hardware("h200-sxm");
  for (const NodeSpec* s : {&h100, &h200}) {
    EXPECT_TRUE(s->model.gemm.dynamic_tiles);
    EXPECT_TRUE(s->model.collective.channel_queueing);
    EXPECT_TRUE(s->model.collective.partition_caps_channels);
    EXPECT_TRUE(s->model.gemm.memory_stall_workgroups_only);
  }
  EXPECT_EQ(h100.model.collective.memory_stall_fraction, h200.model.collective.memory_stall_fraction);
  EXPECT_EQ(h100.model.gemm.memory_stall_fraction, h200.model.gemm.memory_stall_fraction);
  EXPECT_EQ(h100.model.collective.link_bw, h200.model.collective.link_bw);
  EXPECT_EQ(h100.model.dispatch.c3_launch_gap, h200.model.dispatch.c3_launch_gap);
  EXPECT_NE(h100.memory.hbm_bw, h200.memory.hbm_bw);  // the facts still differ
  EXPECT_NE(h100.model.memory.hbm_bw, h200.model.memory.hbm_bw);
}

TEST(FamilyFile, IsNotAPresetAndCannotBeLoadedAsANode) {
  ASSERT_NE(find_family("hopper"), nullptr);
  EXPECT_EQ(find_family("hopper")->path, kHopper);
  EXPECT_EQ(find_preset("hopper"), nullptr);
  const auto names = preset_names();
  EXPECT_EQ(std::find(names.begin(), names.end(), "hopper"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "h100-sxm"), names.end());
  const auto families = family_names();
  EXPECT_NE(std::find(families.begin(), families.end(), "hopper"), families.end());
  try {
    (void)load_hardware("hopper");
    ADD_FAILURE() << "a family file loaded as a node";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("family file"), std::string::npos) << msg;
    EXPECT_NE(msg.find("h100-sxm"), std::string::npos) << msg;  // names the presets to use
  }
}

TEST(FamilyFile, AUserFileMayExtendIt) {
  const testing::ScratchDir dir;
  const NodeSpec h200 = load_hardware("h200-sxm");
  std::string text = testing::preset_text("h200-sxm");
  text = testing::replace_line(text, "name: h200-sxm", "name: my-hopper");
  const NodeSpec mine = load_hardware(dir.write("mine.yaml", text));
  EXPECT_EQ(mine.name, "my-hopper");
  EXPECT_EQ(mine.model.gemm.dynamic_tiles, h200.model.gemm.dynamic_tiles);
  EXPECT_EQ(mine.memory.hbm_bw, h200.memory.hbm_bw);
}

}  // namespace
}  // namespace c3sim::hw
