// Two latency-bound limits of the MI300X preset that the paper's C3 results imply:
// - model.gemm.cu_miss_bandwidth with hbm_miss_latency_ratio: one CU has only so many L2 misses in
//   flight, and a miss the Infinity Cache passes on to HBM takes longer, so memory-bound GEMMs
//   stop gaining from fewer CUs (Fig. 5(a), IV-B1, V-B) while compute-bound ones are unaffected.
// - model.collective.link_stall_fraction: remote writes wait on the peers' loaded memory, a
//   slowdown of the links that more workgroups cannot buy back (the V-C heuristic's premise).
#include <gtest/gtest.h>

#include "hardware/hardware_fields.h"
#include "hardware/hardware_loader.h"
#include "hardware/hardware_writer.h"
#include "models/policies/policy.h"
#include "models/run/c3_simulator.h"
#include "sim/base/errors.h"
#include "tests/models/model_test_util.h"
#include "workloads/paper_catalog.h"

namespace c3sim::models {
namespace {

using testing::gemm_slowdown;
using testing::timing_only;

hw::NodeSpec mi300x_with(const std::string& key, const std::string& value) {
  hw::NodeSpec spec = hw::load_hardware("mi300x");
  hw::set_field(spec, key, value);
  return spec;
}

// The same override through a hardware file, as users write it (the loader's own checks).
hw::NodeSpec load_override(const std::string& section, const std::string& line) {
  return hw::load_hardware_from_string(
      "extends: mi300x\nname: x\nmodel:\n  " + section + ":\n    " + line + "\n", "limits.yaml");
}

TEST(MemoryLatencyLimits, SetOnMi300xOnlyAndRoundTrip) {
  const hw::NodeSpec mi = hw::load_hardware("mi300x");
  EXPECT_DOUBLE_EQ(mi.model.gemm.cu_miss_bw, 13e9);
  EXPECT_DOUBLE_EQ(mi.model.gemm.hbm_miss_latency_ratio, 2.0);
  EXPECT_DOUBLE_EQ(mi.model.collective.link_stall_fraction, 0.6);
  const hw::NodeSpec again = hw::load_hardware_from_string(hw::to_yaml(mi), "written.yaml");
  EXPECT_EQ(again.model.gemm.cu_miss_bw, mi.model.gemm.cu_miss_bw);
  EXPECT_EQ(again.model.gemm.hbm_miss_latency_ratio, mi.model.gemm.hbm_miss_latency_ratio);
  EXPECT_EQ(again.model.collective.link_stall_fraction, mi.model.collective.link_stall_fraction);
  // Presets that do not set them leave them out of what they write.
  const std::string h100 = hw::to_yaml(hw::load_hardware("h100-sxm"));
  for (const char* key : {"cu_miss_bandwidth", "hbm_miss_latency_ratio", "link_stall_fraction"})
    EXPECT_EQ(h100.find(key), std::string::npos) << key;
}

TEST(MemoryLatencyLimits, ZeroTurnsThemOffAndBadValuesAreRejected) {
  const hw::NodeSpec off = load_override("gemm", "cu_miss_bandwidth: 0 GB/s");
  EXPECT_EQ(off.model.gemm.cu_miss_bw, 0.0);
  EXPECT_EQ(hw::to_yaml(off).find("cu_miss_bandwidth"), std::string::npos);
  EXPECT_THROW(load_override("gemm", "cu_miss_bandwidth: -1 GB/s"), InputError);
  EXPECT_THROW(load_override("gemm", "hbm_miss_latency_ratio: 0"), InputError);
  EXPECT_THROW(load_override("collective", "link_stall_fraction: -0.1"), InputError);
}

TEST(MemoryLatencyLimits, MemoryBoundGemmsStopGainingFromFewerCus) {
  // On the paper-fitted file: there mb1/mb2 are memory-bound (on the grounded preset hipBLASLt's
  // remap makes them compute-bound and the limit rarely binds).
  const hw::NodeSpec fit = hw::load_hardware(testing::paper_fit_hardware());
  hw::NodeSpec no_limit = fit;
  hw::set_field(no_limit, "model.gemm.cu_miss_bandwidth", "0 GB/s");
  C3Simulator preset(fit, timing_only());
  C3Simulator unlimited(no_limit, timing_only());
  // Without the limit mb2 keeps gaining from fewer tiles in flight (more L2 hits)...
  EXPECT_LT(gemm_slowdown(unlimited, "mb2", 128), 0.95);
  // ...with it the gain stays at small CU losses and the CUs' own miss rate takes over.
  EXPECT_LT(gemm_slowdown(preset, "mb2", 8), 1.0);
  EXPECT_GT(gemm_slowdown(preset, "mb2", 128), 1.1);
  EXPECT_GT(gemm_slowdown(preset, "mb1", 128), 1.1);
  // With all CUs the Infinity Cache's bandwidth binds first: Table II's taxonomy is untouched.
  const wl::Gemm mb2 = *wl::find_paper_gemm("mb2");
  EXPECT_NEAR(preset.iso_gemm(mb2).time_us, unlimited.iso_gemm(mb2).time_us,
              0.01 * unlimited.iso_gemm(mb2).time_us);
}

TEST(MemoryLatencyLimits, HbmLatencyRatioSparesComputeBoundGemms) {
  // Priced as if every miss were an LLC hit, the same limit binds on cb3's poorly shared tail tiles;
  // pricing HBM misses higher lets the limit stay out of compute-bound GEMMs (LLC hit 65-85%).
  C3Simulator flat(mi300x_with("model.gemm.hbm_miss_latency_ratio", "1"), timing_only());
  C3Simulator unlimited(mi300x_with("model.gemm.cu_miss_bandwidth", "0 GB/s"), timing_only());
  C3Simulator preset(hw::load_hardware("mi300x"), timing_only());
  const wl::Gemm cb3 = *wl::find_paper_gemm("cb3");
  const double free_run = unlimited.iso_gemm(cb3, 240).time_us;
  EXPECT_LT(preset.iso_gemm(cb3, 240).time_us, 1.01 * free_run);
  EXPECT_LT(flat.iso_gemm(cb3, 240).time_us, preset.iso_gemm(cb3, 240).time_us);
  // The flat pricing lets mb2 run faster at -128 than the preset does (its misses go to HBM).
  EXPECT_LT(gemm_slowdown(flat, "mb2", 128), gemm_slowdown(preset, "mb2", 128));
}

TEST(MemoryLatencyLimits, MoreWorkgroupsCannotBuyBackLinkStall) {
  const wl::Scenario s = *wl::find_paper_scenario("cb2_3.25G_ag");  // a link-bound C-long all-gather
  const auto coll_us = [&](hw::NodeSpec spec, const char* policy) {
    C3Simulator sim(std::move(spec), timing_only());
    return sim.run(s, *make_policy(policy, sim.spec())).coll_us;
  };
  // All the collective's queueing on its links: 32 workgroups do as well as 64, and both are slowed.
  hw::NodeSpec on_links = mi300x_with("model.collective.memory_stall_fraction", "0");
  const double links32 = coll_us(on_links, "rp:32");
  EXPECT_LE(links32, 1.02 * coll_us(on_links, "rp:64"));
  hw::NodeSpec no_stall = on_links;
  hw::set_field(no_stall, "model.collective.link_stall_fraction", "0");
  EXPECT_GT(links32, 1.05 * coll_us(no_stall, "rp:32"));
  // All of it in the copy loops instead: 64 workgroups have headroom that 32 lack.
  hw::NodeSpec in_loops = mi300x_with("model.collective.link_stall_fraction", "0");
  hw::set_field(in_loops, "model.collective.memory_stall_fraction", "1.2");
  EXPECT_GT(coll_us(in_loops, "rp:32"), 1.05 * coll_us(in_loops, "rp:64"));
}

}  // namespace
}  // namespace c3sim::models
