// The gemm_library: section of a hardware file (library behaviour per GEMM shape): loading,
// overriding through extends, writing back, and every way an entry can be wrong.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "hardware/hardware_writer.h"
#include "hardware_test_util.h"

namespace c3sim::hw {
namespace {

using testing::expect_input_error;
using testing::line_of;
using testing::ScratchDir;

const std::string kBase =
    "extends: h200-sxm-x4\n"
    "name: measured\n"
    "gemm_library:\n"
    "  - {shape: 8192x8192x8192, dtype: bf16, efficiency: 0.79, time_alone: 1460.3 us, records: 9}\n"
    "  - {shape: 8192x8192x256, efficiency: 0.82}\n"
    "  - {shape: 8192x8192x8192, dtype: fp8, efficiency: 0.74}\n";

TEST(GemmLibrary, LoadsEntriesKeyedByShapeAndDtype) {
  ScratchDir dir;
  const NodeSpec s = load_hardware(dir.write("lib.yaml", kBase));
  ASSERT_EQ(s.gemm_library.size(), 3u);
  const GemmLibraryEntry* e = s.gemm_library.find(8192, 8192, 8192, Dtype::bf16);
  ASSERT_NE(e, nullptr);
  EXPECT_DOUBLE_EQ(e->efficiency, 0.79);
  EXPECT_NEAR(e->time_alone, 1460.3e-6, 1e-12);
  EXPECT_EQ(e->records, 9);
  ASSERT_NE(s.gemm_library.find(8192, 8192, 256, Dtype::bf16), nullptr);  // dtype defaults to bf16
  EXPECT_DOUBLE_EQ(s.gemm_library.find(8192, 8192, 8192, Dtype::fp8)->efficiency, 0.74);
  EXPECT_EQ(s.gemm_library.find(8192, 8192, 8192, Dtype::fp16), nullptr);
  EXPECT_EQ(s.gemm_library.find(8192, 8192, 512, Dtype::bf16), nullptr);
  // The presets carry no library data.
  EXPECT_TRUE(load_hardware("h200-sxm-x4").gemm_library.empty());
}

TEST(GemmLibrary, AFileOverridesTheEntriesItExtends) {
  ScratchDir dir;
  dir.write("lib.yaml", kBase);
  const std::string child = dir.write("child.yaml",
                                      "extends: lib.yaml\nname: child\ngemm_library:\n"
                                      "  - {shape: 8192x8192x8192, efficiency: 0.81}\n"
                                      "  - {shape: 4096x4096x4096, efficiency: 0.83}\n");
  const NodeSpec s = load_hardware(child);
  EXPECT_EQ(s.gemm_library.size(), 4u);
  EXPECT_DOUBLE_EQ(s.gemm_library.find(8192, 8192, 8192, Dtype::bf16)->efficiency, 0.81);
  EXPECT_EQ(s.gemm_library.find(8192, 8192, 8192, Dtype::bf16)->records, 0);  // replaced whole
  EXPECT_DOUBLE_EQ(s.gemm_library.find(8192, 8192, 256, Dtype::bf16)->efficiency, 0.82);
}

TEST(GemmLibrary, WrittenBackLoadsToTheSameSpec) {
  ScratchDir dir;
  const NodeSpec s = load_hardware(dir.write("lib.yaml", kBase));
  const NodeSpec again = load_hardware(dir.write("again.yaml", to_yaml(s)));
  EXPECT_EQ(again.gemm_library, s.gemm_library);
  EXPECT_NE(gemm_library_yaml(s.gemm_library).find("time_alone: 1460.3 us, records: 9"), std::string::npos);
  EXPECT_EQ(gemm_library_yaml(GemmLibrary{}), "");
  // Extreme values survive the text: nothing rounds to zero (which would read back as "not given").
  NodeSpec tiny = s;
  tiny.gemm_library.set({8, 8, 8, Dtype::bf16, 1e-5, 4e-9, 1});
  const NodeSpec tiny_again = load_hardware(dir.write("tiny.yaml", to_yaml(tiny)));
  EXPECT_EQ(to_yaml(tiny_again), to_yaml(tiny));
  EXPECT_GT(tiny_again.gemm_library.find(8, 8, 8, Dtype::bf16)->time_alone, 0);
}

// Each bad entry: the file, the entry's line and its dotted key, and what is wrong.
void expect_bad_entry(const std::string& entry, const std::string& key, const std::string& problem) {
  ScratchDir dir;
  const std::string text =
      "extends: h200-sxm-x4\nname: bad\ngemm_library:\n  - {shape: 1x2x3, efficiency: 0.5}\n" + entry + "\n";
  const std::string path = dir.write("bad.yaml", text);
  const std::string msg =
      expect_input_error([&] { (void)load_hardware(path); }, "bad.yaml", line_of(text, entry), key);
  EXPECT_NE(msg.find(problem), std::string::npos) << msg;
}

TEST(GemmLibrary, BadEntriesNameFileLineAndKey) {
  expect_bad_entry("  - {shape: 8192x8192, efficiency: 0.5}", "gemm_library[1].shape", "not a GEMM shape");
  expect_bad_entry("  - {shape: 8192x0x8192, efficiency: 0.5}", "gemm_library[1].shape", "not a GEMM shape");
  expect_bad_entry("  - {shape: 8x8x8x8, efficiency: 0.5}", "gemm_library[1].shape", "not a GEMM shape");
  expect_bad_entry("  - {shape: 8x8x8, efficiency: 1.5}", "gemm_library[1].efficiency", "outside (0, 1]");
  expect_bad_entry("  - {shape: 8x8x8, efficiency: 0}", "gemm_library[1].efficiency", "outside (0, 1]");
  expect_bad_entry("  - {shape: 8x8x8, efficiency: fast}", "gemm_library[1].efficiency", "fast");
  expect_bad_entry("  - {shape: 8x8x8}", "gemm_library[1].efficiency", "required key is missing");
  expect_bad_entry("  - {shape: 8x8x8, efficiency: 0.5, speed: 2}", "gemm_library[1].speed", "unknown key");
  expect_bad_entry("  - {shape: 8x8x8, dtype: int4, efficiency: 0.5}", "gemm_library[1].dtype",
                   "unknown dtype");
  expect_bad_entry("  - {shape: 8x8x8, efficiency: 0.5, time_alone: 3 GB}", "gemm_library[1].time_alone", "");
  expect_bad_entry("  - {shape: 1x2x3, dtype: bf16, efficiency: 0.6}", "gemm_library[1].shape",
                   "listed twice");
  expect_bad_entry("  - just a string", "gemm_library[1]", "expected a mapping");
}

TEST(GemmLibrary, NotAListIsAnError) {
  ScratchDir dir;
  const std::string text = "extends: h200-sxm-x4\nname: bad\ngemm_library: {shape: 8x8x8}\n";
  const std::string msg = expect_input_error([&] { (void)load_hardware(dir.write("bad.yaml", text)); },
                                             "bad.yaml", 3, "gemm_library");
  EXPECT_NE(msg.find("expected a list"), std::string::npos) << msg;
}

}  // namespace
}  // namespace c3sim::hw
