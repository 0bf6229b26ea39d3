// What makes short GEMMs slower than their FLOPs (issue 14, conditioned 2 x H200 files and the
// one-H200 K sweep): the part of a tile's output store that does not overlap the mainloop
// (model.gemm.epilogue_exposed). Expected values are derived by hand from the h200-sxm preset.
#include <gtest/gtest.h>

#include "hardware/hardware_fields.h"
#include "hardware/hardware_loader.h"
#include "hardware/hardware_writer.h"
#include "models/run/c3_simulator.h"
#include "sim/base/errors.h"
#include "tests/models/model_test_util.h"

namespace c3sim::models {
namespace {

using testing::timing_only;

double iso_us(const hw::NodeSpec& spec, const wl::Gemm& g) {
  C3Simulator sim(spec, timing_only());
  return sim.iso_gemm(g).time_us;
}

hw::NodeSpec h200_with(const std::string& key, const std::string& value) {
  hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  hw::set_field(spec, key, value);
  return spec;
}

TEST(GemmShortKernel, ExposedStoreAddsOneTileWriteAtTheSmShareOfHbm) {
  // 1408 x 3072 = 11 x 12 macro-tiles of 128 x 256: 132 tiles, one per SM, one wave.
  // One tile's output: 128 * 256 * 2 B = 65536 B; one SM's share of model.memory.hbm_bandwidth
  // 4.3 TB/s is 4.3e12 / 132 = 32.58 GB/s; 65536 / 32.58e9 = 2.012 us added to the wave.
  const wl::Gemm g{"one_wave", 1408, 3072, 4096, hw::Dtype::bf16, ""};
  const double off = iso_us(hw::load_hardware("h200-sxm"), g);
  const double on = iso_us(h200_with("model.gemm.epilogue_exposed", "1"), g);
  const double half = iso_us(h200_with("model.gemm.epilogue_exposed", "0.5"), g);
  EXPECT_NEAR(on - off, 2.012, 0.02);
  EXPECT_NEAR(half - off, 1.006, 0.02);
  // Per tile, so it scales with the tiles an SM runs: 8192^2 has 64 x 32 = 2048 tiles, 15.5 per
  // SM; at K = 256 the store (2.01 us) rivals the mainloop (2 * 128 * 256 * 256 FLOP at
  // 989.4e12 * 0.797 / 132 FLOP/s per SM = 2.81 us), so the small-K GEMM slows by ~70%, the
  // K = 8192 one (mainloop 89.8 us per tile) by ~2%.
  const wl::Gemm small_k{"k256", 8192, 8192, 256, hw::Dtype::bf16, ""};
  const wl::Gemm large_k{"k8192", 8192, 8192, 8192, hw::Dtype::bf16, ""};
  const hw::NodeSpec exposed = h200_with("model.gemm.epilogue_exposed", "1");
  const hw::NodeSpec base = hw::load_hardware("h200-sxm");
  const double small_ratio = iso_us(exposed, small_k) / iso_us(base, small_k);
  const double large_ratio = iso_us(exposed, large_k) / iso_us(base, large_k);
  EXPECT_GT(small_ratio, 1.45);  // (2.81 + 2.01) / 2.81 = 1.72 on the tiles, less the launch share
  EXPECT_LT(small_ratio, 1.80);
  EXPECT_NEAR(large_ratio, (89.8 + 2.01) / 89.8, 0.01);
}

TEST(GemmShortKernel, ExposedStoreAbsentByDefaultRoundTripsAndRejectsNegative) {
  for (const char* preset : {"h200-sxm", "mi300x", "h100-sxm"}) {
    const hw::NodeSpec spec = hw::load_hardware(preset);
    EXPECT_EQ(hw::get_field(spec, "model.gemm.epilogue_exposed"), "") << preset;
    EXPECT_EQ(hw::to_yaml(spec).find("epilogue_exposed"), std::string::npos) << preset;
  }
  const hw::NodeSpec set = hw::load_hardware_from_string(
      "extends: h200-sxm\nname: x\nmodel:\n  gemm:\n    epilogue_exposed: 0.9\n", "short.yaml");
  const hw::NodeSpec again = hw::load_hardware_from_string(hw::to_yaml(set), "written.yaml");
  EXPECT_DOUBLE_EQ(again.model.gemm.epilogue_exposed, 0.9);
  EXPECT_THROW(hw::load_hardware_from_string(
                   "extends: h200-sxm\nname: x\nmodel:\n  gemm:\n    epilogue_exposed: -1\n", "bad.yaml"),
               InputError);
}

}  // namespace
}  // namespace c3sim::models
