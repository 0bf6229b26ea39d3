// The power limit on the averaged draw (model.power.window): a GEMM runs unthrottled until the
// exponential average of its draw reaches the limit, then at the limit's rate; a burst shorter
// than that is not slowed; a `steady_state` program starts at the average its own previous
// iteration left. Times hand-derived from the parameters written here.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "hardware/hardware_loader.h"
#include "models/node/power_window.h"
#include "models/program/program_simulator.h"
#include "sim/base/units.h"
#include "sim/engine/simulation.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

// One flow of `work` units at up to `rate` units/s drawing `joules` per unit on a power resource
// whose limit is `limit` W averaged over `window` s, from an average of `start` W. End time (s).
double power_window_flow_end(double work, double rate, double joules, double limit, double window,
                             double start) {
  engine::Simulation sim;
  const engine::ResourceId power = sim.add_resource("power", limit);
  PowerWindowObserver observer(sim, power, limit, window, start);
  sim.add_observer(&observer);
  double end = -1;
  engine::FlowSpec spec;
  spec.work = work;
  spec.bound = rate;
  spec.demands = {{power, joules}};
  sim.start_flow(spec, [&](TimePs t) { end = static_cast<double>(t) * 1e-12; });
  sim.run();
  return end;
}

TEST(PowerWindow, ALongRunIsThrottledOnceTheAverageReachesTheLimit) {
  // 800 W unthrottled against a 600 W limit, from rest, 20 ms window: the average reaches the
  // limit at 20 ms x ln(800 / 200) = 27.7 ms; from there the flow runs at 600 / 800 of its rate.
  const double rate = 1e6;     // units/s
  const double joules = 8e-4;  // 800 W at full rate
  const double window = 0.020;
  const double t_cap = window * std::log(800.0 / 200.0);
  const double work = 0.1 * rate;  // 100 ms at full rate
  const double expected = t_cap + (work - rate * t_cap) / (rate * 600.0 / 800.0);
  EXPECT_NEAR(power_window_flow_end(work, rate, joules, 600, window, 0), expected, 1e-6);
  // The instantaneous law (the limit from the start) and no limit bracket it.
  EXPECT_GT(expected, 0.1);
  EXPECT_LT(expected, 0.1 * 800.0 / 600.0);
}

TEST(PowerWindow, ABurstShorterThanTheRampIsNotThrottled) {
  const double rate = 1e6;
  const double work = 0.02 * rate;  // 20 ms at full rate, under the 27.7 ms the average needs
  EXPECT_NEAR(power_window_flow_end(work, rate, 8e-4, 600, 0.020, 0), 0.02, 1e-9);
}

TEST(PowerWindow, ABoardAlreadyAtTheLimitIsThrottledFromTheStart) {
  const double rate = 1e6;
  const double work = 0.02 * rate;
  EXPECT_NEAR(power_window_flow_end(work, rate, 8e-4, 600, 0.020, 600), 0.02 * 800.0 / 600.0, 1e-9);
}

TEST(PowerWindow, AnAverageHalfwayUpShortensTheRamp) {
  // From 400 W the average reaches 600 at 20 ms x ln((800 - 400) / 200) = 13.9 ms.
  const double rate = 1e6;
  const double t_cap = 0.020 * std::log(2.0);
  const double work = 0.05 * rate;
  const double expected = t_cap + (work - rate * t_cap) / (rate * 0.75);
  EXPECT_NEAR(power_window_flow_end(work, rate, 8e-4, 600, 0.020, 400), expected, 1e-6);
}

// A GEMM loop on hardware whose limit is averaged over 20 ms: run rested, then as a steady-state
// iteration, which starts where its own end leaves the average.
TEST(PowerWindow, ASteadyStateIterationStartsWhereItEnds) {
  const hw::NodeSpec spec = hw::load_hardware_from_string(
      "extends: h200-sxm\nname: h200-window-test\nmodel:\n  gemm:\n    matrix_efficiency: 0.96\n"
      "  power:\n    limit: 700 W\n    static: 100 W\n    energy_per_flop: 1 pJ\n    window: 20 ms\n",
      "window.yaml");
  const std::string kernels =
      "  streams: [{name: s}]\n  kernels:\n"
      "    - {name: a, stream: s, gemm: {m: 8192, n: 8192, k: 57344, dtype: bf16}}\n"
      "    - {name: b, stream: s, gemm: {m: 8192, n: 8192, k: 57344, dtype: bf16}}\n";
  const auto rested = wl::load_programs_string("program:\n  name: r\n" + kernels, "r.yaml");
  const auto steady =
      wl::load_programs_string("program:\n  name: s\n  steady_state: true\n" + kernels, "s.yaml");
  ProgramSimulator sim(spec);
  const ProgramRun r = sim.simulate(rested.front());
  const ProgramRun s = sim.simulate(steady.front());
  EXPECT_EQ(r.power_start, 0);
  EXPECT_GT(r.power_end, 0);
  // A loop of whole-GPU GEMMs holds the board near its limit: the iteration starts and ends there
  // (a little under it: the last GEMM's last wave and its stores draw less).
  EXPECT_GT(s.power_start, 0.98 * 600);
  EXPECT_LT(s.power_start, 600);
  EXPECT_NEAR(s.power_end, s.power_start, 1e-3 * 600);
  // Rested, the first GEMM runs its first tens of ms unthrottled: the step is shorter.
  EXPECT_LT(r.step_us, s.step_us);
  // At the limit throughout: 2 x 2 x 8192^2 x 57344 FLOP at 600 TFLOP/s, plus the launches.
  EXPECT_NEAR(s.step_us, 4.0 * 8192.0 * 8192.0 * 57344.0 / 600e12 * 1e6, 0.01 * s.step_us);
}

