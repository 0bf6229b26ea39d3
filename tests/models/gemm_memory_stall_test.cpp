// A GEMM's tiles wait on memory, and those waits queue behind the traffic that other kernels'
// workgroups put on HBM (model.gemm.memory_stall_fraction f: a tile stretches by 1 + f u, u their
// bytes over hbm_bandwidth; model.gemm.memory_stall_workgroups_only: copy engines' traffic does
// not count). The Hopper family's f comes from cuBLAS GEMMs beside c3bench's memory kernel on one
// H200 (hardware/measurements/memory_interference/, 24 programs); these tests check that it still
// reproduces them, that it carries to the same programs on one H100 with nothing refitted (u
// against the H100's own bandwidth), and that a copy-engine collective's traffic leaves the GEMM
// alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <variant>

#include "hardware/hardware_loader.h"
#include "models/program/program_simulator.h"
#include "workloads/measurement.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

const std::string kMeasurements = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/";
const std::string kPrograms = "memory_interference/gemm_beside_memory_kernel.yaml";
const std::string kH200Records = "memory_interference/h200x1_gemm_beside_memory_kernel.jsonl";
const std::string kH100Records = "h100x1/h100x1_gemm_beside_memory_kernel.jsonl";

// Mean log(predicted / measured) of the GEMM's run beside the memory kernel (from its first
// workgroup to its end), over the committed programs.
struct GemmFit {
  double mean_log = 0;
  int programs = 0;
};

GemmFit gemm_fit(const hw::NodeSpec& spec, const std::string& records_file) {
  std::map<std::string, wl::Program> programs;
  for (auto& p : wl::load_programs_file(kMeasurements + kPrograms)) programs.emplace(p.name, p);
  ProgramSimulator sim(spec);
  GemmFit fit;
  double sum = 0;
  for (const wl::Record& r : wl::read_measurements(kMeasurements + records_file)) {
    const auto* rec = std::get_if<wl::ProgramRecord>(&r);
    if (rec == nullptr) continue;
    const ProgramResult run = sim.run(programs.at(rec->program), "base");
    for (size_t k = 0; k < rec->kernels.size(); ++k) {
      const wl::ProgramKernelRecord& m = rec->kernels[k];
      if (m.kind != "gemm") continue;
      const KernelResult& p = run.kernels.at(k);
      sum += std::log((p.run.end_us - p.run.start_us) / (m.end_us - m.start_us));
      ++fit.programs;
    }
  }
  fit.mean_log = sum / fit.programs;
  return fit;
}

hw::NodeSpec with_stall(hw::NodeSpec spec, double f) {
  spec.model.gemm.memory_stall_fraction = f;
  return spec;
}

// Measured 1.0-1.6x the GEMM's time alone on all SMs. With the stall the family is unbiased to
// within 3%; without it every GEMM is predicted about 17% fast, although the memory kernel uses at
// most 43% of HBM.
TEST(GemmMemoryStall, TheFamilyReproducesTheGemmsBesideAMemoryKernelOnH200) {
  const hw::NodeSpec h200 = hw::load_hardware("h200-sxm");
  ASSERT_DOUBLE_EQ(h200.model.gemm.memory_stall_fraction, 1.0);
  const GemmFit fit = gemm_fit(h200, kH200Records);
  const GemmFit without = gemm_fit(with_stall(h200, 0.0), kH200Records);
  std::printf("H200 GEMMs beside a memory kernel, log(pred / meas): mean %+.3f; without the stall %+.3f\n",
              fit.mean_log, without.mean_log);
  EXPECT_EQ(fit.programs, 24);
  EXPECT_LT(std::fabs(fit.mean_log), 0.03);
  EXPECT_LT(without.mean_log, -0.12);
}

// Not fitted on: the same 24 programs on one H100, whose memory kernel loads HBM 0.32 / 0.55 of its
// 3.0 TB/s where the H200's loads 0.24 / 0.43 of 4.3. The law in utilization carries within 3%; the
// same bytes charged as on the H200 (f scaled by 3.0 / 4.3, so u is the H200's) leave the GEMMs
// 5% or more fast, and no stall about 20%.
TEST(GemmMemoryStall, ItCarriesToOneH100AsAUtilization) {
  const hw::NodeSpec h100 = hw::load_hardware("h100-sxm");
  const hw::NodeSpec h200 = hw::load_hardware("h200-sxm");
  const double f = h100.model.gemm.memory_stall_fraction;
  const double by_bytes = f * h100.model.memory.hbm_bw / h200.model.memory.hbm_bw;
  const GemmFit fit = gemm_fit(h100, kH100Records);
  const GemmFit same_bytes = gemm_fit(with_stall(h100, by_bytes), kH100Records);
  const GemmFit without = gemm_fit(with_stall(h100, 0.0), kH100Records);
  std::printf(
      "H100 GEMMs beside a memory kernel, log(pred / meas): mean %+.3f; charged by bytes %+.3f; "
      "without the stall %+.3f\n",
      fit.mean_log, same_bytes.mean_log, without.mean_log);
  EXPECT_EQ(fit.programs, 24);
  EXPECT_LT(std::fabs(fit.mean_log), 0.03);
  EXPECT_LT(same_bytes.mean_log, -0.05);
  EXPECT_LT(without.mean_log, -0.15);
}

// A copy-engine all-gather beside a long GEMM: its HBM reads and writes do not stall the GEMM's
// tiles under memory_stall_workgroups_only (the GEMM stays within 4% of its time alone, as the
// measured 1.01-1.10x beside the copy-engine collectives of Table I), where counting them charges
// the GEMM f u, about 14% here.
TEST(GemmMemoryStall, ACopyEngineCollectiveLeavesTheGemmAlone) {
  const auto programs = wl::load_programs_string(R"(program:
  name: dma_ag_beside_gemm
  gpus: 2
  launch_gap_us: 0
  streams: [{name: comm}, {name: gemm}]
  kernels:
    - {name: ag, stream: comm, collective: {op: all_gather, bytes: 4 GiB, impl: dma}}
    - {name: g, stream: gemm, gemm: {m: 8192, n: 8192, k: 57344, dtype: bf16}}
)",
                                                 "dma_ag.yaml");
  const hw::NodeSpec h200 = hw::load_hardware("h200-sxm");
  ASSERT_TRUE(h200.model.gemm.memory_stall_workgroups_only);
  hw::NodeSpec counted = h200;
  counted.model.gemm.memory_stall_workgroups_only = false;
  const double alone = ProgramSimulator(h200).run(programs.front(), "base").kernels.back().slowdown();
  const double charged = ProgramSimulator(counted).run(programs.front(), "base").kernels.back().slowdown();
  std::printf("GEMM beside a copy-engine all-gather: %.3fx alone; %.3fx with the copies' traffic counted\n",
              alone, charged);
  EXPECT_LT(alone, 1.04);
  EXPECT_GT(charged, alone + 0.05);
}

}  // namespace
}  // namespace c3sim::models
