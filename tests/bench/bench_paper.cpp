// The whole paper reproduction (c3sim paper): target under 2 s on one core. Run with
// --benchmark_repetitions=5 and read the median.
#include <benchmark/benchmark.h>

#include "hardware/hardware_loader.h"
#include "models/paper/paper_report.h"

namespace {

void BM_PaperReport(benchmark::State& state) {
  const auto spec = c3sim::hw::load_hardware("mi300x");
  for (auto _ : state) {
    const auto rep = c3sim::models::make_paper_report(spec);
    benchmark::DoNotOptimize(rep.summary.size());
  }
}
BENCHMARK(BM_PaperReport)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
