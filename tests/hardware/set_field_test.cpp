// set_field (used by sweeps) and to_yaml (used by calibration).
#include <gtest/gtest.h>

#include <algorithm>

#include "hardware/hardware_loader.h"
#include "hardware_test_util.h"

namespace c3sim::hw {
namespace {

using testing::expect_input_error;
using testing::ScratchDir;

TEST(HardwareSetField, GoodValues) {
  NodeSpec s = load_hardware("mi300x");
  HardwareSourceMap sources;
  set_field(s, "model.dma.engine_bandwidth", "100 GB/s", &sources);
  set_field(s, "spec.dma.engines", "28");
  set_field(s, "spec.interconnect.topology", "switched");
  set_field(s, "model.gemm.persistent", "true");
  set_field(s, "spec.compute.peak.tf32", "653.7 TFLOP/s");
  set_field(s, "description", "a sweep point");
  EXPECT_DOUBLE_EQ(s.model.dma.engine_bw, 100e9);
  EXPECT_EQ(s.dma.engines, 28);
  EXPECT_EQ(s.interconnect.topology, Topology::switched);
  EXPECT_TRUE(s.model.gemm.persistent);
  EXPECT_DOUBLE_EQ(s.compute.peak_flops.at(Dtype::tf32), 653.7e12);
  EXPECT_EQ(s.description, "a sweep point");
  EXPECT_EQ(sources.at("model.dma.engine_bandwidth").file, "<override>");
  EXPECT_EQ(get_field(s, "model.dma.engine_bandwidth"), "100 GB/s");
  EXPECT_NO_THROW(validate(s));
}

TEST(HardwareSetField, BadKeyOrValueLeavesSpecUnchanged) {
  NodeSpec s = load_hardware("mi300x");
  const std::string before = to_yaml(s);
  expect_input_error([&] { set_field(s, "model.dma.engine_bandwith", "1 GB/s"); }, "<override>", 0,
                     "model.dma.engine_bandwith");
  expect_input_error([&] { set_field(s, "model.dma.engine_bandwidth", "5 us"); }, "<override>", 0,
                     "model.dma.engine_bandwidth");
  expect_input_error([&] { set_field(s, "model.dma.engine_bandwidth", "-1 GB/s"); }, "<override>", 0,
                     "model.dma.engine_bandwidth");
  expect_input_error([&] { set_field(s, "spec.dma.engines", "2.5"); }, "<override>", 0, "spec.dma.engines");
  expect_input_error([&] { set_field(s, "spec.dma.engines", "0"); }, "<override>", 0, "spec.dma.engines");
  expect_input_error([&] { set_field(s, "spec.interconnect.gpus", "1"); }, "<override>", 0,
                     "spec.interconnect.gpus");
  expect_input_error([&] { set_field(s, "model.dma.engine_map", "random"); }, "<override>", 0,
                     "model.dma.engine_map");
  expect_input_error([&] { set_field(s, "spec", "1"); }, "<override>", 0, "spec");
  EXPECT_EQ(to_yaml(s), before);
}

TEST(HardwareSetField, CrossFieldRulesAreCheckedByValidate) {
  NodeSpec s = load_hardware("mi300x");
  HardwareSourceMap sources("mi300x");
  set_field(s, "spec.compute.cu_mask_granularity", "512", &sources);  // alone it is a fine count
  expect_input_error([&] { validate(s, sources); }, "<override>", 0, "spec.compute.cu_mask_granularity");
}

TEST(HardwareSetField, EveryFieldNameRoundTrips) {
  const std::vector<std::string> names = field_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "spec.memory.hbm_bandwidth"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "model.collective.step_latency"), names.end());
  const NodeSpec original = load_hardware("mi300x");
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const std::string text = get_field(original, name);
    if (text.empty() && name != "description") continue;  // absent optional peak dtype
    NodeSpec copy = original;
    set_field(copy, name, text);
    EXPECT_EQ(get_field(copy, name), text);
    EXPECT_EQ(to_yaml(copy), to_yaml(original));
  }
}

TEST(HardwareToYaml, RoundTripsEveryPreset) {
  ScratchDir dir;
  for (const std::string& name : preset_names()) {
    SCOPED_TRACE(name);
    const NodeSpec s = load_hardware(name);
    const std::string yaml = to_yaml(s);
    const std::string path = dir.write(name + ".yaml", yaml);
    const NodeSpec back = load_hardware(path);
    EXPECT_EQ(to_yaml(back), yaml);
    EXPECT_EQ(back.name, s.name);
    EXPECT_EQ(back.compute.peak_flops, s.compute.peak_flops);
    EXPECT_EQ(back.memory.hbm_bw, s.memory.hbm_bw);  // exact, not approximately
    EXPECT_EQ(back.model.gemm.matrix_efficiency, s.model.gemm.matrix_efficiency);
  }
}

TEST(HardwareToYaml, RoundTripsAwkwardValues) {
  NodeSpec s = load_hardware("h200-sxm");
  set_field(s, "model.memory.hbm_bandwidth", "4123.456789012 GB/s");
  set_field(s, "model.collective.launch_latency", "1.2345e-7 s");
  set_field(s, "model.gemm.matrix_efficiency", "0.1");
  set_field(s, "spec.memory.l2_per_xcd", "12345 B");
  set_field(s, "description", "quoted: 'yes' # not a comment, \"really\"");
  set_field(s, "name", "true");
  const NodeSpec back = load_hardware_from_string(to_yaml(s), "<roundtrip>");
  EXPECT_EQ(back.model.memory.hbm_bw, s.model.memory.hbm_bw);
  EXPECT_EQ(back.model.collective.launch_latency, s.model.collective.launch_latency);
  EXPECT_EQ(back.model.gemm.matrix_efficiency, 0.1);
  EXPECT_EQ(back.memory.l2_bytes_per_xcd, 12345);
  EXPECT_EQ(back.description, s.description);
  EXPECT_EQ(back.name, "true");
  EXPECT_EQ(to_yaml(back), to_yaml(s));
}

TEST(HardwareToYaml, UsesReadableUnits) {
  const std::string yaml = to_yaml(load_hardware("mi300x"));
  EXPECT_NE(yaml.find("l2_per_xcd: 4 MiB"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("hbm_bandwidth: 5.3 TB/s"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("launch_latency: 6 us"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("clock: 2.1 GHz"), std::string::npos) << yaml;
}

}  // namespace
}  // namespace c3sim::hw
