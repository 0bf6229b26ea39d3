#include "hardware/hip/copy_submit.h"

#include "hardware/hip/check.h"

namespace c3sim::bench {

void submit_copies(hipStream_t stream, const std::vector<CopyPiece>& pieces, bool batched) {
  if (pieces.empty()) return;
#if defined(C3BENCH_NVIDIA) && CUDART_VERSION >= 12080
  if (batched) {
    std::vector<void*> dsts;
    std::vector<const void*> srcs;
    std::vector<std::size_t> sizes;
    for (const CopyPiece& c : pieces) {
      dsts.push_back(c.dst);
      srcs.push_back(c.src);
      sizes.push_back(c.bytes);
    }
    cudaMemcpyAttributes attr{};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
    std::size_t attr_index = 0;
    C3_HIP(cudaMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), pieces.size(), &attr, &attr_index, 1,
                                stream));
    return;
  }
#else
  (void)batched;
#endif
  for (const CopyPiece& c : pieces) C3_HIP(hipMemcpyAsync(c.dst, c.src, c.bytes, hipMemcpyDefault, stream));
}

}  // namespace c3sim::bench
