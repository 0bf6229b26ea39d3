#pragma once
// The kernels of the fused embedding + all-to-all step (fused_a2a.h): a pooled embedding lookup
// that writes each destination GPU's block of a local send buffer (the bulk step's producer, an
// all-to-all follows), the same lookup storing straight into every destination GPU's receive
// buffer over the peer mapping with a completion flag per chunk of samples (the fused kernel),
// the wait for a receive buffer's flags, and their inputs and checks. Host-side launchers; each
// checks its launch.
#include <cstddef>
#include <cstdint>

#include "hardware/hip/gpu_runtime.h"

namespace c3sim::bench {

inline constexpr int kFusedMaxRanks = 8;
inline constexpr int kLookupThreads = 256;

// One GPU's lookup: `tables` fp32 tables of rows x dim (dim a multiple of 4: 16-byte vectors) and,
// per global sample and table, `pooling` row indices; sample s belongs to GPU s / (batch / ranks).
struct LookupShape {
  int batch = 0;
  int tables = 0;
  int dim = 0;
  int pooling = 0;
  int rows = 0;
  int ranks = 0;
  int me = 0;
  int chunk = 1;  // samples per block tile; in the fused kernel, per completion flag
  [[nodiscard]] __host__ __device__ int samples_per_rank() const { return batch / ranks; }
  [[nodiscard]] __host__ __device__ int chunks_per_rank() const {
    return (samples_per_rank() + chunk - 1) / chunk;
  }
};

// Where the pooled vector of (destination d, local sample i, table t) goes: out[d] + (i * tables +
// t) * dim floats. Plain lookup: out[d] = send + d * block; fused: out[d] = d's receive buffer
// (a peer pointer) + me * block, and flags[d] = d's flag array, chunk c of this GPU at me *
// chunks_per_rank + c.
struct LookupDestinations {
  float* out[kFusedMaxRanks] = {};
  std::uint32_t* flags[kFusedMaxRanks] = {};
};

// Tables uniform in [-1, 1) from a hash of (seed, rank, index); indices uniform in [0, rows).
void launch_fill_table_values(hipStream_t stream, float* values, std::size_t count, std::uint64_t seed,
                              int rank);
void launch_fill_row_indices(hipStream_t stream, std::int32_t* indices, std::size_t count, int rows,
                             std::uint64_t seed, int rank);

// `blocks` persistent blocks of kLookupThreads loop over the ranks x chunks_per_rank tiles.
void launch_embedding_lookup(hipStream_t stream, const LookupShape& shape, const float* tables,
                             const std::int32_t* indices, const LookupDestinations& to, int blocks);
// The same, then per tile: barrier, a system-scope fence and flags[d][...] = epoch.
void launch_embedding_lookup_fused(hipStream_t stream, const LookupShape& shape, const float* tables,
                                   const std::int32_t* indices, const LookupDestinations& to,
                                   std::uint32_t epoch, int blocks);
// One block polls flags[0..count) until all equal `epoch`; gives up after timeout_ns, setting
// *timed_out.
void launch_wait_flags(hipStream_t stream, const std::uint32_t* flags, std::size_t count, std::uint32_t epoch,
                       std::uint64_t timeout_ns, int* timed_out);
// Adds to *mismatches the number of i < words with a[i] != b[i].
void launch_count_differences(hipStream_t stream, const std::uint32_t* a, const std::uint32_t* b,
                              std::size_t words, unsigned long long* mismatches);

struct KernelOccupancy {
  int registers_per_thread = 0;
  int max_blocks_per_sm = 0;  // of kLookupThreads threads, no dynamic shared memory
};
// On the current device.
KernelOccupancy lookup_occupancy(bool fused);

}  // namespace c3sim::bench
