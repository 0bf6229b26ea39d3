#pragma once
// c3bench's program path: runs a program (workloads/program.h), already transformed by a policy
// of the registry c3sim uses (models/policies/transform_registry.h), on every GPU of the node and
// writes c3sim's `program` record for it, plus iso_gemm / iso_coll records of its kernels alone.
//
// How a program is issued (one host thread drives every GPU, as in trial.h):
// - one device stream per program stream and GPU (priority > 0: the device's most urgent);
// - kernels in the program's host launch order; kernel i is issued on GPU 0, 1, ... in turn (a
//   collective as one NCCL group over all GPUs), after a host busy-wait until `gap_us` (else the
//   program's launch_gap_us, else nothing: the launch itself is the gap) has passed since the
//   previous kernel's launch;
// - `after: [k]`: the kernel's stream waits for k's end event (recorded on k's stream after k);
// - bodies: gemm -> cuBLAS / hipBLAS(Lt) bf16 (one operand set per shape); collective impl cu ->
//   the library collective on the communicator set of its stream (one set per collective stream);
//   impl dma -> the own DMA collective (dma_collective.h) forked from the kernel's stream and
//   joined back to it; memory -> a grid-stride read+write kernel (kernels.h, bytes/2 read, bytes/2
//   written); dma_copy -> one copy-engine copy to the next GPU (to_peer) or on the same GPU.
//   Kernels of the same shape share operand buffers (their contents do not change the timing).
// Timing, per trial and GPU: a start event on the first kernel's stream before the first launch,
// and per kernel an event just before it (the stream reached it: `ready`, reported also as
// `start`, since the device start is not observable without instrumenting the library kernels)
// and one after it (`end`). Step = the latest kernel end over GPUs, from each GPU's start event.
// Per-kernel rows are GPU 0's, medians over trials.
// CU masks (`cus`, what rp:<n>, sp_rp:<n> and dma_rp:<n> set): each masked stream runs on the SMs
// c3sim gives it (stream_sm_ranges), realized per GPU as green contexts (SmLayout in
// sm_partition.h; NVIDIA only); a GEMM there is planned for its SMs (cuBLASLt SM count target) and a
// library collective there is capped at as many CTAs (ncclConfig_t.maxCTAs), as pair mode's rp.
// impl vendor_zero_cta: the library's zero-CTA copy-engine collective (NCCL >= 2.28) on symmetric
// buffers, one communicator set per program stream as for cu.
// Not supported (checked before any GPU call; exit 2): masks on AMD or on a multi-XCD preset, mask
// boundaries the green-context split cannot make, dma_hybrid collectives, zero-CTA where the
// library lacks it, and dtypes other than bf16.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hardware/hip/bench.h"
#include "hardware/node_spec.h"
#include "workloads/measurement.h"
#include "workloads/program.h"

namespace c3sim::bench {

// The SMs each stream runs on, where c3sim puts its `cus` mask on a GPU of one L2 domain
// (models/program/program_simulator.cpp, spread_mask with one XCD): masked streams without a GEMM
// packed up from SM 0 and masked streams with a GEMM down from the last SM, each side in
// declaration order, clipped at the GPU's end; nullopt = unmasked (every SM). Under rp:<n> a
// collective stream gets SMs [0, n) (a second one [n, 2n), ...) and a GEMM stream [n, total).
std::vector<std::optional<SmRange>> stream_sm_ranges(const wl::Program& program, int total_sms);

// Throws InputError naming the program's file and line for what c3bench cannot run on `spec`'s
// GPUs (the masks' SM count and green-context granularity are the preset's).
void check_program_runnable(const wl::Program& program, const std::string& policy, const hw::NodeSpec& spec);

struct ProgramRunRequest {
  wl::Program program;                   // as written (serial and ideal times are its)
  std::vector<std::string> policies;     // concrete policy names
  std::vector<wl::Program> transformed;  // the program under each policy
  int warmups = 2;
  int trials = 5;
  // The preset's SMs per GPU and green-context granularity, which the masks were checked against
  // (check_program_runnable); a GPU with another SM count is refused (DeviceError).
  int mask_sms = 0;
  int mask_granularity = 1;
};

class ProgramBench {
public:
  ProgramBench(Bench& bench, DmaOptions dma);
  ~ProgramBench();
  ProgramBench(const ProgramBench&) = delete;
  ProgramBench& operator=(const ProgramBench&) = delete;

  // iso_gemm and iso_coll records of every distinct kernel (over all policies' programs), then
  // one program record per policy. Throws DeviceError when a collective's output is wrong.
  std::vector<wl::Record> run(const ProgramRunRequest& request);

  // Per kernel (host launch order) on GPU 0, and the step over all GPUs; microseconds.
  struct Timeline {
    double step_us = 0;
    std::vector<double> launch_us, ready_us, end_us;
  };

private:
  struct Resources;
  // held: the first kernel queued behind the start hold (start_hold.h; timed runs). Priming runs
  // are unheld: a first launch may load modules or set up communicators, which must not wait
  // behind a spinning hold.
  Timeline run_once(const wl::Program& program, bool held = true);
  // Medians (and the step's spread) over `trials` after one untimed run and `warmups` runs.
  Timeline measure(const wl::Program& program, int warmups, int trials, Summary* step);

  Bench& bench_;
  DmaOptions dma_;
  int layout_granularity_ = 1;
  std::unique_ptr<Resources> res_;
};

}  // namespace c3sim::bench
