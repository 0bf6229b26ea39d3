#pragma once
// What is resident on the GPU right now, as far as the cache model cares: GEMM tiles and
// collective workgroups per XCD, and the LLC footprint of running collectives (CU or DMA).
// Updated from the dispatcher's residency listener and by collectives as they start and stop.
#include <cstdint>
#include <vector>

namespace c3sim::models {

struct InterferenceState {
  std::vector<int> gemm_tiles;     // per XCD: GEMM workgroups (tiles) resident
  std::vector<int> comm_wgs;       // per XCD: collective workgroups resident
  double llc_pollution_bytes = 0;  // LLC footprint of running collectives' streams
  // By program kernel id (FlowOwner::kernel): the utilization each kernel's own traffic puts on
  // the last memory level it queues at (LLC, or HBM without one). A kernel's memory requests
  // queue behind everyone else's, so its exposed memory latency grows with
  // memory_load_of_others(it): the sum over every other running kernel (with two kernels, the
  // GEMM sees the collective's load and the collective the GEMM's).
  std::vector<double> memory_load;
  // By kernel, as memory_load: the utilization each kernel's traffic puts on HBM behind the LLC.
  // Filled only where there is an LLC (without one, memory_load already is HBM's). Requests that
  // miss the LLC queue at the HBM channels too (models/queueing_utilization.h).
  std::vector<double> hbm_load;
  // Counterfactual for attribution: hit rates as if each kernel ran alone.
  bool isolate_caches = false;
  // Counterfactual for attribution: no kernel's memory latency queues behind the other's traffic.
  bool isolate_queueing = false;

  explicit InterferenceState(int xcds = 1)
      : gemm_tiles(static_cast<size_t>(xcds), 0), comm_wgs(static_cast<size_t>(xcds), 0) {}

  [[nodiscard]] double memory_load_of_others(std::int32_t kernel) const {
    return others(memory_load, kernel);
  }
  [[nodiscard]] double hbm_load_of_others(std::int32_t kernel) const { return others(hbm_load, kernel); }

private:
  // Summed in kernel-id order, so the same loads always give the same bits.
  [[nodiscard]] static double others(const std::vector<double>& load, std::int32_t kernel) {
    double sum = 0;
    for (size_t k = 0; k < load.size(); ++k) {
      if (static_cast<std::int32_t>(k) != kernel) sum += load[k];
    }
    return sum;
  }
};

}  // namespace c3sim::models
