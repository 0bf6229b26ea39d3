#pragma once
// The one set of bounds on a workload, shared by every input path: scenario files, sweep
// variants (after their settings are applied) and measurement records. Each check throws
// InputError at the caller's location and key, with the limit in the message, so a value the
// model cannot represent is the user's error (exit 2), never an overflow or an allocation failure.
#include <cstdint>
#include <string>

#include "sim/base/dtype.h"
#include "sim/base/errors.h"

namespace c3sim::wl {

// Per GEMM side: far above any real layer (LLaMA-405B's largest is 53248).
inline constexpr std::int64_t kMaxGemmDim = std::int64_t{1} << 24;
// Output elements m x n: the model simulates the GEMM tile by tile (2^20 macro-tiles of 256 x 256
// at this limit, about 2.5 s and 60 MB for one run on the development machine; 2^40 elements would
// take hours and gigabytes), so this is where the model stops, not the hardware.
inline constexpr std::int64_t kMaxGemmOutputElements = std::int64_t{1} << 36;
// Per-GPU collective bytes: 1 PiB keeps every byte count exact in a double (< 2^53).
inline constexpr std::int64_t kMaxCollectiveBytes = std::int64_t{1} << 50;
// A collective needs a peer; 4096 GPUs is far above any node the hardware files describe.
inline constexpr std::int64_t kMinGpus = 2;
inline constexpr std::int64_t kMaxGpus = std::int64_t{1} << 12;
// Nodes a program spans (`nodes:`; a symmetric program runs one representative rank whatever N).
inline constexpr std::int64_t kMaxNodes = std::int64_t{1} << 14;
inline constexpr std::int64_t kMaxWorkgroups = std::int64_t{1} << 16;
// A program's times (a launch gap, a measured kernel's duration, an imported step's span), in us:
// 10^12 us (11.6 days) is 10^18 ps, inside the engine's int64 picoseconds with room for sums.
inline constexpr double kMaxProgramTimeUs = 1e12;

// `key_prefix` is prepended to the field names in messages ("scenarios[0].gemm" -> "...gemm.m").
void check_gemm_shape(std::int64_t m, std::int64_t n, std::int64_t k, const SourceLocation& where,
                      const std::string& key_prefix);
void check_gpu_count(std::int64_t gpus, const SourceLocation& where, const std::string& key);
// bytes in 1..kMaxCollectiveBytes and divisible into `gpus` shards of whole `element_bytes`.
void check_collective_bytes(std::int64_t bytes, std::int64_t gpus, int element_bytes,
                            const SourceLocation& where, const std::string& key);
void check_workgroups(std::int64_t workgroups, const SourceLocation& where, const std::string& key);

// A byte count computed from user numbers (a size times a scale): checked in double before any
// cast, so an out-of-range value is an error, not undefined behaviour.
std::int64_t checked_bytes(double bytes, const SourceLocation& where, const std::string& key);

}  // namespace c3sim::wl
