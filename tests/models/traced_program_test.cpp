// Programs imported from traces: the traced GPU picks or checks the hardware
// (models/run/traced_hardware.h), each kernel is compared with its traced duration
// (models/fit/traced_kernel_validation.h), and a what-if that makes GEMMs faster keeps every
// kernel after the kernels it waits for in the trace (torch_trace_dependencies.h).
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/fit/traced_kernel_validation.h"
#include "models/policies/transform_registry.h"
#include "models/run/program_runner.h"
#include "models/run/traced_hardware.h"
#include "sim/base/errors.h"
#include "workloads/program_io.h"
#include "workloads/torch_trace_import.h"

namespace c3sim::models {
namespace {

wl::ProgramDevice device(const std::string& name, std::optional<int> cus) {
  return wl::ProgramDevice{name, cus, std::nullopt, {}};
}

TEST(TracedHardware, ModelWordIsTheFirstWordWithADigit) {
  EXPECT_EQ(device_model_word("NVIDIA H200"), "h200");
  EXPECT_EQ(device_model_word("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(device_model_word("AMD Instinct MI300X"), "mi300x");
  EXPECT_EQ(device_model_word("cpu"), "");
}

TEST(TracedHardware, PresetByModelWordAndSmCount) {
  EXPECT_EQ(preset_for_device(device("NVIDIA H200", 132), 2), "h200-sxm");
  EXPECT_EQ(preset_for_device(device("NVIDIA H100 80GB HBM3", 132), 2), "h100-sxm");
  EXPECT_EQ(preset_for_device(device("AMD Instinct MI300X", 304), 8), "mi300x");
  EXPECT_EQ(preset_for_device(device("NVIDIA H200", std::nullopt), 2), "h200-sxm");
  // A cut-down part (another SM count) or an unknown GPU has no preset.
  EXPECT_FALSE(preset_for_device(device("NVIDIA H200", 114), 2).has_value());
  EXPECT_FALSE(preset_for_device(device("NVIDIA A100-SXM4-80GB", 108), 2).has_value());
  // More GPUs than any H200 preset has.
  EXPECT_FALSE(preset_for_device(device("NVIDIA H200", 132), 16).has_value());
  EXPECT_FALSE(device_matches(device("NVIDIA H200", 132), hw::load_hardware("mi300x")));
  EXPECT_TRUE(device_matches(device("NVIDIA H200", 132), hw::load_hardware("h200-sxm-x4")));
}

const char* kTraced = R"(program:
  name: traced
  streams: [{name: s}]
  kernels:
    - {name: g, stream: s, gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}, traced_us: TRACED}
    - {name: m, stream: s, measured: {time_us: 10, workgroups: 1}, traced_us: 10}
    - {name: x, stream: s, measured: {time_us: 5, workgroups: 1}}
  measured_step_us: 1000
)";

wl::Program traced_program(double gemm_traced_us) {
  std::string text = kTraced;
  text.replace(text.find("TRACED"), 6, fmt::format("{}", gemm_traced_us));
  return wl::load_programs_string(text, "traced.yaml").front();
}

TEST(TracedKernelValidation, EachKernelAgainstItsTracedDuration) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  // The GEMM's predicted span, then a trace that says it took twice that: -50%.
  const double gemm_us = validate_traced_kernels(spec, traced_program(100)).rows[0].predicted_us;
  ASSERT_GT(gemm_us, 0);
  const TracedKernelReport r = validate_traced_kernels(spec, traced_program(2 * gemm_us));
  ASSERT_EQ(r.rows.size(), 2U);  // x has no traced_us
  EXPECT_EQ(r.without_traced, 1);
  EXPECT_NEAR(r.rows[0].pct_error(), -50, 1e-9);
  // The measured kernel runs alone for its time: no error.
  EXPECT_NEAR(r.rows[1].pct_error(), 0, 1e-9);
  ASSERT_EQ(r.kinds.size(), 2U);
  EXPECT_EQ(r.kinds[0].kind, wl::KernelKind::gemm);
  EXPECT_NEAR(r.kinds[0].mean_abs_pct_error, 50, 1e-9);
  EXPECT_NEAR(r.kinds[0].mean_pct_error, -50, 1e-9);
  // Worst kernels: modelled ones only.
  ASSERT_EQ(r.worst.size(), 1U);
  EXPECT_EQ(r.rows[r.worst[0]].kernel, "g");
  EXPECT_DOUBLE_EQ(r.traced_step_us, 1000);
  EXPECT_NEAR(r.step_pct_error(), 100.0 * (r.predicted_step_us - 1000) / 1000, 1e-12);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["kinds"][0]["kind"], "gemm");
  EXPECT_EQ(j["worst"][0]["kernel"], "g");
}

TEST(TracedKernelValidation, AProgramWithoutTraceIsAnInputError) {
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  wl::Program p = traced_program(100);
  p.measured_step_us.reset();
  EXPECT_THROW((void)validate_traced_kernels(spec, p), InputError);
  p = traced_program(100);
  for (auto& k : p.kernels) k.traced_us.reset();
  EXPECT_THROW((void)validate_traced_kernels(spec, p), InputError);
}

// The what-if an engineer asks of an imported FSDP step: GEMMs twice as fast. Doubling the peak
// FLOP rate alone shortens these GEMMs by 11% (their macro-tiles then wait on L2 and HBM), so the
// what-if halves each GEMM's work instead (k / 2: half the FLOPs, half the A and B panels). The
// GEMMs move earlier, and every kernel still starts after the end of each kernel its
// `after` names: each all-gather after its copy-in, each reduce-scatter after its gradients.
TEST(TracedProgramWhatIf, FasterGemmsKeepEveryCollectiveAfterItsProducers) {
  const wl::Program traced =
      wl::import_torch_trace_file(
          std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/torch_traces/fsdp_rank0.json", {})
          .program;
  wl::Program fast = traced;
  for (auto& k : fast.kernels) {
    if (k.kind == wl::KernelKind::gemm) k.gemm.k = std::max<std::int64_t>(1, k.gemm.k / 2);
  }
  const wl::Program& p = traced;
  const hw::NodeSpec spec = hw::load_hardware("h200-sxm");
  const TransformRegistry registry = builtin_transforms();
  ProgramSimulator sim(spec);
  const ProgramResult before = run_program_policy(sim, registry, traced, "base");
  const ProgramResult after = run_program_policy(sim, registry, fast, "base");
  double gemm_before = 0, gemm_after = 0;
  int collectives_checked = 0;
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    const auto& k = p.kernels[i];
    if (k.kind == wl::KernelKind::gemm) {
      gemm_before += before.kernels[i].run.end_us - before.kernels[i].run.start_us;
      gemm_after += after.kernels[i].run.end_us - after.kernels[i].run.start_us;
    }
    for (const std::string& producer : k.after) {
      const std::size_t j = p.kernel_at(producer);
      EXPECT_GE(after.kernels[i].run.start_us, after.kernels[j].run.end_us)
          << k.name << " after " << producer;
      EXPECT_GE(before.kernels[i].run.start_us, before.kernels[j].run.end_us)
          << k.name << " after " << producer;
    }
    if (k.kind == wl::KernelKind::collective && !k.after.empty()) ++collectives_checked;
  }
  EXPECT_EQ(collectives_checked, 12);  // 8 all-gathers and 4 reduce-scatters
  EXPECT_LT(gemm_after, 0.6 * gemm_before);
  EXPECT_LT(after.step_us, before.step_us);
}

}  // namespace
}  // namespace c3sim::models
