// The `measured` kernel kind in the program simulator: alone it takes its time (after the launch
// latency); it sees CU occupancy only.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/program/program_simulator.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

TEST(MeasuredKernel, AloneTakesItsMeasuredTimeAndQueuesForCus) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  const double latency_us = spec.model.dispatch.kernel_launch_latency * 1e6;
  ProgramSimulator sim(spec);
  const auto one = wl::load_programs_string(R"(program:
  name: one
  streams: [{name: s}]
  kernels:
    - {name: a, stream: s, measured: {time_us: 100, workgroups: 5000}}
)",
                                            "one.yaml");
  // 5000 blocks hold min(5000, 132) CUs for 100 us: latency + 100.
  EXPECT_NEAR(sim.simulate(one.front()).step_us, latency_us + 100, 1e-6);
  // Two full-GPU measured kernels on two streams, launched together: the second waits for CUs,
  // so the step is latency + 200, not latency + 100.
  const auto two = wl::load_programs_string(R"(program:
  name: two
  launch_gap_us: 0
  streams: [{name: s}, {name: t}]
  kernels:
    - {name: a, stream: s, measured: {time_us: 100}}
    - {name: b, stream: t, measured: {time_us: 100}}
)",
                                            "two.yaml");
  EXPECT_NEAR(sim.simulate(two.front()).step_us, latency_us + 200, 1e-6);
  // Two 66-CU kernels fit side by side: latency + 100.
  const auto half = wl::load_programs_string(R"(program:
  name: half
  launch_gap_us: 0
  streams: [{name: s}, {name: t}]
  kernels:
    - {name: a, stream: s, measured: {time_us: 100, workgroups: 66}}
    - {name: b, stream: t, measured: {time_us: 100, workgroups: 66}}
)",
                                             "half.yaml");
  EXPECT_NEAR(sim.simulate(half.front()).step_us, latency_us + 100, 1e-6);
}

TEST(MeasuredKernel, OnAMaskedStreamRunsOneWaveOverTheMask) {
  // An imported kernel's workgroups is its traced grid and time_us the whole grid's: on a stream
  // masked to 100 CUs it holds those 100 CUs for time_us (one wave, as c3bench replays it), not
  // min(grid, 132) = 132 workgroups in two waves over 100 CUs.
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  const double latency_us = spec.model.dispatch.kernel_launch_latency * 1e6;
  ProgramSimulator sim(spec);
  const auto masked = wl::load_programs_string(R"(program:
  name: masked
  streams: [{name: s, cus: 100}]
  kernels:
    - {name: a, stream: s, measured: {time_us: 100, workgroups: 88064}}
)",
                                               "masked.yaml");
  EXPECT_NEAR(sim.simulate(masked.front()).step_us, latency_us + 100, 1e-6);
  // Asked for more workgroups than the mask holds but fewer than the GPU: still one wave.
  const auto between = wl::load_programs_string(R"(program:
  name: between
  streams: [{name: s, cus: 64}]
  kernels:
    - {name: a, stream: s, measured: {time_us: 100, workgroups: 100}}
)",
                                                "between.yaml");
  EXPECT_NEAR(sim.simulate(between.front()).step_us, latency_us + 100, 1e-6);
}

// A grid of more blocks than one wave holds (blocks_per_cu: its occupancy) runs in waves that each
// hold the kernel's CUs for their share of time_us: alone it still takes time_us, and between
// waves another stream's kernel can take CUs, the higher-priority stream first.
double end_of(const ProgramRun& run, const std::string& name) {
  for (const KernelRun& k : run.kernels) {
    if (k.name == name) return k.end_us;
  }
  ADD_FAILURE() << "no kernel " << name;
  return 0;
}

TEST(MeasuredKernel, InWavesLetsAnotherStreamInBetweenByPriority) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  const double latency_us = spec.model.dispatch.kernel_launch_latency * 1e6;
  ProgramSimulator sim(spec);
  // 132 CUs x 16 blocks x 10 = 21120 blocks: 10 waves of 10 us.
  const auto alone = wl::load_programs_string(R"(program:
  name: alone
  streams: [{name: s}]
  kernels:
    - {name: a, stream: s, measured: {time_us: 100, workgroups: 21120, blocks_per_cu: 16}}
)",
                                              "alone.yaml");
  EXPECT_NEAR(sim.simulate(alone.front()).step_us, latency_us + 100, 1e-6);
  const auto beside = [&](int priority) {
    const auto p = wl::load_programs_string(fmt::format(R"(program:
  name: beside
  streams: [{{name: s}}, {{name: t, priority: {}}}]
  kernels:
    - {{name: a, stream: s, gap_us: 0, measured: {{time_us: 100, workgroups: 21120, blocks_per_cu: 16}}}}
    - {{name: b, stream: t, gap_us: 5, measured: {{time_us: 10, workgroups: 132}}}}
)",
                                                        priority),
                                            "beside.yaml");
    return sim.simulate(p.front());
  };
  // At a higher priority b takes the CUs the first wave frees (10 us after a starts) and holds
  // them 10 us; a's other nine waves follow.
  const ProgramRun urgent = beside(1);
  EXPECT_NEAR(end_of(urgent, "b"), latency_us + 20, 1e-6);
  EXPECT_NEAR(end_of(urgent, "a"), latency_us + 110, 1e-6);
  // At the same priority the older kernel keeps them: b runs after a's last wave.
  const ProgramRun same = beside(0);
  EXPECT_NEAR(end_of(same, "a"), latency_us + 100, 1e-6);
  EXPECT_NEAR(end_of(same, "b"), latency_us + 110, 1e-6);
}

}  // namespace
}  // namespace c3sim::models
