// examples/dma_architecture.yaml (docs/dma-architecture.md): it loads, it varies every
// DMA-architecture mechanism, and its points are the same bytes at any thread count. A strided
// sample of its tasks (one in 272) keeps this fast.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/sweep/sweep_output.h"
#include "sim/sweep/sweep_runner.h"
#include "sim/sweep/sweep_spec.h"

namespace c3sim::sweep {
namespace {

const SweepSpec& study() {
  static const SweepSpec s =
      load_sweep_file(std::string(C3SIM_SOURCE_DIR) + "/examples/dma_architecture.yaml");
  return s;
}

std::string render(const std::vector<std::size_t>& tasks, int threads) {
  RunOptions o;
  o.threads = threads;
  std::string out = render_header(study(), OutputFormat::csv);
  for (const TaskResult& r : run_tasks(study(), tasks, o)) out += render_task(study(), r, OutputFormat::csv);
  return out;
}

TEST(DmaArchitectureStudy, VariesEveryMechanism) {
  const auto& keys = study().varied_keys;
  for (const char* k :
       {"model.dma.gpu_initiated", "model.dma.gpu_submit_latency", "model.dma.prelaunched",
        "model.dma.transfers_per_doorbell", "model.dma.gpu_polled_completion", "spec.dma.reduce_bandwidth",
        "model.memory.collective_channel_share", "model.dma.memory_priority", "model.dma.llc_bypass",
        "model.dma.l2_flush_bandwidth", "model.dma.engine_map", "model.dma.partition_engines",
        "spec.dma.iods", "spec.dma.iod_crossing_bandwidth", "model.dma.submit_latency",
        "workload.collective.bytes"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
  }
  EXPECT_NE(std::find(study().policies.begin(), study().policies.end(), "hybrid_ar"), study().policies.end());
}

TEST(DmaArchitectureStudy, SameBytesWhateverTheThreadCount) {
  // Tasks are variant-major with 37 scenarios a variant; a stride of 272 = 7 x 37 + 13 lands on a
  // different variant and scenario each time (all-gathers, all-to-alls and all-reduces).
  std::vector<std::size_t> tasks;
  for (std::size_t t = 0; t < study().tasks(); t += 17 * 16) tasks.push_back(t);
  const std::string one = render(tasks, 1);
  EXPECT_EQ(one, render(tasks, 2));
  EXPECT_NE(one.find(",hybrid_ar,"), std::string::npos);  // all-reduce rows ran
}

}  // namespace
}  // namespace c3sim::sweep
