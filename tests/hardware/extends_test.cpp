// `extends:` chains: deep merge, overrides, errors located in the file that wrote the value.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "hardware_test_util.h"

namespace c3sim::hw {
namespace {

using testing::expect_input_error;
using testing::line_of;
using testing::preset_text;
using testing::replace_line;
using testing::ScratchDir;

TEST(HardwareExtends, OverrideChangesOneValue) {
  ScratchDir dir;
  const std::string path = dir.write("fast_hbm.yaml",
                                     "# MI300X with faster HBM\n"
                                     "extends: mi300x\n"
                                     "spec:\n"
                                     "  memory:\n"
                                     "    hbm_bandwidth: 6 TB/s\n");
  const LoadedHardware h = load_hardware_with_sources(path);
  EXPECT_DOUBLE_EQ(h.spec.memory.hbm_bw, 6e12);
  EXPECT_EQ(h.spec.name, "mi300x");                 // inherited
  EXPECT_DOUBLE_EQ(h.spec.memory.llc_bw, 17.2e12);  // sibling key in the same section kept
  EXPECT_EQ(h.spec.source_file, path);
  EXPECT_EQ(h.sources.at("spec.memory.hbm_bandwidth").file, path);
  EXPECT_EQ(h.sources.at("spec.memory.hbm_bandwidth").line, 5);
  EXPECT_EQ(h.sources.at("spec.memory.llc_bandwidth").file, "hardware/presets/mi300x.yaml");
}

TEST(HardwareExtends, ErrorsInOverridePointAtOverrideFile) {
  ScratchDir dir;
  const std::string bad_value = dir.write("bad_value.yaml",
                                          "extends: mi300x\n"
                                          "model:\n"
                                          "  gemm:\n"
                                          "    matrix_efficiency: 1.5\n");
  expect_input_error([&] { (void)load_hardware(bad_value); }, "bad_value.yaml", 4,
                     "model.gemm.matrix_efficiency");
  const std::string bad_unit = dir.write("bad_unit.yaml",
                                         "extends: mi300x\n"
                                         "spec:\n"
                                         "  memory:\n"
                                         "    hbm_bandwidth: 6 TB\n");
  expect_input_error([&] { (void)load_hardware(bad_unit); }, "bad_unit.yaml", 4, "spec.memory.hbm_bandwidth");
  const std::string bad_key = dir.write("bad_key.yaml",
                                        "extends: mi300x\n"
                                        "spec:\n"
                                        "  memory:\n"
                                        "    hbm_speed: 6 TB/s\n");
  expect_input_error([&] { (void)load_hardware(bad_key); }, "bad_key.yaml", 4, "spec.memory.hbm_speed");
  // A cross-field rule broken by the override names the override's line too.
  const std::string granularity = dir.write("granularity.yaml",
                                            "extends: h200-sxm\n"
                                            "spec:\n"
                                            "  compute:\n"
                                            "    cu_mask_granularity: 133\n");
  expect_input_error([&] { (void)load_hardware(granularity); }, "granularity.yaml", 4,
                     "spec.compute.cu_mask_granularity");
}

TEST(HardwareExtends, ErrorInBaseFilePointsAtBase) {
  ScratchDir dir;
  const std::string base_text =
      replace_line(preset_text("mi300x"), "    clock: 2100 MHz", "    clock: -5 MHz");
  dir.write("base.yaml", base_text);
  const std::string child = dir.write("child.yaml", "extends: base.yaml\nname: child\n");
  expect_input_error([&] { (void)load_hardware(child); }, "base.yaml", line_of(base_text, "clock: -5 MHz"),
                     "spec.compute.clock");
}

TEST(HardwareExtends, ChainOfRelativeFiles) {
  ScratchDir dir;
  dir.write("a.yaml", "extends: h200-sxm\nname: a\nspec:\n  interconnect:\n    gpus: 4\n");
  dir.write("b.yaml", "extends: a.yaml\nname: b\nmodel:\n  dma:\n    engine_bandwidth: 100 GB/s\n");
  const std::string c = dir.write("c.yaml", "extends: b.yaml\nspec:\n  dma:\n    engines: 28\n");
  const NodeSpec s = load_hardware(c);
  EXPECT_EQ(s.name, "b");
  EXPECT_EQ(s.interconnect.gpus, 4);
  EXPECT_DOUBLE_EQ(s.model.dma.engine_bw, 100e9);
  EXPECT_EQ(s.dma.engines, 28);
  EXPECT_EQ(s.compute.total_cus(), 132);
}

TEST(HardwareExtends, PartialBaseIsCompletedByOverride) {
  // Merge happens before parsing: a base may lack keys that the extending file supplies.
  ScratchDir dir;
  const std::string partial = replace_line(preset_text("mi300x"), "    hbm_bandwidth: 5.3 TB/s", "");
  dir.write("partial.yaml", partial);
  const std::string full =
      dir.write("full.yaml", "extends: partial.yaml\nspec:\n  memory:\n    hbm_bandwidth: 5 TB/s\n");
  EXPECT_DOUBLE_EQ(load_hardware(full).memory.hbm_bw, 5e12);
  expect_input_error([&] { (void)load_hardware(dir.path().string() + "/partial.yaml"); }, "partial.yaml", 0,
                     "spec.memory.hbm_bandwidth");
}

TEST(HardwareExtends, Cycle) {
  ScratchDir dir;
  dir.write("a.yaml", "extends: b.yaml\nname: a\n");
  const std::string b = dir.write("b.yaml", "# b\nextends: a.yaml\n");
  // Loading b: b -> a -> b; the edge that closes the cycle is a.yaml's line 1.
  const std::string msg = expect_input_error([&] { (void)load_hardware(b); }, "a.yaml", 1, "extends");
  EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
  const std::string self = dir.write("self.yaml", "name: s\nextends: self.yaml\n");
  expect_input_error([&] { (void)load_hardware(self); }, "self.yaml", 2, "extends");
}

TEST(HardwareExtends, MissingPresetOrFile) {
  ScratchDir dir;
  const std::string path = dir.write("child.yaml", "name: c\nextends: mi400x\n");
  const std::string msg = expect_input_error([&] { (void)load_hardware(path); }, "child.yaml", 2, "extends");
  EXPECT_NE(msg.find("mi400x"), std::string::npos) << msg;
  EXPECT_NE(msg.find("h200-sxm"), std::string::npos) << "should list the presets: " << msg;
  const std::string dir_target = dir.write("dir.yaml", "extends: .\n");
  expect_input_error([&] { (void)load_hardware(dir_target); }, "dir.yaml", 1, "extends");
  const std::string mapping = dir.write("map.yaml", "extends: {a: 1}\n");
  expect_input_error([&] { (void)load_hardware(mapping); }, "map.yaml", 1, "extends");
}

TEST(HardwareExtends, FromStringResolvesPresets) {
  const NodeSpec s =
      load_hardware_from_string("extends: mi300x\nspec:\n  interconnect:\n    gpus: 4\n", "<inline>");
  EXPECT_EQ(s.interconnect.gpus, 4);
  EXPECT_EQ(s.source_file, "<inline>");
}

}  // namespace
}  // namespace c3sim::hw
