#pragma once
// The start of a timed trial, taken off the host: the first part's streams are held on the GPU by
// a one-thread kernel polling a host-mapped word, the start event and the first part are queued
// behind it, and release() writes the word once the host has queued the whole first part.
//
//   host:  hold + start event + FIRST queued (every GPU) | release | launch SECOND ...   wait
//   GPU g: hold polls ......................................| start_g: FIRST runs ->
//                                                                  SECOND arrives one host launch later
//
// So the host's work to queue the first part (a BLAS call, an NCCL group over the GPUs, copy
// submissions) and its launch latency to an idle GPU are outside the timed region, as they are
// for a kernel queued behind running work in a program (and in a framework's timing loop: a
// PyTorch loop's events and matmul queue behind the previous kernel). What stays inside: the
// kernel-to-kernel gap on the stream after the hold (the same as behind any kernel), the first
// part's device time, and for the second part its full host launch after the release (the gap a
// program pays between two launches). Every GPU polls the same word, so the first parts of all
// GPUs start within the poll latency of one another instead of one host launch apart.
//
// Every kernel queued behind or beside a spinning hold must have run once before, untimed
// (Bench::measure and the program path prime every measurement): with CUDA's lazy module loading
// a kernel's first launch may wait for the context to idle, i.e. for the hold, which waits for
// the host stuck in that launch (seen on H200: the GEMM launch probe's first cuBLASLt call behind
// a hold blocked until the hold's timeout).
//
// The hold kernel gives up after kTimeoutNs (a host that died between hold and release), setting
// the trial's timeout flag (DeviceSet::timeout_flag), so the trial is void rather than hung.
#include <cstdint>

#include "hardware/hip/gpu_runtime.h"

namespace c3sim::bench {

class StartHold {
public:
  // timed_out: DeviceSet's host-mapped timeout flag.
  explicit StartHold(int* timed_out);
  ~StartHold();
  StartHold(const StartHold&) = delete;
  StartHold& operator=(const StartHold&) = delete;

  // A new trial: holds queued from now on wait for the next release().
  void arm();
  // Queues a hold on `stream` of `gpu` (work queued on the stream after it waits for release()).
  void hold(int gpu, hipStream_t stream);
  // Lets every hold queued since arm() finish. Safe to call twice.
  void release();

  static constexpr std::uint64_t kTimeoutNs = 10'000'000'000ull;

private:
  volatile std::uint32_t* word_ = nullptr;  // host-mapped, portable: every GPU polls it
  std::uint32_t epoch_ = 0;
  int* timed_out_ = nullptr;
};

// Releases a hold when it goes out of scope: the caller releases it earlier, once the first part
// is queued; if queueing throws, this keeps the held GPUs from polling until the timeout.
class ReleaseOnExit {
public:
  explicit ReleaseOnExit(StartHold& hold) : hold_(&hold) {}
  ~ReleaseOnExit() { hold_->release(); }
  ReleaseOnExit(const ReleaseOnExit&) = delete;
  ReleaseOnExit& operator=(const ReleaseOnExit&) = delete;

private:
  StartHold* hold_;
};

}  // namespace c3sim::bench
