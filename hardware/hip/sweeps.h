#pragma once
// Calibration microbenchmarks (`c3bench sweep`), each writing ordinary iso_gemm / iso_coll
// records so the simulator's calibration reads them like any measurement:
//   gemm_sms     GEMM time vs SMs/CUs available (green-context / CU-mask groups)
//   gemm_sms_rest  the GEMM in the partition left beside a group (the rp policies' GEMM side)
//   coll_ctas    vendor collective time vs CTAs/channels allowed (maxCTAs)
//   coll_partition  the vendor collective alone in each rp:<n> group (green context / CU mask,
//                capped at the group's units), paired with the same cap unpartitioned
//   dma_size     DMA, zero-CTA and kernel collectives vs size (bytes checked at every size)
//   dma_engines  DMA collective vs queues per GPU, chunks, push/pull, batched or single copies
//   dma_latency  submit and completion latency of one small peer transfer
//   copy_engine  copies alone (iso_copy records): local, push, pull, bidirectional vs bytes, and
//                vs streams per peer, chunks, batched submission (hardware/hip/copy_sweep.h)
//   fused_a2a    an embedding lookup + all-to-all, bulk (kernel, then the library's all-to-all)
//                and fused (one kernel storing into the peers' buffers; fused_a2a.h): fused_step
//                records
//   launch       the launch microbenchmarks (hardware/hip/launch_probe.h) with 5x the
//                repetitions every env record gets; written into the env record
// coll_ctas, coll_partition and dma_size run every op in `ops` (dma_size skips the reductions: engines
// cannot).
#include <string>
#include <vector>

#include "hardware/hip/fused_a2a.h"
#include "hardware/hip/hardware_runner.h"
#include "workloads/scenario.h"

namespace c3sim::bench {

struct SweepRequest {
  std::vector<std::string> what;    // names above
  std::vector<wl::Gemm> gemms;      // shapes for gemm_sms
  std::vector<int> sm_limits;       // gemm_sms, gemm_sms_rest, coll_partition (group sizes)
  std::vector<int> cta_limits;      // coll_ctas
  std::vector<std::int64_t> sizes;  // per-GPU output bytes for coll_ctas, dma_size
  std::vector<wl::CollectiveOp> ops{wl::CollectiveOp::all_gather, wl::CollectiveOp::all_to_all};
  std::vector<std::int64_t> copy_sizes;        // copy_engine: per peer
  std::vector<std::int64_t> copy_shape_sizes;  // copy_engine: where streams/chunks/batching vary
  std::int64_t engine_sweep_bytes = 1ll << 30;
  FusedA2aRequest fused;  // fused_a2a (its warmups and trials are the ones below)
  int warmups = 2;
  int trials = 5;
};

// Throws InputError for an unknown sweep name (checked before any GPU work by validate_sweep).
void validate_sweep(const SweepRequest& request);
std::vector<wl::Record> run_sweeps(HardwareRunner& runner, const SweepRequest& request);

}  // namespace c3sim::bench
