// A copy loop on SMs keeps a few requests in flight, so its rate follows its memory latency, which
// queues behind the other kernels' HBM traffic (model.collective.memory_stall_fraction: a rate of
// 1 / (1 + f u)). The H200 preset's f comes from c3bench's memory kernel on 16 or 32 SMs beside six
// GEMMs on the rest (hardware/measurements/memory_interference/, 24 programs): these tests check
// that it still reproduces those slowdowns, that the mechanism is what does it, and that it acts
// on memory kernels and NCCL channels alike.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "hardware/hardware_loader.h"
#include "models/program/program_simulator.h"
#include "workloads/measurement.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

const std::string kMeasurements = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/";

// log(predicted / measured) of the memory kernel's slowdown beside its GEMM (its run over its time
// alone, both from its first workgroup), over the committed programs.
struct SlowdownFit {
  double mean_log = 0;
  double rms_log = 0;
  int programs = 0;
};

SlowdownFit memory_kernel_fit(
    const hw::NodeSpec& spec,
    const std::string& programs_file = "memory_interference/gemm_beside_memory_kernel.yaml",
    const std::string& records_file = "memory_interference/h200x1_gemm_beside_memory_kernel.jsonl") {
  std::map<std::string, wl::Program> programs;
  for (auto& p : wl::load_programs_file(kMeasurements + programs_file)) programs.emplace(p.name, p);
  ProgramSimulator sim(spec);
  SlowdownFit fit;
  double sum = 0, sum_sq = 0;
  for (const wl::Record& r : wl::read_measurements(kMeasurements + records_file)) {
    const auto* rec = std::get_if<wl::ProgramRecord>(&r);
    if (rec == nullptr) continue;
    const wl::Program& program = programs.at(rec->program);
    const ProgramResult run = sim.run(program, "base");
    for (size_t k = 0; k < rec->kernels.size(); ++k) {
      const wl::ProgramKernelRecord& m = rec->kernels[k];
      if (m.kind != "memory") continue;
      const double measured = (m.end_us - m.start_us) / m.iso_us.value();
      const KernelResult& p = run.kernels.at(k);
      const double predicted = (p.run.end_us - p.run.start_us) / p.iso_us;
      const double e = std::log(predicted / measured);
      sum += e;
      sum_sq += e * e;
      ++fit.programs;
    }
  }
  fit.mean_log = sum / fit.programs;
  fit.rms_log = std::sqrt(sum_sq / fit.programs);
  return fit;
}

// Measured 1.01-1.29x slower than alone. With f = 1.0 (and the GEMM's own stall beside it,
// gemm_memory_stall_test.cpp) the preset is unbiased to within 3% and off by about 5% RMS (the
// trials' spread is 2-10%); without the stall every slowdown is missed by about 12%, although the
// two kernels together use at most half of HBM's bandwidth.
TEST(MemoryStall, ThePresetReproducesTheMemoryKernelsMeasuredSlowdowns) {
  const hw::NodeSpec h200 = hw::load_hardware("h200-sxm");
  ASSERT_DOUBLE_EQ(h200.model.collective.memory_stall_fraction, 1.0);
  const SlowdownFit fit = memory_kernel_fit(h200);
  hw::NodeSpec none = h200;
  none.model.collective.memory_stall_fraction = 0;
  const SlowdownFit without = memory_kernel_fit(none);
  std::printf(
      "memory kernel slowdowns, log(pred / meas): mean %+.3f rms %.3f; without the stall %+.3f rms %.3f\n",
      fit.mean_log, fit.rms_log, without.mean_log, without.rms_log);
  EXPECT_EQ(fit.programs, 24);
  EXPECT_LT(std::fabs(fit.mean_log), 0.03);
  EXPECT_LT(fit.rms_log, 0.07);

  EXPECT_LT(without.mean_log, -0.08);
  EXPECT_GT(without.rms_log, fit.rms_log + 0.03);
}

// Not fitted on: the launch-order measurements' 32 workgroups moving 2 or 8 GiB beside two GEMMs, launched
// first on unmasked streams or on a 32-SM green context (launch_order/, 8 programs, measured
// 1.05-1.18x). The stall predicts them at +0.5% mean, 3.1% RMS (log); without it 10% fast. The
// model cannot tell interleaved from partitioned SMs (one L2 domain, no GPC level), so it predicts
// both layouts alike where the interleaved end 0.3-10% later.
TEST(MemoryStall, ItCarriesToTheLaunchOrderMemoryKernels) {
  const hw::NodeSpec h200 = hw::load_hardware("h200-sxm");
  const char* programs = "launch_order/memory_first_vs_partition.yaml";
  const char* records = "launch_order/h200x1_memory_first_vs_partition.jsonl";
  const SlowdownFit fit = memory_kernel_fit(h200, programs, records);
  hw::NodeSpec none = h200;
  none.model.collective.memory_stall_fraction = 0;
  const SlowdownFit without = memory_kernel_fit(none, programs, records);
  std::printf("launch-order memory kernels, log(pred / meas): mean %+.3f rms %.3f; without the stall %+.3f\n",
              fit.mean_log, fit.rms_log, without.mean_log);
  EXPECT_EQ(fit.programs, 8);
  EXPECT_LT(std::fabs(fit.mean_log), 0.04);
  EXPECT_LT(fit.rms_log, 0.06);
  EXPECT_LT(without.mean_log, -0.08);
}

// The same stall on NCCL's channels: an all-gather on 16 SMs beside a long GEMM is bound by its
// channels' copy rate, so it slows with the GEMM's memory load; alone it does not.
TEST(MemoryStall, AChannelBoundCollectiveSlowsBesideAGemm) {
  const auto programs = wl::load_programs_string(R"(program:
  name: ag_beside_gemm
  gpus: 2
  launch_gap_us: 0
  streams: [{name: comm, cus: 16}, {name: gemm, cus: 116}]
  kernels:
    - {name: ag, stream: comm, collective: {op: all_gather, bytes: 1 GiB, max_workgroups: 16}}
    - {name: g, stream: gemm, gemm: {m: 8192, n: 8192, k: 57344, dtype: bf16}}
)",
                                                 "ag.yaml");
  const hw::NodeSpec h200 = hw::load_hardware("h200-sxm");
  hw::NodeSpec none = h200;
  none.model.collective.memory_stall_fraction = 0;
  ProgramSimulator with_stall(h200);
  ProgramSimulator without(none);
  const double slowed = with_stall.run(programs.front(), "base").kernels.front().slowdown();
  const double unslowed = without.run(programs.front(), "base").kernels.front().slowdown();
  std::printf("all-gather on 16 SMs beside the GEMM: %.3fx alone with the stall, %.3fx without\n", slowed,
              unslowed);
  EXPECT_GT(slowed, unslowed + 0.05);
  EXPECT_LT(slowed, 1.0 + h200.model.collective.memory_stall_fraction);
}

}  // namespace
}  // namespace c3sim::models
