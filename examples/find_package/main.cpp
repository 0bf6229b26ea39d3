// Uses the installed simulator: an 8192^3 bf16 GEMM on the MI300X preset, alone and beside an
// all-gather under the `base` policy. Prints both times; exits 1 unless the concurrent run is
// slower than the isolated one (sharing CUs and memory can only cost the GEMM time).
#include <cstdio>

#include "hardware/hardware_loader.h"
#include "models/policies/policy.h"
#include "models/run/c3_simulator.h"
#include "workloads/scenario.h"

int main() {
  using namespace c3sim;
  const hw::NodeSpec spec = hw::load_hardware("mi300x");
  models::C3Simulator sim(spec);
  wl::Scenario s;
  s.name = "consumer";
  s.gemm = wl::Gemm{"", 8192, 8192, 8192, Dtype::bf16, ""};
  s.collective.op = wl::CollectiveOp::all_gather;
  s.collective.bytes = 512LL << 20;
  const double iso_us = sim.iso_gemm(s.gemm).time_us;
  const models::C3Result r = sim.run(s, *models::make_policy("base", spec));
  std::printf("gemm alone %.1f us, beside an all-gather %.1f us (total %.1f us)\n", iso_us, r.gemm_us,
              r.total_us);
  return r.gemm_us > iso_us ? 0 : 1;
}
