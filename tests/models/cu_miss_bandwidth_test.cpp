// model.gemm.cu_miss_bandwidth: a per-CU limit on how fast a GEMM workgroup's L2 misses are served.
// Off in the presets; examples/mi300x_cu_miss_limited.yaml is the MI300X fit that uses it.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "hardware/hardware_writer.h"
#include "models/c3_simulator.h"
#include "models/paper_report.h"
#include "sim/base/errors.h"
#include "workloads/paper_catalog.h"

namespace c3sim::models {
namespace {

const std::string kVariant = std::string(C3SIM_SOURCE_DIR) + "/examples/mi300x_cu_miss_limited.yaml";

SimOptions timing_only() {
  SimOptions o;
  o.attribution = false;
  return o;
}

double slowdown(C3Simulator& sim, const char* tag, int removed) {
  const wl::Gemm g = *wl::find_paper_gemm(tag);
  return sim.iso_gemm(g, 304 - removed).time_us / sim.iso_gemm(g).time_us;
}

TEST(CuMissBandwidth, AbsentFromPresetsAndRoundTrips) {
  const hw::NodeSpec preset = hw::load_hardware("mi300x");
  EXPECT_EQ(preset.model.gemm.cu_miss_bw, 0.0);
  EXPECT_EQ(hw::to_yaml(preset).find("cu_miss_bandwidth"), std::string::npos);
  const hw::NodeSpec variant = hw::load_hardware(kVariant);
  EXPECT_DOUBLE_EQ(variant.model.gemm.cu_miss_bw, 7e9);
  EXPECT_NE(hw::to_yaml(variant).find("cu_miss_bandwidth: 7 GB/s"), std::string::npos);
}

TEST(CuMissBandwidth, ZeroMeansNoLimitAndNegativeIsRejected) {
  const auto load = [](const std::string& value) {
    return hw::load_hardware_from_string(
        "extends: mi300x\nname: x\nmodel:\n  gemm:\n    cu_miss_bandwidth: " + value + "\n", "limit.yaml");
  };
  const hw::NodeSpec off = load("0 GB/s");
  EXPECT_EQ(off.model.gemm.cu_miss_bw, 0.0);
  EXPECT_EQ(hw::to_yaml(off).find("cu_miss_bandwidth"), std::string::npos);
  EXPECT_THROW(load("-1 GB/s"), InputError);
}

TEST(CuMissBandwidth, TurnsTheL2GainOfFewerCusIntoALossBeyondAPoint) {
  C3Simulator preset(hw::load_hardware("mi300x"), timing_only());
  C3Simulator limited(hw::load_hardware(kVariant), timing_only());
  // Without the limit mb2 keeps gaining from fewer tiles in flight; with it the gain stays at
  // small CU losses and the CUs' own miss rate takes over at large ones.
  EXPECT_LT(slowdown(preset, "mb2", 128), 0.95);
  EXPECT_LT(slowdown(limited, "mb2", 8), 1.0);
  EXPECT_GT(slowdown(limited, "mb2", 128), 1.1);
  // With all CUs the LLC binds first: the full-CU time barely moves (Table II's taxonomy holds).
  const wl::Gemm mb2 = *wl::find_paper_gemm("mb2");
  EXPECT_NEAR(limited.iso_gemm(mb2).time_us, preset.iso_gemm(mb2).time_us,
              0.01 * preset.iso_gemm(mb2).time_us);
}

TEST(CuMissBandwidth, VariantKeepsPartitioningNoBetterThanScheduling) {
  PaperOptions o;
  o.figures_isolated = false;
  o.figure9 = false;
  const PaperReport r = make_paper_report(hw::load_hardware(kVariant), o);
  const auto pct = [&](const char* p) { return r.summary.at(p).mean_percent_of_ideal; };
  EXPECT_LE(pct("sp_rp_best"), pct("sp"));  // paper V-B: sp_rp did not improve on sp
  EXPECT_NEAR(pct("rp_best"), 41.0, 5.0);
  EXPECT_NEAR(pct("dma_rp_best"), 72.0, 5.0);
}

}  // namespace
}  // namespace c3sim::models
