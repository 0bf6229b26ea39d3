#include "hardware/hip/kernels.h"

#include <map>
#include <mutex>

#include "hardware/hip/check.h"
#include "hardware/hip/device_functions.h"

namespace c3sim::bench {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 65535u * 8u;

__global__ void fill_words_kernel(std::uint32_t* words, std::size_t count, std::uint64_t seed, int rank,
                                  std::size_t first_word) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    words[i] = hash_word(seed, rank, first_word + i);
  }
}

__global__ void fill_bf16_kernel(std::uint16_t* values, std::size_t count, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    // Uniform in [-1, 1): sign, exponent 126 (0.5..1) or lower, 7 random mantissa bits.
    const std::uint32_t h = hash_word(seed, 0, i);
    const std::uint32_t sign = (h >> 31) << 15;
    const std::uint32_t exponent = 120u + ((h >> 24) & 7u);  // 2^-7 .. 2^0
    const std::uint32_t mantissa = h & 0x7Fu;
    values[i] = static_cast<std::uint16_t>(sign | (exponent << 7) | mantissa);
  }
}

__global__ void fill_constant_kernel(std::uint32_t* words, std::size_t count, std::uint32_t value) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    words[i] = value;
  }
}

__global__ void verify_kernel(const std::uint32_t* recv, std::size_t total_words, int ranks, int me,
                              int layout, std::uint64_t seed, unsigned long long* mismatches) {
  const std::size_t block_words = total_words / static_cast<std::size_t>(ranks);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (std::size_t r = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < total_words;
       r += stride) {
    const int src = static_cast<int>(r / block_words);
    const std::size_t within = r % block_words;
    // all-gather: block `src` is src's whole send buffer; all-to-all: it is src's block `me`.
    const std::size_t word = layout == 0 ? within : static_cast<std::size_t>(me) * block_words + within;
    if (recv[r] != hash_word(seed, src, word)) ++bad;
  }
  if (bad != 0) atomicAdd(mismatches, bad);
}

__global__ void verify_range_kernel(const std::uint32_t* words, std::size_t count, std::uint64_t seed,
                                    int rank, std::size_t first_word, unsigned long long* mismatches) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    if (words[i] != hash_word(seed, rank, first_word + i)) ++bad;
  }
  if (bad != 0) atomicAdd(mismatches, bad);
}

__device__ __forceinline__ std::uint16_t small_int_bf16(std::uint32_t v) {
  // v in 1..256: exact in bf16. Build it from the float's top 16 bits (exact: v has <= 8 bits).
  return static_cast<std::uint16_t>(__float_as_uint(static_cast<float>(v)) >> 16);
}

__device__ __forceinline__ std::uint32_t reduce_input(std::uint64_t seed, int rank, std::uint64_t i) {
  return (hash_word(seed, rank, i) & 7u) + 1u;
}

__global__ void fill_reduce_inputs_kernel(std::uint16_t* values, std::size_t count, std::uint64_t seed,
                                          int rank) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    values[i] = small_int_bf16(reduce_input(seed, rank, i));
  }
}

__global__ void verify_reduce_kernel(const std::uint16_t* recv, std::size_t count, int ranks, int me,
                                     int scatter, std::uint64_t seed, unsigned long long* mismatches) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < count;
       j += stride) {
    const std::uint64_t input = scatter != 0 ? static_cast<std::uint64_t>(me) * count + j : j;
    std::uint32_t sum = 0;
    for (int r = 0; r < ranks; ++r) sum += reduce_input(seed, r, input);
    if (recv[j] != small_int_bf16(sum)) ++bad;
  }
  if (bad != 0) atomicAdd(mismatches, bad);
}

// Every workgroup spins for spin_ns of device time: clock conditioning (launch_spin) and, with all
// the shared memory a workgroup may claim, a `measured` program kernel (launch_occupy).
__global__ void spin_kernel(std::uint64_t spin_ns) {
  const std::uint64_t start = device_ns();
  while (device_ns() - start < spin_ns) {}
}

__global__ void stamp_kernel(unsigned long long* stamp, std::uint64_t spin_ns) {
  const std::uint64_t start = device_ns();
  if (threadIdx.x == 0) *stamp = start;
  while (device_ns() - start < spin_ns) {}
}

