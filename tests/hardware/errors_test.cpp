// Every way a hardware file can be wrong is an InputError naming file, line and dotted key.
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

// Writes the MI300X preset with one line replaced and expects loading it to fail at that line.
void expect_edit_fails(const std::string& needle, const std::string& replacement, const std::string& key,
                       const std::string& problem_part) {
  ScratchDir dir;
  const std::string text = replace_line(preset_text("mi300x"), needle, replacement);
  const std::string path = dir.write("edited.yaml", text);
  const int line = line_of(text, replacement);
  ASSERT_GT(line, 0);
  const std::string msg = expect_input_error([&] { (void)load_hardware(path); }, "edited.yaml", line, key);
  EXPECT_NE(msg.find(problem_part), std::string::npos) << msg;
}

TEST(HardwareErrors, MissingFile) {
  const std::string msg = expect_input_error([] { (void)load_hardware("/nonexistent/dir/node.yaml"); },
                                             "/nonexistent/dir/node.yaml", 0, "");
  EXPECT_NE(msg.find("mi300x"), std::string::npos) << "should list the presets: " << msg;
}

TEST(HardwareErrors, MalformedYamlReportsLine) {
  ScratchDir dir;
  const std::string text = "name: x\nspec:\n  compute: [1, 2\n  memory: {}\n";
  const std::string path = dir.write("bad.yaml", text);
  try {
    (void)load_hardware(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml:"), std::string::npos) << e.what();
    EXPECT_GT(e.where().line, 0) << e.what();
    EXPECT_NE(std::string(e.what()).find("malformed YAML"), std::string::npos) << e.what();
  }
}

TEST(HardwareErrors, UnknownKey) {
  expect_edit_fails("    hbm_bandwidth: 5.3 TB/s", "    hbm_bandwith: 5.3 TB/s", "spec.memory.hbm_bandwith",
                    "unknown key");
}

TEST(HardwareErrors, UnknownTopLevelKeyAndSection) {
  expect_edit_fails("name: mi300x", "nmae: mi300x", "nmae", "unknown key");
  expect_edit_fails("  dispatch:", "  dispatchh:", "model.dispatchh", "unknown key");
}

TEST(HardwareErrors, MissingKeyNamesItsSection) {
  ScratchDir dir;
  const std::string original = preset_text("mi300x");
  const std::string text = replace_line(original, "    hbm_bandwidth: 5.3 TB/s", "");
  const std::string path = dir.write("missing.yaml", text);
  // The spec.memory mapping starts at its first key.
  const int section_line = line_of(text, "    l2_per_xcd:");
  const std::string msg = expect_input_error([&] { (void)load_hardware(path); }, "missing.yaml", section_line,
                                             "spec.memory.hbm_bandwidth");
  EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
}

TEST(HardwareErrors, MissingSection) {
  ScratchDir dir;
  const std::string text = "name: x\ndescription: y\n";
  const std::string path = dir.write("bare.yaml", text);
  expect_input_error([&] { (void)load_hardware(path); }, "bare.yaml", 1, "spec.compute.xcds");
}

TEST(HardwareErrors, WrongUnitDimension) {
  expect_edit_fails("    hbm_bandwidth: 5.3 TB/s", "    hbm_bandwidth: 5 us", "spec.memory.hbm_bandwidth",
                    "expected a bandwidth");
}

TEST(HardwareErrors, UnknownUnit) {
  expect_edit_fails("    hbm_bandwidth: 5.3 TB/s", "    hbm_bandwidth: 5.3 TQ/s", "spec.memory.hbm_bandwidth",
                    "unknown unit");
}

TEST(HardwareErrors, MissingUnit) {
  expect_edit_fails("    l2_per_xcd: 4 MiB", "    l2_per_xcd: 4", "spec.memory.l2_per_xcd", "no unit");
}

TEST(HardwareErrors, NegativeValue) {
  expect_edit_fails("    link_bandwidth: 64 GB/s", "    link_bandwidth: -64 GB/s",
                    "spec.interconnect.link_bandwidth", "greater than 0");
  expect_edit_fails("    step_latency: 3.6 us", "    step_latency: -1 us", "model.collective.step_latency",
                    "negative");
}

TEST(HardwareErrors, ZeroValue) {
  expect_edit_fails("    hbm_bandwidth: 5.3 TB/s", "    hbm_bandwidth: 0 TB/s", "spec.memory.hbm_bandwidth",
                    "greater than 0");
  expect_edit_fails("    xcds: 8", "    xcds: 0", "spec.compute.xcds", "greater than 0");
  expect_edit_fails("    engines: 14", "    engines: 0", "spec.dma.engines", "greater than 0");
  expect_edit_fails("    macro_tile_m: 256", "    macro_tile_m: 0", "model.gemm.macro_tile_m",
                    "greater than 0");
}

TEST(HardwareErrors, NonIntegerCount) {
  expect_edit_fails("    cus_per_xcd: 38", "    cus_per_xcd: 38.5", "spec.compute.cus_per_xcd",
                    "not an integer");
  expect_edit_fails("    gpus: 8", "    gpus: eight", "spec.interconnect.gpus", "not an integer");
  expect_edit_fails("    gpus: 8", "    gpus: 99999999999999999999", "spec.interconnect.gpus",
                    "out of range");
}

TEST(HardwareErrors, BadEnumAndBool) {
  expect_edit_fails("    topology: fully_connected", "    topology: ring", "spec.interconnect.topology",
                    "fully_connected, switched");
  expect_edit_fails("    engine_map: per_peer", "    engine_map: random", "model.dma.engine_map",
                    "round_robin");
  expect_edit_fails("    persistent: false", "    persistent: no", "model.gemm.persistent", "true or false");
}

TEST(HardwareErrors, WrongType) {
  expect_edit_fails("    hbm_bandwidth: 5.3 TB/s", "    hbm_bandwidth: [5.3 TB/s]",
                    "spec.memory.hbm_bandwidth", "expected a value");
  expect_edit_fails("    hbm_bandwidth: 5.3 TB/s", "    hbm_bandwidth:", "spec.memory.hbm_bandwidth",
                    "expected a value");
  ScratchDir dir;
  const std::string path = dir.write("scalar_section.yaml", "extends: mi300x\nmodel:\n  dispatch: 5\n");
  const std::string msg =
      expect_input_error([&] { (void)load_hardware(path); }, "scalar_section.yaml", 3, "model.dispatch");
  EXPECT_NE(msg.find("expected a mapping"), std::string::npos) << msg;
}

TEST(HardwareErrors, ImpossibleValues) {
  expect_edit_fails("    cu_mask_granularity: 8", "    cu_mask_granularity: 400",
                    "spec.compute.cu_mask_granularity", "larger than the 304 CUs");
  expect_edit_fails("    gpus: 8", "    gpus: 1", "spec.interconnect.gpus", "at least 2");
  expect_edit_fails("    matrix_efficiency: 0.542", "    matrix_efficiency: 1.2",
                    "model.gemm.matrix_efficiency", "(0, 1]");
  expect_edit_fails("    matrix_efficiency: 0.542", "    matrix_efficiency: 0",
                    "model.gemm.matrix_efficiency", "(0, 1]");
  expect_edit_fails("    default_workgroups_all_gather: 64", "    default_workgroups_all_gather: 305",
                    "model.collective.default_workgroups_all_gather", "more than the 304 CUs");
  expect_edit_fails("    cus_per_xcd: 38", "    cus_per_xcd: 2000000", "spec.compute.cus_per_xcd", "at most");
  expect_edit_fails("    hbm_bandwidth: 5.3 TB/s", "    hbm_bandwidth: 1e308 TB/s",
                    "spec.memory.hbm_bandwidth", "out of range");
  expect_edit_fails("name: mi300x", "name: ''", "name", "empty");
}

TEST(HardwareErrors, LlcSizeAndBandwidthMustAgree) {
  // llc 0 (no LLC) is fine only with zero LLC bandwidths, and the other way round.
  ScratchDir dir;
  const std::string no_llc = replace_line(preset_text("mi300x"), "    llc: 256 MiB", "    llc: 0 B");
  const std::string no_llc_path = dir.write("no_llc.yaml", no_llc);
  const std::string msg =
      expect_input_error([&] { (void)load_hardware(no_llc_path); }, "no_llc.yaml",
                         line_of(no_llc, "    llc_bandwidth: 17.2 TB/s"), "spec.memory.llc_bandwidth");
  EXPECT_NE(msg.find("must be 0"), std::string::npos) << msg;
  // h200-sxm inherits llc: 0 B from the Hopper family file; a bandwidth beside it is still caught.
  std::string text = preset_text("h200-sxm");
  text = replace_line(text, "    hbm: 141 GB", "    hbm: 141 GB\n    llc_bandwidth: 1 TB/s");
  const std::string path = dir.write("llc.yaml", text);
  expect_input_error([&] { (void)load_hardware(path); }, "llc.yaml", line_of(text, "llc_bandwidth: 1 TB/s"),
                     "spec.memory.llc_bandwidth");
}

TEST(HardwareErrors, FromStringUsesLabel) {
  const std::string text = replace_line(preset_text("mi300x"), "    xcds: 8", "    xcds: -8");
  expect_input_error([&] { (void)load_hardware_from_string(text, "<my label>"); }, "<my label>",
                     line_of(text, "xcds: -8"), "spec.compute.xcds");
  expect_input_error([] { (void)load_hardware_from_string("", "<empty>"); }, "<empty>", 0, "");
  expect_input_error([] { (void)load_hardware_from_string("- a\n- b\n", "<list>"); }, "<list>", 0, "");
}

}  // namespace
}  // namespace c3sim::hw
