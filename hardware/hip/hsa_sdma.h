#pragma once
// AMD only: the HSA pieces of the own DMA collective. Each copy goes to one SDMA engine
// (hsa_amd_memory_async_copy_on_engine) and is tied to a HIP stream through two HSA signals per GPU,
// so that the DMA collective is a Part like any other (launched in order, timed by stream events):
//   start: every copy of the GPU names it as its dependency; the SDMA engine polls it and starts
//          when it reads 0. A one-thread kernel on the GPU's DMA stream stores that 0, so the
//          copies start when the stream gets there.
//   done:  holds the number of copies; each copy decrements it when it completes. A one-thread
//          kernel on the same stream waits for 0, so the stream's end event marks the last copy.
// Device code writes the signals through the runtime's signal ABI (hsa/amd_hsa_signal.h), as
// ROCm's device library does (value, then the event mailbox that wakes host waiters).
#include <cstdint>
#include <string>
#include <vector>

#include "hardware/hip/gpu_runtime.h"

namespace c3sim::bench {

class HsaSignal {
public:
  explicit HsaSignal(std::int64_t initial);
  ~HsaSignal();
  HsaSignal(const HsaSignal&) = delete;
  HsaSignal& operator=(const HsaSignal&) = delete;

  [[nodiscard]] hsa_signal_t get() const { return signal_; }
  void store(std::int64_t value);  // from the host, release order

private:
  hsa_signal_t signal_{};
};

// The agent that owns the device allocation holding `ptr` (hsa_amd_pointer_info).
hsa_agent_t agent_owning(const void* ptr);

// Engine bit masks (HSA_AMD_SDMA_ENGINE_<i> = 1 << i) for copies that the `copier` GPU's engines
// carry out toward `other`: those idle now (hsa_amd_memory_copy_engine_status), and those the
// runtime recommends (hsa_amd_memory_get_preferred_copy_engine; 0 where the runtime lacks it).
// The two GPUs must differ (the runtime reports no engines for same-GPU copies).
std::uint32_t idle_engines(hsa_agent_t copier, hsa_agent_t other);
std::uint32_t preferred_engines(hsa_agent_t copier, hsa_agent_t other);

// The engine numbers in `mask`, lowest first.
std::vector<int> engine_numbers(std::uint32_t mask);

// C3BENCH_SDMA_ENGINE_MAP="2,3,4,...": entry s-1 is the engine number (0-15) GPU g uses for peer
// (g + s) mod gpus, on every GPU. Empty text = no map. Throws InputError for anything else.
std::vector<int> parse_engine_map(const std::string& text);

// Stream-ordered signal operations: one-thread kernels.
void launch_signal_store(hipStream_t stream, hsa_signal_t signal, std::int64_t value);
// Waits until the signal's value is 0; after timeout_ns sets *timed_out = 1 and returns.
void launch_signal_wait_zero(hipStream_t stream, hsa_signal_t signal, int* timed_out,
                             std::uint64_t timeout_ns);

}  // namespace c3sim::bench
