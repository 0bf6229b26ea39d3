// c3sim's bulk and fused embedding + all-to-all steps against c3bench's measurement on 2 x H200
// (hardware/measurements/fused_2gpu: the lookup alone, the all-to-all alone, bulk, fused per
// chunk, five sizes). The hardware is the 2-GPU file calibrated on the isolated records measured
// with the same trial conditioning (idle gap, a warm-up NCCL all-reduce, spin: conditioned/
// h200x2_warmcoll_*, docs/fidelity.md's "new measurements" row); of fused_2gpu.jsonl only the lookups
// alone are fitted (below).
// model.fused.message_overhead comes from the chunk sweep of three sizes (hardware/citations.yaml),
// so the fused step's held-out sizes are the two whose all-to-all bounds it; h200-sxm's
// model.memory.gather_* come from the lookups alone of the same file (isolated records; the
// programs' lookups are gathers with the records' occupancy, lookup and fused). A prediction must be
// within 5% of the measured median, or be a known gap below with its measured reason; a known gap
// must stay outside 5%, so closing one means deleting its line.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/fit/calibration.h"
#include "models/policies/transform_registry.h"
#include "models/program/program_simulator.h"
#include "workloads/measurement.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

const std::string kMeasurements = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/";
constexpr double kTolerancePct = 5.0;

// The warm-collective calibration: conditioned/h200x2_warmcoll_beyond_*, its CTA sweep, the
// collectives' partition records and the GEMMs alone of h200x1_sweep_gemm_rest_*, on h200-sxm-x2.yaml.
hw::NodeSpec calibrated_2gpu() {
  std::vector<MeasurementFile> files;
  std::set<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(kMeasurements + "conditioned")) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("h200x2_warmcoll_beyond_") || name == "h200x2_warmcoll_sweep_ctas.jsonl")
      paths.insert(entry.path().string());
  }
  for (const auto& entry : std::filesystem::directory_iterator(kMeasurements)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("h200x1_sweep_gemm_rest_") && name.ends_with(".jsonl"))
      paths.insert(entry.path().string());
  }
  paths.insert(kMeasurements + "partition/h200x2_coll_partition.jsonl");
  files.reserve(paths.size());
  for (const std::string& p : paths) files.push_back({p, wl::read_measurements(p)});
  return calibrate(hw::load_hardware(kMeasurements + "h200-sxm-x2.yaml"), files).spec;
}

using Size =
    std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>;  // batch, tables, dim, pooling

std::string label(const Size& s) {
  return fmt::format("{}x{}x{}x{}", std::get<0>(s), std::get<1>(s), std::get<2>(s), std::get<3>(s));
}

struct Measured {
  double bulk_us = 0;
  double all_to_all_us = 0;        // the library's all-to-all alone
  std::map<int, double> fused_us;  // by chunk (samples per flag)
};

std::map<Size, Measured> measured_steps() {
  std::map<Size, Measured> out;
  for (const wl::Record& r : wl::read_measurements(kMeasurements + "fused_2gpu/fused_2gpu.jsonl")) {
    const auto* f = std::get_if<wl::FusedStepRecord>(&r);
    if (f == nullptr) continue;
    Measured& m = out[{f->batch, f->tables, f->dim, f->pooling}];
    if (f->variant == "bulk") m.bulk_us = f->time_us;
    if (f->variant == "all_to_all") m.all_to_all_us = f->time_us;
    if (f->variant == "fused") m.fused_us[f->chunk.value()] = f->time_us;
  }
  return out;
}

// The committed program with the lookup cut into tiles of `chunk` samples (one workgroup and,
// fused, one message each), as the measured kernel at that chunk.
wl::Program program_at_chunk(const Size& s, int chunk) {
  const std::string file = fmt::format("{}fused_2gpu/embedding_a2a_b{}_t{}_d{}_p{}.yaml", kMeasurements,
                                       std::get<0>(s), std::get<1>(s), std::get<2>(s), std::get<3>(s));
  wl::Program p = wl::load_programs_file(file).front();
  for (wl::ProgramKernel& k : p.kernels)
    if (k.kind == wl::KernelKind::memory) k.memory.workgroups = static_cast<int>(std::get<0>(s) / chunk);
  return p;
}

// Predictions outside 5% today, with what the isolated records say is missing.
const std::map<std::string, std::string> kKnownGaps{
    {"65536x8x128x32 fused best",
     "+7.2%: the measured fused kernel runs 4.9% faster than the lookup alone (2074.5 against 2181.7 "
     "us) with 5 resident blocks per SM against 4 and, as compiled, 4 rows in flight per thread "
     "against 2; the model's gather at pooling 32 is bound by HBM bandwidth, fitted on the plain "
     "lookup, and no isolated record times the fused loop near saturation (a loaded latency fitted "
     "to the lookups alone makes it 7-17% faster, not 3-6%: fused_2gpu/README.md)"},
};

TEST(Fused2GpuValidation, BulkAndFusedWithinFivePercentOrAKnownGap) {
  const hw::NodeSpec spec = calibrated_2gpu();
  ProgramSimulator sim(spec);
  const TransformRegistry& reg = builtin_registry();
  const std::map<Size, Measured> measured = measured_steps();
  ASSERT_EQ(measured.size(), 5U);
  std::set<std::string> seen;
  for (const auto& [size, m] : measured) {
    ASSERT_GT(m.bulk_us, 0) << label(size);
    ASSERT_FALSE(m.fused_us.empty()) << label(size);
    // The measured best chunk; the bulk step runs the bulk lookup's tile (4 samples).
    int best = m.fused_us.begin()->first;
    for (const auto& [chunk, us] : m.fused_us)
      if (us < m.fused_us.at(best)) best = chunk;
    const wl::Program bulk_program = program_at_chunk(size, 4);
    const wl::Program fused_program = program_at_chunk(size, best);
    const double bulk = sim.simulate(reg.apply("base", bulk_program, spec)).step_us;
    const double fused = sim.simulate(reg.apply("fuse", fused_program, spec)).step_us;
    for (const auto& [what, predicted, actual] :
         {std::tuple{"bulk", bulk, m.bulk_us}, std::tuple{"fused best", fused, m.fused_us.at(best)}}) {
      const std::string key = fmt::format("{} {}", label(size), what);
      const double err = 100.0 * (predicted / actual - 1.0);
      seen.insert(key);
      if (kKnownGaps.contains(key)) {
        EXPECT_GT(std::abs(err), kTolerancePct) << key << " is within 5% now: delete its known gap";
      } else {
        EXPECT_LE(std::abs(err), kTolerancePct)
            << key << ": predicted " << predicted << " us, measured " << actual << " us";
      }
    }
    // The all-to-all alone (an isolated record, not fitted): within 5% at every size.
    const double a2a = sim.isolated_us(bulk_program, 1);
    EXPECT_NEAR(a2a / m.all_to_all_us, 1.0, kTolerancePct / 100) << label(size) << " all-to-all alone";
    // Fused beats bulk in the model as on the GPUs (by 22-49% there).
    EXPECT_LT(fused, bulk) << label(size);
  }
  for (const auto& [key, why] : kKnownGaps) EXPECT_TRUE(seen.contains(key)) << key << ": " << why;
}

}  // namespace
}  // namespace c3sim::models