// A kernel known only by its duration draws model.power.measured_kernel_power while it runs: a
// 20 ms measured kernel at 500 W (of 600 allowed) before a ~37 ms GEMM (~950 W unthrottled)
// raises the average the GEMM starts from (to 500 (1 - 1/e) = 316 W), so the GEMM meets the limit
// after 12 ms instead of 20 and the step is longer; at 0 W it draws nothing. On half the GPU's CUs
// it draws half.
TEST(PowerWindow, AMeasuredKernelsDrawCountsTowardTheAverage) {
  const std::string base =
      "extends: h200-sxm\nname: h200-measured-draw\nmodel:\n  gemm:\n    matrix_efficiency: 0.96\n"
      "  power:\n    limit: 700 W\n    static: 100 W\n    energy_per_flop: 1 pJ\n    window: 20 ms\n";
  const auto program = wl::load_programs_string(
      "program:\n  name: p\n  streams: [{name: s}]\n  kernels:\n"
      "    - {name: elementwise, stream: s, measured: {time_us: 20000}}\n"
      "    - {name: g, stream: s, gemm: {m: 8192, n: 8192, k: 229376, dtype: bf16}}\n",
      "p.yaml");
  const auto run = [&](const std::string& extra) {
    return ProgramSimulator(hw::load_hardware_from_string(base + extra, "hw.yaml")).simulate(program.front());
  };
  const ProgramRun silent = run("");
  const ProgramRun drawing = run("    measured_kernel_power: 500 W\n");
  EXPECT_GT(drawing.step_us, silent.step_us * 1.005);
  // Alone for its 20 ms it does not reach the limit (500 < 600 W), so its own time is unchanged:
  // the difference is the GEMM's.
  EXPECT_GT(drawing.power_end, 0);
  // A kernel on 66 of the 132 CUs draws half: at 500 W it leaves the average where the whole-GPU
  // kernel at 250 W does, so the GEMM after it ends at the same time.
  const auto on_half = wl::load_programs_string(
      "program:\n  name: h\n  streams: [{name: s}]\n  kernels:\n"
      "    - {name: elementwise, stream: s, measured: {time_us: 20000, workgroups: 66}}\n"
      "    - {name: g, stream: s, gemm: {m: 8192, n: 8192, k: 229376, dtype: bf16}}\n",
      "h.yaml");
  const ProgramRun half_500 =
      ProgramSimulator(hw::load_hardware_from_string(base + "    measured_kernel_power: 500 W\n", "hw.yaml"))
          .simulate(on_half.front());
  const ProgramRun whole_250 = run("    measured_kernel_power: 250 W\n");
  EXPECT_NEAR(half_500.step_us, whole_250.step_us, 1e-6 * whole_250.step_us);
  EXPECT_GT(whole_250.step_us, silent.step_us);
  EXPECT_LT(whole_250.step_us, drawing.step_us);
}

TEST(PowerWindow, SteadyStateIsAProgramKeyThatRoundTrips) {
  const auto p = wl::load_programs_string(
      "program:\n  name: s\n  steady_state: true\n  streams: [{name: s}]\n  kernels:\n"
      "    - {name: a, stream: s, gemm: {m: 1024, n: 1024, k: 1024, dtype: bf16}}\n",
      "s.yaml");
  ASSERT_TRUE(p.front().steady_state);
  const auto back = wl::load_programs_string(wl::programs_to_yaml({p.front()}), "back.yaml");
  EXPECT_TRUE(back.front().steady_state);
  const auto plain = wl::load_programs_string(wl::programs_to_yaml({back.front()}), "plain.yaml");
  EXPECT_EQ(wl::programs_to_yaml({plain.front()}), wl::programs_to_yaml({back.front()}));
}

}  // namespace
}  // namespace c3sim::models
