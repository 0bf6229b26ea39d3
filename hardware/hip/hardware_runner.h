#pragma once
// The real-hardware implementation of wl::Runner (the simulated one lives in models/): runs a
// scenario's isolated baselines and its concurrent GEMM + collective under each policy on every
// visible GPU and returns records in the shared measurement schema.
#include <utility>
#include <vector>

#include "hardware/hip/bench.h"
#include "hardware/hip/policy.h"
#include "workloads/runner.h"

namespace c3sim::bench {

class HardwareRunner final : public wl::Runner {
public:
  // `dma` configures the project's DMA collective (engines, chunks, push/pull).
  explicit HardwareRunner(DmaOptions dma = {});

  // The env record, with the launch microbenchmarks (details.launch) measured now.
  [[nodiscard]] wl::EnvRecord environment() override;
  void set_launch_probe_reps(int reps) { launch_reps_ = reps; }
  // Also probe these GEMMs' launch (gemm_launch_probe.h) into details.gemm_launch.
  void set_gemm_launch_probe(std::vector<wl::Gemm> gemms, int reps) {
    gemm_launch_ = std::move(gemms);
    gemm_launch_reps_ = reps;
  }
  // Records, in order: iso_gemm (whole GPU, then each limit), iso_coll (cu, each CTA limit, dma,
  // vendor_zero_cta; reductions: cu only), then one c3 per policy, each launched in its order
  // (trial.h). Throws DeviceError if a collective's output bytes
  // are wrong, InputError for a scenario this node cannot run.
  [[nodiscard]] std::vector<wl::Record> run(const wl::RunRequest& request) override;

  [[nodiscard]] Bench& bench() { return bench_; }
  [[nodiscard]] const DmaOptions& dma_options() const { return dma_; }

private:
  Bench bench_;
  DmaOptions dma_;
  int launch_reps_ = 20;
  std::vector<wl::Gemm> gemm_launch_;
  int gemm_launch_reps_ = 0;
};

}  // namespace c3sim::bench
