#pragma once
// The few device kernels c3bench needs of its own: random fills (never zeros), the byte-exact
// checks of collectives' and copies' outputs, and the launch-latency stamp. Host-side launchers; each checks
// its launch.
#include <cstddef>
#include <cstdint>

#include "hardware/hip/gpu_runtime.h"

namespace c3sim::bench {

// words[i] = hash(seed, rank, first_word + i): every byte depends on who wrote it and where.
void launch_fill_words(hipStream_t stream, std::uint32_t* words, std::size_t count, std::uint64_t seed,
                       int rank, std::size_t first_word);
// bf16 values uniform in [-1, 1) from the same hash (GEMM operands).
void launch_fill_bf16(hipStream_t stream, std::uint16_t* values, std::size_t count, std::uint64_t seed);
void launch_fill_constant(hipStream_t stream, std::uint32_t* words, std::size_t count, std::uint32_t value);

enum class CollLayout : int { all_gather = 0, all_to_all = 1 };

// Counts words[i] != hash(seed, rank, first_word + i) for i < count (a copy's destination range,
// filled at the source by launch_fill_words with the same seed, rank and first_word).
void launch_verify_range(hipStream_t stream, const std::uint32_t* words, std::size_t count,
                         std::uint64_t seed, int rank, std::size_t first_word,
                         unsigned long long* mismatches);

// Reduction inputs: bf16 small integers 1..8 from the same hash, so any sum over up to 32 ranks
// is exact in bf16 (integers up to 256 are) and a wrong offset or a missed rank changes the value.
void launch_fill_reduce_inputs(hipStream_t stream, std::uint16_t* values, std::size_t count,
                               std::uint64_t seed, int rank);
// Counts bf16 elements of `recv` on rank `me` that differ from the sum over ranks of their inputs
// (launch_fill_reduce_inputs). scatter: reduce-scatter (recv element j is input element
// me * count + j); otherwise all-reduce (element j is input element j).
void launch_verify_reduce(hipStream_t stream, const std::uint16_t* recv, std::size_t count, int ranks, int me,
                          bool scatter, std::uint64_t seed, unsigned long long* mismatches);

// A program's `memory` kernel: reads `bytes` of src and writes `bytes` of dst (the program's
// bytes read plus written are 2 x `bytes`) (16-byte vectors,
// grid-stride over `workgroups` workgroups of 1024 threads).
void launch_stream_add(hipStream_t stream, const void* src, void* dst, std::size_t bytes, int workgroups);

// Launch-latency probe: one workgroup writes the device clock (ns) into *stamp when it starts,
// then spins for spin_ns so the kernel is still running when the next launch arrives.
// `workgroups` workgroups that each spin for spin_ns (clock conditioning: they share SMs/CUs with
// whatever else runs).
void launch_spin(hipStream_t stream, int workgroups, std::uint64_t spin_ns);
// A `measured` program kernel's stand-in: `workgroups` workgroups that each hold a whole SM/CU
// (all the shared memory / LDS a workgroup may claim) and spin for spin_ns.
void launch_occupy(hipStream_t stream, int workgroups, std::uint64_t spin_ns);
void launch_stamp(hipStream_t stream, unsigned long long* stamp, std::uint64_t spin_ns);
// The trial start hold (start_hold.h): one thread polls the host-mapped *word until it reads
// `value`; after timeout_ns it sets *timed_out and ends.
void launch_hold(hipStream_t stream, const volatile std::uint32_t* word, std::uint32_t value,
                 std::uint64_t timeout_ns, int* timed_out);

// Counts (atomically into *mismatches) words of `recv` on rank `me` that differ from what the
// collective must leave there, given every rank's send buffer was filled by launch_fill_words
// with `seed`, rank r and first_word 0. recv holds total_words; each peer's block is
// total_words / ranks words.
void launch_verify(hipStream_t stream, const std::uint32_t* recv, std::size_t total_words, int ranks, int me,
                   CollLayout layout, std::uint64_t seed, unsigned long long* mismatches);

}  // namespace c3sim::bench
