// hipBLASLt's workgroup -> XCD tile mapping (model.gemm.workgroup_remap) and per-dtype kernels
// (model.gemm.dtype_efficiency / dtype_macro_tile_n), on the shapes of the ROCm "max-achievable
// FLOPs" blog. Expected values are derived by hand in the comments from the cache model's rule:
// hit = (1 - unique panels / (2 x tiles)) x min(1, L2 / (unique panels x 256 x depth_k x 2 B)).
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/kernels/gemm_kernel.h"
#include "models/node/cache_model.h"
#include "sim/base/errors.h"

namespace c3sim::models {
namespace {

hw::NodeSpec mi300x(hw::WorkgroupRemap remap, int swizzle) {
  hw::NodeSpec s = hw::load_hardware("mi300x");
  s.model.gemm.workgroup_remap = remap;
  s.model.gemm.tile_swizzle = swizzle;
  return s;
}

// 4096 x 4864 x 32896 bf16 in 256 x 256 tiles: 16 x 19 = 304 tiles, 38 per XCD; L2 4 MiB, depth 576.
double bf16_l2_hit(const hw::NodeSpec& s, std::int64_t first_wg) {
  const GemmPlan p = plan_gemm({"", 4096, 4864, 32896, Dtype::bf16, ""}, s, 304);
  EXPECT_EQ(p.geometry.tiles_m, 16);
  EXPECT_EQ(p.geometry.tiles_n, 19);
  const CacheModel cache(s);
  return cache.l2_hit(p.geometry, first_wg, 38, 0);
}

TEST(XcdRemap, RoundRobinSpreadsAnXcdOverEveryPanel) {
  // Tiles 0, 8, ..., 296: all 16 rows and (gcd(8, 19) = 1) all 19 columns: 35 panels.
  // (1 - 35/76) x 4 MiB / (35 x 256 x 576 x 2 B = 10321920) = 0.5395 x 0.40634 = 0.21921.
  EXPECT_NEAR(bf16_l2_hit(mi300x(hw::WorkgroupRemap::round_robin, 1), 0), 0.21921, 1e-4);
}

TEST(XcdRemap, ContiguousBlocksShareRowPanels) {
  // XCD 0 computes tiles 0..37 = rows 0-1, all 19 columns: 21 panels.
  // (1 - 21/76) x 4194304 / 6193152 = 0.72368 x 0.67725 = 0.49012.
  const hw::NodeSpec s = mi300x(hw::WorkgroupRemap::xcd_contiguous, 1);
  EXPECT_NEAR(bf16_l2_hit(s, 0), 0.49012, 1e-4);
  // Workgroup 3 runs on XCD 3, which computes tiles 114..151 = rows 6-7: the same count.
  EXPECT_NEAR(bf16_l2_hit(s, 3), 0.49012, 1e-4);
}

TEST(XcdRemap, ContiguousBlocksInBandsOfEightRowsFitTheL2) {
  // WGM8: tiles 0..37 walk 8-row bands column by column: rows 0-7, columns 0-4, 13 panels;
  // 13 x 256 x 576 x 2 B = 3833856 fits 4 MiB, so hit = 1 - 13/76 = 0.82895.
  EXPECT_NEAR(bf16_l2_hit(mi300x(hw::WorkgroupRemap::xcd_contiguous, 8), 0), 0.82895, 1e-4);
}

TEST(XcdRemap, DtypeKernelsHaveTheirOwnEfficiencyAndTileWidth) {
  const hw::NodeSpec s = hw::load_hardware("mi300x");
  // fp8: 256 x 192 tiles, 3648 / 192 = 19 columns; 2614.9 TFLOP/s / 304 CUs x 0.487.
  const GemmPlan fp8 = plan_gemm({"", 4096, 3648, 32896, Dtype::fp8, ""}, s, 304);
  EXPECT_EQ(fp8.geometry.tiles_n, 19);
  EXPECT_NEAR(fp8.cu_flop_rate, 2614.9e12 / 304 * 0.487, 1e6);
  // fp16: its own efficiency on bf16's tiles; bf16: matrix_efficiency.
  const GemmPlan fp16 = plan_gemm({"", 4096, 4864, 32896, Dtype::fp16, ""}, s, 304);
  EXPECT_EQ(fp16.geometry.tiles_n, 19);
  EXPECT_NEAR(fp16.cu_flop_rate, 1307.4e12 / 304 * 0.500, 1e6);
  const GemmPlan bf16 = plan_gemm({"", 4096, 4864, 32896, Dtype::bf16, ""}, s, 304);
  EXPECT_NEAR(bf16.cu_flop_rate, 1307.4e12 / 304 * 0.542, 1e6);
}

TEST(XcdRemap, UnknownMappingIsAnInputError) {
  const std::string text = "extends: mi300x\nname: bad\nmodel:\n  gemm:\n    workgroup_remap: diagonal\n";
  EXPECT_THROW((void)hw::load_hardware_from_string(text, "<bad remap>"), InputError);
}

}  // namespace
}  // namespace c3sim::models
