// The power limit on the averaged draw (model.power.window): the clock is set from the average of
// the full-clock draw, s = (L / A)^(1/b) once A passes the limit L. A run from rest is unthrottled
// until A reaches L, then slows as A climbs toward its draw; a burst shorter than that is not
// slowed; work that runs part of the time settles where its averaged draw is the limit; a
// `steady_state` program starts at the average its own previous iteration left. The reference
// integrates the same law in 1 us steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "hardware/hardware_loader.h"
#include "models/node/power_window.h"
#include "models/program/program_simulator.h"
#include "sim/base/errors.h"
#include "sim/base/units.h"
#include "sim/engine/simulation.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

// One flow of `work` units at up to `rate` units/s drawing `joules` per unit on a power resource
// whose limit is `limit` W averaged over `window` s, from an average of `start` W. End time (s).
double power_window_flow_end(double work, double rate, double joules, double limit, double window,
                             double start, double rate_exponent = 1) {
  engine::Simulation sim;
  const engine::ResourceId power = sim.add_resource("power", limit);
  PowerWindowObserver observer(sim, power, limit, window, start, rate_exponent);
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

// The law itself, integrated in small steps: A' = (D - A) / window with D = rate x joules, and the
// flow at s(A) of its rate.
double reference_flow_end(double work, double rate, double joules, double limit, double window, double start,
                          double rate_exponent = 1) {
  const double draw = rate * joules;
  const double dt = 1e-6;
  double a = start;
  double done = 0;
  double t = 0;
  for (;;) {
    const double s = a > limit ? std::pow(limit / a, 1 / rate_exponent) : 1;
    const double r = rate * s;
    if (done + r * dt >= work) return t + (work - done) / r;
    done += r * dt;
    a += (draw - a) * (1 - std::exp(-dt / window));
    t += dt;
  }
}

// The clock moves in steps of 1% of the average: the run is within half a percent of the law.
constexpr double kStepTolerance = 0.005;

TEST(PowerWindow, ALongRunIsThrottledOnceTheAverageReachesTheLimit) {
  // 800 W unthrottled against a 600 W limit, from rest, 20 ms window: the average reaches the
  // limit at 20 ms x ln(800 / 200) = 27.7 ms; from there the clock falls toward 600 / 800.
  const double rate = 1e6;         // units/s
  const double joules = 8e-4;      // 800 W at full rate
  const double work = 0.1 * rate;  // 100 ms at full rate
  const double expected = reference_flow_end(work, rate, joules, 600, 0.020, 0);
  EXPECT_NEAR(power_window_flow_end(work, rate, joules, 600, 0.020, 0), expected, kStepTolerance * expected);
  // Unthrottled and throttled from the start bracket it.
  EXPECT_GT(expected, 0.1 + 0.005);
  EXPECT_LT(expected, 0.1 * 800.0 / 600.0 - 0.005);
}

TEST(PowerWindow, ABurstShorterThanTheRampIsNotThrottled) {
  const double rate = 1e6;
  const double work = 0.02 * rate;  // 20 ms at full rate, under the 27.7 ms the average needs
  EXPECT_NEAR(power_window_flow_end(work, rate, 8e-4, 600, 0.020, 0), 0.02, 1e-9);
}

TEST(PowerWindow, ABoardAtItsDrawIsThrottledToTheLimitFromTheStart) {
  // The average already at the flow's 800 W: s = 600 / 800 throughout.
  const double rate = 1e6;
  EXPECT_NEAR(power_window_flow_end(0.02 * rate, rate, 8e-4, 600, 0.020, 800), 0.02 * 800.0 / 600.0, 1e-6);
  // At the limit, it slows as the average climbs from 600 toward 800.
  const double from_limit = reference_flow_end(0.02 * rate, rate, 8e-4, 600, 0.020, 600);
  EXPECT_NEAR(power_window_flow_end(0.02 * rate, rate, 8e-4, 600, 0.020, 600), from_limit,
              kStepTolerance * from_limit);
  EXPECT_GT(from_limit, 0.02 * 1.05);
  EXPECT_LT(from_limit, 0.02 * 800.0 / 600.0);
}

TEST(PowerWindow, AnAverageHalfwayUpShortensTheRamp) {
  // From 400 W the average reaches 600 at 20 ms x ln((800 - 400) / 200) = 13.9 ms.
  const double rate = 1e6;
  const double work = 0.05 * rate;
  const double expected = reference_flow_end(work, rate, 8e-4, 600, 0.020, 400);
  EXPECT_NEAR(power_window_flow_end(work, rate, 8e-4, 600, 0.020, 400), expected, kStepTolerance * expected);
  EXPECT_GT(expected, reference_flow_end(work, rate, 8e-4, 600, 0.020, 0));
}

// With the draw falling as the rate squared (rate_exponent 2), a board at the flow's draw runs it
// at (600 / 800)^(1/2) = 0.866 of its rate, where the linear law gives 0.75: a lower clock draws
// less per unit, so less slowing meets the limit.
TEST(PowerWindow, ADrawFallingFasterThanTheRateIsSlowedLess) {
  const double rate = 1e6;
  const double share = std::sqrt(600.0 / 800.0);
  EXPECT_NEAR(power_window_flow_end(0.02 * rate, rate, 8e-4, 600, 0.020, 800, 2), 0.02 / share, 1e-6);
  const double work = 0.1 * rate;
  const double expected = reference_flow_end(work, rate, 8e-4, 600, 0.020, 0, 2);
  EXPECT_NEAR(power_window_flow_end(work, rate, 8e-4, 600, 0.020, 0, 2), expected, kStepTolerance * expected);
  EXPECT_LT(expected, reference_flow_end(work, rate, 8e-4, 600, 0.020, 0, 1));
  // Work that draws less than the limit is never slowed, whatever the exponent or the start.
  EXPECT_NEAR(power_window_flow_end(0.02 * rate, rate, 5e-4, 600, 0.020, 600, 2), 0.02, 1e-9);
}

TEST(PowerWindow, RateExponentNeedsAWindowAndIsAtLeastOne) {
  const std::string base =
      "extends: h200-sxm\nname: h\nmodel:\n  power:\n    limit: 700 W\n    static: 100 W\n"
      "    energy_per_flop: 1 pJ\n";
  EXPECT_THROW(
      (void)hw::load_hardware_from_string(base + "    window: 0 s\n    rate_exponent: 2\n", "a.yaml"),
      InputError);
  EXPECT_THROW((void)hw::load_hardware_from_string(base + "    rate_exponent: 0.5\n", "b.yaml"), InputError);
  const hw::NodeSpec ok =
      hw::load_hardware_from_string(base + "    window: 10 ms\n    rate_exponent: 2\n", "c.yaml");
  EXPECT_DOUBLE_EQ(ok.model.power.rate_exponent, 2);
}

// A GEMM loop on hardware whose limit is averaged over 20 ms: run rested, then as a steady-state
// iteration, which starts where its own end leaves the average.
TEST(PowerWindow, ASteadyStateIterationStartsWhereItEnds) {
  const hw::NodeSpec spec = hw::load_hardware_from_string(
      "extends: h200-sxm\nname: h200-window-test\nmodel:\n  gemm:\n    matrix_efficiency: 0.96\n"
      "  power:\n    limit: 700 W\n    static: 100 W\n    energy_per_flop: 1 pJ\n    window: 20 ms\n"
      "    energy_per_hbm_byte: 0 pJ\n    rate_exponent: 1\n    measured_kernel_power: 0 W\n",
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
  // A loop of whole-GPU GEMMs holds the average near their full-clock draw (~950 W here: the
  // GEMMs' last waves and stores draw less), far over the limit; the iteration ends where it began.
  EXPECT_GT(s.power_start, 1.3 * 600);
  EXPECT_NEAR(s.power_end, s.power_start, 2e-3 * 600);
  // Rested, the first GEMM runs its first tens of ms unthrottled: the step is shorter.
  EXPECT_LT(r.step_us, s.step_us);
  // At the limit throughout: 2 x 2 x 8192^2 x 57344 FLOP at 600 TFLOP/s, plus the launches.
  EXPECT_NEAR(s.step_us, 4.0 * 8192.0 * 8192.0 * 57344.0 / 600e12 * 1e6, 0.01 * s.step_us);
}

// A GEMM that runs part of the time, between kernels that draw nothing (one workgroup each, at
// measured_kernel_power 0), as a steady-state loop: at half the time its averaged draw (~475 W)
// is under the 600 W limit and it runs unthrottled; at four fifths it settles between unthrottled
// and the always-on 600 / ~950 (gemm_power/gemm_duty.jsonl measured 1.00 / 1.07 / 1.19 at duties
// 0.55 / 0.77 / 1 on an H200).
TEST(PowerWindow, APartTimeLoadSettlesWhereItsAverageIsTheLimit) {
  const hw::NodeSpec limited = hw::load_hardware_from_string(
      "extends: h200-sxm\nname: h200-duty-test\nmodel:\n  gemm:\n    matrix_efficiency: 0.96\n"
      "  power:\n    limit: 700 W\n    static: 100 W\n    energy_per_flop: 1 pJ\n    window: 20 ms\n"
      "    energy_per_hbm_byte: 0 pJ\n    rate_exponent: 1\n    measured_kernel_power: 0 W\n",
      "duty.yaml");
  const hw::NodeSpec free = hw::load_hardware_from_string(
      "extends: h200-sxm\nname: h200-free\nmodel:\n  gemm:\n    matrix_efficiency: 0.96\n  power:\n"
      "    limit: 0 W\n",
      "free.yaml");
  // One GEMM of ~2.4 ms at the full clock (8192 x 8192 x 14336 at ~950 TFLOP/s), then `gap_us`.
  const auto gemm_time = [](const hw::NodeSpec& spec, double gap_us) {
    const auto p = wl::load_programs_string(
        "program:\n  name: d\n  steady_state: true\n  streams: [{name: s}]\n  kernels:\n"
        "    - {name: g, stream: s, gemm: {m: 8192, n: 8192, k: 14336, dtype: bf16}}\n"
        "    - {name: idle, stream: s, measured: {time_us: " +
            std::to_string(gap_us) + ", workgroups: 1}}\n",
        "d.yaml");
    const ProgramRun r = ProgramSimulator(spec).simulate(p.front());
    return r.kernels.front().end_us - r.kernels.front().start_us;
  };
  const double full = gemm_time(free, 2400);
  EXPECT_NEAR(gemm_time(limited, 2400), full, 1e-6 * full);
  const double four_fifths = gemm_time(limited, 600);
  EXPECT_GT(four_fifths, 1.05 * full);
  EXPECT_LT(four_fifths, 0.9 * gemm_time(limited, 1));
}

// A kernel known only by its duration draws model.power.measured_kernel_power while it runs: a
// 20 ms measured kernel at 500 W (of 600 allowed) before a ~37 ms GEMM (~950 W unthrottled)
// raises the average the GEMM starts from (to 500 (1 - 1/e) = 316 W), so the GEMM meets the limit
// after 12 ms instead of 20 and the step is longer; at 0 W it draws nothing. On half the GPU's CUs
// it draws half.
TEST(PowerWindow, AMeasuredKernelsDrawCountsTowardTheAverage) {
  const std::string base =
      "extends: h200-sxm\nname: h200-measured-draw\nmodel:\n  gemm:\n    matrix_efficiency: 0.96\n"
      "  power:\n    limit: 700 W\n    static: 100 W\n    energy_per_flop: 1 pJ\n    window: 20 ms\n"
      "    energy_per_hbm_byte: 0 pJ\n    rate_exponent: 1\n";
  const auto program = wl::load_programs_string(
      "program:\n  name: p\n  streams: [{name: s}]\n  kernels:\n"
      "    - {name: elementwise, stream: s, measured: {time_us: 20000}}\n"
      "    - {name: g, stream: s, gemm: {m: 8192, n: 8192, k: 229376, dtype: bf16}}\n",
      "p.yaml");
  const auto run = [&](const std::string& extra) {
    return ProgramSimulator(hw::load_hardware_from_string(base + extra, "hw.yaml")).simulate(program.front());
  };
  const ProgramRun silent = run("    measured_kernel_power: 0 W\n");
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
