#pragma once
// The few device kernels c3bench needs of its own: the gate that holds every stream until all
// launches are queued, random fills (never zeros), and the byte-exact check of a collective's
// output. Host-side launchers; each checks its launch.
#include <cstddef>
#include <cstdint>

#include "hardware/hip/gpu_runtime.h"

namespace c3sim::bench {

// Spins until *release != 0 (host-mapped memory), or until timeout_ns passes; on timeout it sets
// *timed_out = 1 and returns, so a lost release shows up as an error rather than a hung GPU.
void launch_gate(hipStream_t stream, const volatile int* release, int* timed_out, std::uint64_t timeout_ns);

// words[i] = hash(seed, rank, first_word + i): every byte depends on who wrote it and where.
void launch_fill_words(hipStream_t stream, std::uint32_t* words, std::size_t count, std::uint64_t seed,
                       int rank, std::size_t first_word);
// bf16 values uniform in [-1, 1) from the same hash (GEMM operands).
void launch_fill_bf16(hipStream_t stream, std::uint16_t* values, std::size_t count, std::uint64_t seed);
void launch_fill_constant(hipStream_t stream, std::uint32_t* words, std::size_t count, std::uint32_t value);

enum class CollLayout : int { all_gather = 0, all_to_all = 1 };

// Counts (atomically into *mismatches) words of `recv` on rank `me` that differ from what the
// collective must leave there, given every rank's send buffer was filled by launch_fill_words
// with `seed`, rank r and first_word 0. recv holds total_words; each peer's block is
// total_words / ranks words.
void launch_verify(hipStream_t stream, const std::uint32_t* recv, std::size_t total_words, int ranks, int me,
                   CollLayout layout, std::uint64_t seed, unsigned long long* mismatches);

}  // namespace c3sim::bench