__global__ void hold_kernel(const volatile std::uint32_t* word, std::uint32_t value, std::uint64_t timeout_ns,
                            int* timed_out) {
  const std::uint64_t start = device_ns();
  while (*word != value) {
    if (device_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

unsigned blocks_for(std::size_t count) {
  const std::size_t want = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(want < kMaxBlocks ? (want == 0 ? 1 : want) : kMaxBlocks);
}

}  // namespace

void launch_fill_words(hipStream_t stream, std::uint32_t* words, std::size_t count, std::uint64_t seed,
                       int rank, std::size_t first_word) {
  fill_words_kernel<<<blocks_for(count), kThreads, 0, stream>>>(words, count, seed, rank, first_word);
  C3_LAUNCHED();
}

void launch_fill_bf16(hipStream_t stream, std::uint16_t* values, std::size_t count, std::uint64_t seed) {
  fill_bf16_kernel<<<blocks_for(count), kThreads, 0, stream>>>(values, count, seed);
  C3_LAUNCHED();
}

void launch_fill_constant(hipStream_t stream, std::uint32_t* words, std::size_t count, std::uint32_t value) {
  fill_constant_kernel<<<blocks_for(count), kThreads, 0, stream>>>(words, count, value);
  C3_LAUNCHED();
}

void launch_verify(hipStream_t stream, const std::uint32_t* recv, std::size_t total_words, int ranks, int me,
                   CollLayout layout, std::uint64_t seed, unsigned long long* mismatches) {
  verify_kernel<<<blocks_for(total_words), kThreads, 0, stream>>>(recv, total_words, ranks, me,
                                                                  static_cast<int>(layout), seed, mismatches);
  C3_LAUNCHED();
}

void launch_verify_range(hipStream_t stream, const std::uint32_t* words, std::size_t count,
                         std::uint64_t seed, int rank, std::size_t first_word,
                         unsigned long long* mismatches) {
  verify_range_kernel<<<blocks_for(count), kThreads, 0, stream>>>(words, count, seed, rank, first_word,
                                                                  mismatches);
  C3_LAUNCHED();
}

void launch_fill_reduce_inputs(hipStream_t stream, std::uint16_t* values, std::size_t count,
                               std::uint64_t seed, int rank) {
  fill_reduce_inputs_kernel<<<blocks_for(count), kThreads, 0, stream>>>(values, count, seed, rank);
  C3_LAUNCHED();
}

void launch_verify_reduce(hipStream_t stream, const std::uint16_t* recv, std::size_t count, int ranks, int me,
                          bool scatter, std::uint64_t seed, unsigned long long* mismatches) {
  verify_reduce_kernel<<<blocks_for(count), kThreads, 0, stream>>>(recv, count, ranks, me, scatter ? 1 : 0,
                                                                   seed, mismatches);
  C3_LAUNCHED();
}

// A program's memory-bound kernel: dst[i] = src[i] + 1 per 16-byte vector (each word), grid-stride,
// so every byte of src is read once and every byte of dst written once.
__global__ void stream_add_kernel(const uint4* src, uint4* dst, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    uint4 v = src[i];
    v.x += 1u;
    v.y += 1u;
    v.z += 1u;
    v.w += 1u;
    dst[i] = v;
  }
}

void launch_stream_add(hipStream_t stream, const void* src, void* dst, std::size_t bytes, int workgroups) {
  const std::size_t count = bytes / sizeof(uint4);
  if (count == 0) return;
  stream_add_kernel<<<static_cast<unsigned>(workgroups), 1024, 0, stream>>>(static_cast<const uint4*>(src),
                                                                            static_cast<uint4*>(dst), count);
  C3_LAUNCHED();
}

void launch_spin(hipStream_t stream, int workgroups, std::uint64_t spin_ns) {
  spin_kernel<<<workgroups, 64, 0, stream>>>(spin_ns);
  C3_LAUNCHED();
}

namespace {
// Largest dynamic shared memory one workgroup of spin_kernel may claim on the current device; on
// NVIDIA the kernel is opted in to it once per device (launches asking for none are unaffected).
std::size_t occupy_bytes() {
  static std::mutex mutex;
  static std::map<int, std::size_t> per_device;
  int device = 0;
  C3_HIP(hipGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto it = per_device.find(device); it != per_device.end()) return it->second;
  int bytes = 0;
#if defined(C3BENCH_NVIDIA)
  C3_HIP(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  C3_HIP(cudaFuncSetAttribute(spin_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
#else
  C3_HIP(hipDeviceGetAttribute(&bytes, hipDeviceAttributeMaxSharedMemoryPerBlock, device));
#endif
  return per_device[device] = static_cast<std::size_t>(bytes);
}
}  // namespace

// The spin, but each workgroup claims all the shared memory (LDS) one workgroup may have, more
// than half an SM's / CU's, so nothing that uses shared memory (a GEMM tile, a collective's
// channel, another of these) is resident beside it: the workgroup holds its SM/CU as c3sim's
// measured-kernel model does. The claimed bytes are never touched.
void launch_occupy(hipStream_t stream, int workgroups, std::uint64_t spin_ns) {
  const std::size_t bytes = occupy_bytes();
  spin_kernel<<<workgroups, 64, bytes, stream>>>(spin_ns);
  C3_LAUNCHED();
}

void launch_stamp(hipStream_t stream, unsigned long long* stamp, std::uint64_t spin_ns) {
  stamp_kernel<<<1, 32, 0, stream>>>(stamp, spin_ns);
  C3_LAUNCHED();
}

void launch_hold(hipStream_t stream, const volatile std::uint32_t* word, std::uint32_t value,
                 std::uint64_t timeout_ns, int* timed_out) {
  hold_kernel<<<1, 1, 0, stream>>>(word, value, timeout_ns, timed_out);
  C3_LAUNCHED();
}

}  // namespace c3sim::bench
