#pragma once
// What is resident on the GPU right now, as far as the cache model cares: GEMM tiles and
// collective workgroups per XCD, and the LLC footprint of running collectives (CU or DMA).
// Updated from the dispatcher's residency listener and by collectives as they start and stop.
#include <vector>

namespace c3sim::models {

struct InterferenceState {
  std::vector<int> gemm_tiles;     // per XCD: GEMM workgroups (tiles) resident
  std::vector<int> comm_wgs;       // per XCD: collective workgroups resident
  double llc_pollution_bytes = 0;  // LLC footprint of running collectives' streams
  // Utilization of the GEMM's last memory level (LLC, or HBM without one) by other kernels'
  // traffic: memory requests queue behind it, so exposed memory latency grows as 1 / (1 - u).
  double memory_load_by_others = 0;
  double memory_load_by_gemm = 0;  // the same level's utilization by the GEMM, as collectives see it
  // Counterfactual for attribution: hit rates as if each kernel ran alone.
  bool isolate_caches = false;
  // Counterfactual for attribution: no kernel's memory latency queues behind the other's traffic.
  bool isolate_queueing = false;

  explicit InterferenceState(int xcds = 1)
      : gemm_tiles(static_cast<size_t>(xcds), 0), comm_wgs(static_cast<size_t>(xcds), 0) {}
};

}  // namespace c3sim::models
