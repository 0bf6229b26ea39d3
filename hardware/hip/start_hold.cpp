#include "hardware/hip/start_hold.h"

#include <atomic>

#include "hardware/hip/check.h"
#include "hardware/hip/kernels.h"

namespace c3sim::bench {

StartHold::StartHold(int* timed_out) : timed_out_(timed_out) {
  void* host = nullptr;
  C3_HIP(hipHostMalloc(&host, sizeof(std::uint32_t), hipHostMallocMapped | hipHostMallocPortable));
  word_ = static_cast<volatile std::uint32_t*>(host);
  *word_ = 0;
}

StartHold::~StartHold() {
  if (word_ != nullptr) (void)hipHostFree(const_cast<std::uint32_t*>(word_));
}

void StartHold::arm() { ++epoch_; }

void StartHold::hold(int gpu, hipStream_t stream) {
  C3_HIP(hipSetDevice(gpu));
  launch_hold(stream, word_, epoch_, kTimeoutNs, timed_out_);
}

void StartHold::release() {
  // Every launch call before this store has returned, so the held work is queued on the GPUs.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *word_ = epoch_;
}

}  // namespace c3sim::bench
