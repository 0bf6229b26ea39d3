// The board power limit as a shared resource (model.power): a whole-GPU GEMM runs at the FLOP rate
// the power left above the static draw pays for, a GEMM on fewer SMs below that rate is not slowed,
// and a memory kernel beside a capped GEMM takes power from it. Numbers hand-derived from the
// parameters written here.
#include <gtest/gtest.h>

#include <string>

#include "hardware/hardware_loader.h"
#include "hardware/hardware_writer.h"
#include "models/program/program_simulator.h"
#include "sim/base/errors.h"
#include "sim/base/units.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

// limit 700 W, static 100 W: 600 W for work; 1 pJ per FLOP caps GEMMs at 600 TFLOP/s. The copy
// loop's memory stall (model.collective.memory_stall_fraction) is off: these tests isolate the cap.
// The preset's own limit acts on the averaged draw (families/hopper.yaml); here a `power` block is
// the instantaneous law (no window, linear in the rate, measured kernels drawing nothing), and
// without one the limit is off.
std::string power_file(const std::string& power) {
  const std::string block =
      power.empty() ? std::string("  power:\n    limit: 0 W\n")
                    : power + "    window: 0 s\n    rate_exponent: 1\n    measured_kernel_power: 0 W\n";
  return "extends: h200-sxm\nname: h200-power-test\nmodel:\n  gemm:\n    matrix_efficiency: 0.96\n"
         "  collective:\n    memory_stall_fraction: 0\n" +
         block;
}
const char* kCap =
    "  power:\n    limit: 700 W\n    static: 100 W\n    energy_per_flop: 1 pJ\n    energy_per_hbm_byte: 100 "
    "pJ\n";
// The same without a cost for HBM bytes: the cap is then exactly 600 TFLOP/s.
const char* kFlopsOnly =
    "  power:\n    limit: 700 W\n    static: 100 W\n    energy_per_flop: 1 pJ\n    energy_per_hbm_byte: 0 "
    "pJ\n";

double gemm_tflops(const hw::NodeSpec& spec, int cus, const std::string& dtype = "bf16") {
  // A long-K GEMM on `cus` SMs (a masked stream), alone.
  const auto p = wl::load_programs_string(
      "program:\n  name: g\n  streams: [{name: s, cus: " + std::to_string(cus) +
          "}]\n  kernels:\n    - {name: g, stream: s, gemm: {m: 8192, n: 8192, k: 57344, dtype: " + dtype +
          "}}\n",
      "g.yaml");
  ProgramSimulator sim(spec);
  const ProgramRun run = sim.simulate(p.front());
  const KernelRun& g = run.kernels.front();
  return 2.0 * 8192.0 * 8192.0 * 57344.0 / ((g.end_us - g.start_us) * 1e-6) / 1e12;
}

TEST(PowerCap, WholeGpuGemmRunsAtTheRateThePowerPaysFor) {
  const hw::NodeSpec capped = hw::load_hardware_from_string(power_file(kFlopsOnly), "cap.yaml");
  const hw::NodeSpec with_hbm = hw::load_hardware_from_string(power_file(kCap), "hbm.yaml");
  const hw::NodeSpec free = hw::load_hardware_from_string(power_file(""), "free.yaml");
  // Uncapped: up to 0.96 x 989.4 TFLOP/s ~ 950 on 132 SMs (the preset's L2 panel-read limit takes
  // some); capped: 600 W / 1 pJ = 600 TFLOP/s, and less once the GEMM's HBM bytes draw power too.
  const double whole_free = gemm_tflops(free, 132);
  const double whole_capped = gemm_tflops(capped, 132);
  EXPECT_GT(whole_free, 800);
  // (start to end: the last partial wave and the output store run below the cap)
  EXPECT_LE(whole_capped, 600.0);
  EXPECT_GT(whole_capped, 0.98 * 600.0);
  EXPECT_LT(gemm_tflops(with_hbm, 132), whole_capped - 1);
  // 32 SMs: ~0.96 x 989.4 x 32 / 132 = 230 TFLOP/s, 230 W of the 600: the cap does not bind.
  EXPECT_NEAR(gemm_tflops(capped, 32), gemm_tflops(free, 32), 1e-6 * gemm_tflops(free, 32));
  EXPECT_LT(gemm_tflops(capped, 32), 600.0 * 32 / 132 * 2);
}

// model.power.dtype_energy: an fp16 FLOP at twice a bf16 FLOP's energy caps fp16 GEMMs at half
// the rate (300 TFLOP/s of the 600 W); bf16 keeps its 600; without the entry an fp16 GEMM costs
// the Hopper family's 1.05x (571 TFLOP/s).
TEST(PowerCap, ADtypesEnergyScalesItsCap) {
  const hw::NodeSpec doubled = hw::load_hardware_from_string(
      power_file(std::string(kFlopsOnly) + "    dtype_energy:\n      fp16: 2\n"), "fp16.yaml");
  const hw::NodeSpec plain = hw::load_hardware_from_string(power_file(kFlopsOnly), "plain.yaml");
  EXPECT_LE(gemm_tflops(doubled, 132, "fp16"), 300.0);
  EXPECT_GT(gemm_tflops(doubled, 132, "fp16"), 0.98 * 300.0);
  EXPECT_DOUBLE_EQ(gemm_tflops(doubled, 132, "bf16"), gemm_tflops(plain, 132, "bf16"));
  const double family = gemm_tflops(plain, 132, "fp16");
  EXPECT_LE(family, 600.0 / 1.05);
  EXPECT_GT(family, 0.98 * 600.0 / 1.05);
  const hw::NodeSpec back = hw::load_hardware_from_string(hw::to_yaml(doubled), "back.yaml");
  EXPECT_DOUBLE_EQ(back.model.power.dtype_energy.at(Dtype::fp16), 2.0);
}

