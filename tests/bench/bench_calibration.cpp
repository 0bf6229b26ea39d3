// The committed 4 x H200 calibration (hardware/calibrated/h200-sxm-x4.yaml: its seven measurement
// files fitted to the h200-sxm-x4 preset), as `c3sim calibrate` runs it: target under 60 s on one
// core. Run with --benchmark_repetitions=5 and read the median.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "hardware/hardware_loader.h"
#include "models/fit/calibration.h"
#include "workloads/measurement.h"

namespace {

void BM_CalibrateH200x4(benchmark::State& state) {
  const std::string dir = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/";
  std::vector<c3sim::models::MeasurementFile> files;
  for (const char* f : {"h200x4_table1.jsonl", "h200x4_sweep_gemm.jsonl", "h200x4_sweep_ctas.jsonl",
                        "h200x4_sweep_dma.jsonl", "h200x4_sweep_dma_engines.jsonl",
                        "h200x1_sweep_gemm_rest_a.jsonl", "h200x1_sweep_gemm_rest_b.jsonl"}) {
    files.push_back({dir + f, c3sim::wl::read_measurements(dir + f)});
  }
  const auto base = c3sim::hw::load_hardware("h200-sxm-x4");
  for (auto _ : state) {
    const auto r = c3sim::models::calibrate(base, files);
    benchmark::DoNotOptimize(r.stages.size());
  }
}
BENCHMARK(BM_CalibrateH200x4)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
