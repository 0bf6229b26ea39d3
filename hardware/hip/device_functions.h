#pragma once
// Device-side helpers shared by c3bench's kernel files (included only by .cu sources): the device
// clock and the hash every filled word is made from.
#include <cstdint>

#include "hardware/hip/gpu_runtime.h"

namespace c3sim::bench {

__device__ __forceinline__ std::uint64_t device_ns() {
#if defined(C3BENCH_AMD)
  return wall_clock64() * 10ull;  // 100 MHz constant clock on CDNA3
#else
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#endif
}

__device__ __forceinline__ std::uint32_t hash_word(std::uint64_t seed, int rank, std::uint64_t i) {
  // splitmix64 of (seed, rank, index): cheap, and no two (rank, index) pairs collide in practice.
  std::uint64_t z = seed ^ (static_cast<std::uint64_t>(rank) << 48) ^ (i * 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<std::uint32_t>(z);
}

}  // namespace c3sim::bench