TEST(PowerCap, AMemoryKernelBesideACappedGemmSlowsIt) {
  const hw::NodeSpec capped = hw::load_hardware_from_string(power_file(kCap), "cap.yaml");
  const auto p = wl::load_programs_string(R"(program:
  name: mem_beside_gemm
  launch_gap_us: 0
  streams: [{name: mem, cus: 16}, {name: gemm, cus: 116}]
  kernels:
    - {name: mem, stream: mem, memory: {bytes: 8 GiB, workgroups: 16}}
    - {name: g, stream: gemm, gemm: {m: 8192, n: 8192, k: 57344, dtype: bf16}}
)",
                                          "mem.yaml");
  ProgramSimulator sim(capped);
  const ProgramResult r = sim.run(p.front(), "base");
  ASSERT_EQ(r.kernels.size(), 2u);
  // Alone on its 116 SMs the GEMM is capped (~0.96 x 989.4 x 116 / 132 ~ 835 TFLOP/s wanted of
  // the ~550 the 600 W pay for with its HBM bytes); the memory kernel's bytes (16 x 61.5 GB/s ~
  // 1 TB/s x 100 pJ = ~100 W) take from the same 600 W. The power is shared in proportion to each
  // flow's rate alone, so the memory kernel, overlapped for all of its ~9 ms, runs ~1/(1 - 100 /
  // 650) ~ 1.18x slower, and the GEMM slower for the part of its ~15 ms it overlaps.
  EXPECT_GT(r.kernels[0].slowdown(), 1.1);
  EXPECT_LT(r.kernels[0].slowdown(), 1.3);
  EXPECT_GT(r.kernels[1].slowdown(), 1.03);
  // Without the limit the memory kernel loses only what sharing the L2 with the GEMM costs it.
  const hw::NodeSpec free = hw::load_hardware_from_string(power_file(""), "free.yaml");
  ProgramSimulator free_sim(free);
  const ProgramResult f = free_sim.run(p.front(), "base");
  EXPECT_GT(r.kernels[0].slowdown(), f.kernels[0].slowdown() + 0.05);
}

TEST(PowerCap, ALimitTheWorkNeverReachesChangesNothing) {
  const hw::NodeSpec free = hw::load_hardware_from_string(power_file(""), "free.yaml");
  const hw::NodeSpec ample = hw::load_hardware_from_string(
      power_file("  power:\n    limit: 100 kW\n    static: 100 W\n    energy_per_flop: 1 pJ\n"
                 "    energy_per_hbm_byte: 100 pJ\n"),
      "ample.yaml");
  EXPECT_DOUBLE_EQ(gemm_tflops(free, 132), gemm_tflops(ample, 132));
  EXPECT_DOUBLE_EQ(gemm_tflops(free, 64), gemm_tflops(ample, 64));
}

TEST(PowerCap, BadPowerSectionsAreInputErrorsNamingTheKey) {
  const auto expect_error = [](const std::string& power, const std::string& key) {
    try {
      (void)hw::load_hardware_from_string(power_file(power), "bad.yaml");
      FAIL() << "expected an InputError for " << key;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos) << e.what();
    }
  };
  expect_error("  power:\n    limit: 700 W\n    static: 700 W\n    energy_per_flop: 1 pJ\n",
               "model.power.static");
  expect_error("  power:\n    limit: 700 W\n    static: 100 W\n    energy_per_flop: 0 J\n",
               "model.power.energy_per_flop");
  expect_error("  power:\n    limit: 700 GB/s\n", "model.power.limit");
  expect_error("  power:\n    limit: 700 W\n    static: 100 W\n    energy_per_flop: 1 pW\n",
               "model.power.energy_per_flop");
}

TEST(PowerCap, PowerAndEnergyUnitsParseAndRoundTrip) {
  EXPECT_DOUBLE_EQ(*parse_quantity("700 W", Dimension::power, nullptr), 700.0);
  EXPECT_DOUBLE_EQ(*parse_quantity("1.5 kW", Dimension::power, nullptr), 1500.0);
  EXPECT_DOUBLE_EQ(*parse_quantity("0.683 pJ", Dimension::energy, nullptr), 0.683e-12);
  std::string why;
  EXPECT_FALSE(parse_quantity("700 J", Dimension::power, &why).has_value());
  EXPECT_NE(why.find("power"), std::string::npos) << why;
  const hw::NodeSpec spec = hw::load_hardware_from_string(power_file(kCap), "cap.yaml");
  const hw::NodeSpec back = hw::load_hardware_from_string(hw::to_yaml(spec), "back.yaml");
  EXPECT_DOUBLE_EQ(back.model.power.limit, 700.0);
  EXPECT_DOUBLE_EQ(back.model.power.static_power, 100.0);
  EXPECT_DOUBLE_EQ(back.model.power.energy_per_flop, 1e-12);
  EXPECT_DOUBLE_EQ(back.model.power.energy_per_hbm_byte, 100e-12);
  // Absent section (the MI300X preset has none): absent again.
  const std::string plain = hw::to_yaml(hw::load_hardware("mi300x"));
  EXPECT_EQ(plain.find("power:"), std::string::npos);
}

}  // namespace
}  // namespace c3sim::models
