#include "hardware/hip/fused_a2a_kernels.h"

#include "hardware/hip/check.h"
#include "hardware/hip/device_functions.h"

namespace c3sim::bench {
namespace {

constexpr int kFillThreads = 256;
constexpr unsigned kMaxFillBlocks = 65535u * 8u;

unsigned fill_blocks(std::size_t count) {
  const std::size_t want = (count + kFillThreads - 1) / kFillThreads;
  return static_cast<unsigned>(want < kMaxFillBlocks ? (want == 0 ? 1 : want) : kMaxFillBlocks);
}

__global__ void fill_table_values_kernel(float* values, std::size_t count, std::uint64_t seed, int rank) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    // 24 random bits -> [-1, 1): finite, so every pooled sum is a number and compares bitwise.
    values[i] = static_cast<float>(hash_word(seed, rank, i) >> 8) * (1.0f / 8388608.0f) - 1.0f;
  }
}

__global__ void fill_row_indices_kernel(std::int32_t* indices, std::size_t count, int rows,
                                        std::uint64_t seed, int rank) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    indices[i] =
        static_cast<std::int32_t>(hash_word(seed ^ 0x1D5ull, rank, i) % static_cast<std::uint32_t>(rows));
  }
}

// Persistent blocks loop over tiles (destination d, chunk c of d's samples); a tile's pooled
// vectors are split over the block's threads one 16-byte vector each, so a row is read by
// consecutive threads (coalesced) and every vector's sum runs in the same order in both variants
// (bit-identical outputs). The fused variant ends each tile with the block's barrier, then one
// thread's system-scope fence and flag store: the fence is cumulative over the stores the barrier
// ordered before it, so the receiver that sees the flag sees the tile.
template <bool Fused>
__global__ void __launch_bounds__(kLookupThreads)
    lookup_kernel(LookupShape s, const float4* tables, const std::int32_t* indices, LookupDestinations to,
                  std::uint32_t epoch) {
  const int spr = s.samples_per_rank();
  const int cpr = s.chunks_per_rank();
  const int vec = s.dim / 4;
  const long long tiles = static_cast<long long>(s.ranks) * cpr;
  for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int d = static_cast<int>(tile / cpr);
    const int c = static_cast<int>(tile % cpr);
    const int i0 = c * s.chunk;
    const int i1 = min(i0 + s.chunk, spr);
    const long long work = static_cast<long long>(i1 - i0) * s.tables * vec;
    float4* out = reinterpret_cast<float4*>(to.out[d]);
    for (long long w = threadIdx.x; w < work; w += blockDim.x) {
      const int v = static_cast<int>(w % vec);
      const long long item = w / vec;
      const int t = static_cast<int>(item % s.tables);
      const long long i = i0 + item / s.tables;
      const long long sample = static_cast<long long>(d) * spr + i;
      const std::int32_t* idx = indices + (sample * s.tables + t) * s.pooling;
      const float4* table = tables + static_cast<long long>(t) * s.rows * vec;
      float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
      for (int p = 0; p < s.pooling; ++p) {
        const float4 r = table[static_cast<long long>(idx[p]) * vec + v];
        acc.x += r.x;
        acc.y += r.y;
        acc.z += r.z;
        acc.w += r.w;
      }
      out[(i * s.tables + t) * vec + v] = acc;
    }
    if constexpr (Fused) {
      __syncthreads();
      if (threadIdx.x == 0) {
        __threadfence_system();
        volatile std::uint32_t* flag = to.flags[d] + static_cast<long long>(s.me) * cpr + c;
        *flag = epoch;
      }
    }
  }
}

__global__ void wait_flags_kernel(const volatile std::uint32_t* flags, std::size_t count, std::uint32_t epoch,
                                  std::uint64_t timeout_ns, int* timed_out) {
  const std::uint64_t start = device_ns();
  for (std::size_t k = threadIdx.x; k < count; k += blockDim.x) {
    while (flags[k] != epoch) {
      if (device_ns() - start > timeout_ns) {
        *timed_out = 1;
        return;
      }
    }
  }
  __threadfence_system();
}

__global__ void count_differences_kernel(const std::uint32_t* a, const std::uint32_t* b, std::size_t words,
                                         unsigned long long* mismatches) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += stride) {
    if (a[i] != b[i]) ++bad;
  }
  if (bad != 0) atomicAdd(mismatches, bad);
}

}  // namespace

void launch_fill_table_values(hipStream_t stream, float* values, std::size_t count, std::uint64_t seed,
                              int rank) {
  fill_table_values_kernel<<<fill_blocks(count), kFillThreads, 0, stream>>>(values, count, seed, rank);
  C3_LAUNCHED();
}

void launch_fill_row_indices(hipStream_t stream, std::int32_t* indices, std::size_t count, int rows,
                             std::uint64_t seed, int rank) {
  fill_row_indices_kernel<<<fill_blocks(count), kFillThreads, 0, stream>>>(indices, count, rows, seed, rank);
  C3_LAUNCHED();
}

void launch_embedding_lookup(hipStream_t stream, const LookupShape& shape, const float* tables,
                             const std::int32_t* indices, const LookupDestinations& to, int blocks) {
  lookup_kernel<false><<<blocks, kLookupThreads, 0, stream>>>(shape, reinterpret_cast<const float4*>(tables),
                                                              indices, to, 0u);
  C3_LAUNCHED();
}

void launch_embedding_lookup_fused(hipStream_t stream, const LookupShape& shape, const float* tables,
                                   const std::int32_t* indices, const LookupDestinations& to,
                                   std::uint32_t epoch, int blocks) {
  lookup_kernel<true><<<blocks, kLookupThreads, 0, stream>>>(shape, reinterpret_cast<const float4*>(tables),
                                                             indices, to, epoch);
  C3_LAUNCHED();
}

void launch_wait_flags(hipStream_t stream, const std::uint32_t* flags, std::size_t count, std::uint32_t epoch,
                       std::uint64_t timeout_ns, int* timed_out) {
  wait_flags_kernel<<<1, 256, 0, stream>>>(flags, count, epoch, timeout_ns, timed_out);
  C3_LAUNCHED();
}

void launch_count_differences(hipStream_t stream, const std::uint32_t* a, const std::uint32_t* b,
                              std::size_t words, unsigned long long* mismatches) {
  count_differences_kernel<<<fill_blocks(words), kFillThreads, 0, stream>>>(a, b, words, mismatches);
  C3_LAUNCHED();
}

KernelOccupancy lookup_occupancy(bool fused) {
  const void* kernel = fused ? reinterpret_cast<const void*>(&lookup_kernel<true>)
                             : reinterpret_cast<const void*>(&lookup_kernel<false>);
  hipFuncAttributes attributes{};
  C3_HIP(hipFuncGetAttributes(&attributes, kernel));
  int blocks = 0;
  C3_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kLookupThreads, 0));
  return {attributes.numRegs, blocks};
}

}  // namespace c3sim::bench
