// Attribution on programs: every kernel's slowdown against its isolated time, split by cause from
// counterfactual runs of the program (models/program/counterfactuals.h).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "hardware/hardware_loader.h"
#include "models/program/counterfactuals.h"
#include "models/program/program_simulator.h"
#include "workloads/program_generators.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

double bandwidth_sum(const Attribution& a) {
  return std::accumulate(a.bandwidth_us.begin(), a.bandwidth_us.end(), 0.0,
                         [](double s, const auto& kv) { return s + kv.second; });
}

// The parts add up to the slowdown: dispatch + CUs + cache + latency + bandwidth = full - iso,
// unless the CU term was clamped at zero (the compute run faster than alone less the delay).
void expect_parts_add_up(const KernelResult& k) {
  ASSERT_TRUE(k.attribution.has_value()) << k.run.name;
  const Attribution& a = *k.attribution;
  EXPECT_NEAR(a.slowdown_us, k.run.duration_us() - k.iso_us, 1e-6 * std::max(1.0, k.iso_us)) << k.run.name;
  const double parts =
      a.dispatch_delay_us + a.cus_unavailable_us + a.cache_us + a.memory_latency_us + bandwidth_sum(a);
  if (a.cus_unavailable_us > 0) {
    EXPECT_NEAR(parts, a.slowdown_us, 1e-6 * std::max(1.0, k.iso_us)) << k.run.name;
  }
  EXPECT_GE(a.dispatch_delay_us, 0) << k.run.name;
}

// A generated FSDP layer step (all-gathers prefetched beside GEMMs, reduce-scatters beside the
// backward GEMMs) on the H200 preset: every kernel carries causes that add up; the GEMMs that
// overlap a collective lose time to the memory system or the CUs the collective holds, and the
// kernels' causes are not all zero.
TEST(ProgramAttribution, FsdpStepKernelsCarryCausesThatAddUp) {
  ProgramSimulator sim(hw::load_hardware("h200-sxm"));
  const wl::Program p = wl::generate_program("fsdp-layer", "", 1, SourceLocation{"test", 0, 0});
  const ProgramResult r = sim.run(p, "base", nullptr, nullptr, /*attribution=*/true);
  ASSERT_EQ(r.kernels.size(), p.kernels.size());
  double gemm_slowdown = 0, gemm_explained = 0;
  for (const KernelResult& k : r.kernels) {
    expect_parts_add_up(k);
    if (k.run.kind == wl::KernelKind::gemm && k.attribution->slowdown_us > 0) {
      gemm_slowdown += k.attribution->slowdown_us;
      gemm_explained += k.attribution->cus_unavailable_us + k.attribution->cache_us +
                        k.attribution->memory_latency_us + bandwidth_sum(*k.attribution);
    }
  }
  EXPECT_GT(gemm_slowdown, 0);
  EXPECT_GT(gemm_explained, 0.5 * gemm_slowdown);
}

// A kernel that waits for another on a different stream is not charged for the wait: its duration
// runs from ready (dependencies met) to end, and alone in that window it is as fast as alone.
TEST(ProgramAttribution, WaitingForADependencyIsNoSlowdown) {
  ProgramSimulator sim(hw::load_hardware("mi300x"));
  const wl::Program p = wl::load_programs_string(R"(program:
  name: wait
  streams: [{name: a}, {name: b}]
  kernels:
    - {name: g1, stream: a, gemm: {m: 8192, n: 8192, k: 8192}}
    - {name: g2, stream: b, after: [g1], gemm: {m: 4096, n: 4096, k: 4096}}
)",
                                                 "wait.yaml")[0];
  const ProgramResult r = sim.run(p, "base", nullptr, nullptr, true);
  for (const KernelResult& k : r.kernels) {
    expect_parts_add_up(k);
    EXPECT_NEAR(k.attribution->slowdown_us, 0.0, 1e-6 * k.iso_us) << k.run.name;
  }
}

// Two GEMMs on separate streams launched together share the CUs: the second is held back by the
// first's workgroups (dispatch delay or CUs unavailable), not by the caches alone.
TEST(ProgramAttribution, ConcurrentGemmsLoseCusToEachOther) {
  ProgramSimulator sim(hw::load_hardware("mi300x"));
  const wl::Program p = wl::load_programs_string(R"(program:
  name: pair_of_gemms
  launch_gap_us: 1
  streams: [{name: a}, {name: b}]
  kernels:
    - {name: g1, stream: a, gemm: {m: 8192, n: 8192, k: 8192}}
    - {name: g2, stream: b, gemm: {m: 8192, n: 8192, k: 8192}}
)",
                                                 "gemms.yaml")[0];
  const ProgramResult r = sim.run(p, "base", nullptr, nullptr, true);
  const Attribution& second = *r.kernels[1].attribution;
  EXPECT_GT(second.slowdown_us, 0.3 * r.kernels[1].iso_us);
  EXPECT_GT(second.dispatch_delay_us + second.cus_unavailable_us, 0.5 * second.slowdown_us);
}

// Without the flag no counterfactual runs and no causes.
TEST(ProgramAttribution, OffByDefault) {
  ProgramSimulator sim(hw::load_hardware("mi300x"));
  const wl::Program p = wl::generate_program("fsdp-layer", "", 1, SourceLocation{"test", 0, 0});
  for (const KernelResult& k : sim.run(p, "base").kernels) EXPECT_FALSE(k.attribution.has_value());
}

}  // namespace
}  // namespace c3sim::models
