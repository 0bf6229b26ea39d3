#pragma once
// Submitting a list of copies on one stream, the two ways c3bench measures: one batched call
// (NVIDIA cudaMemcpyBatchAsync, CUDA >= 12.8: stream-ordered sources, prefer overlap with compute,
// so the driver may spread them over its copy engines) or one copy call per piece. Where the batch
// API is missing, `batched` falls back to one call per piece. Used by the DMA collective, the
// copy-engine sweep and the launch probe.
#include <cstddef>
#include <vector>

#include "hardware/hip/gpu_runtime.h"

namespace c3sim::bench {

struct CopyPiece {
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;
};

// Whether `batched` really issues one call on this build.
inline constexpr bool kBatchedCopies =
#if defined(C3BENCH_NVIDIA) && CUDART_VERSION >= 12080
    true;
#else
    false;
#endif

void submit_copies(hipStream_t stream, const std::vector<CopyPiece>& pieces, bool batched);

}  // namespace c3sim::bench
