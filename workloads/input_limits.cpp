#include "workloads/input_limits.h"

#include <cmath>

#include <fmt/format.h>

namespace c3sim::wl {

namespace {

void in_range(std::int64_t v, std::int64_t lo, std::int64_t hi, const SourceLocation& where,
              const std::string& key, const char* what) {
  if (v < lo || v > hi) {
    throw InputError(where, key, fmt::format("{} {} is outside {}..{}", what, v, lo, hi));
  }
}

std::string join(const std::string& prefix, const char* field) {
  return prefix.empty() ? std::string(field) : prefix + "." + field;
}

}  // namespace

void check_gemm_shape(std::int64_t m, std::int64_t n, std::int64_t k, const SourceLocation& where,
                      const std::string& key_prefix) {
  in_range(m, 1, kMaxGemmDim, where, join(key_prefix, "m"), "GEMM side");
  in_range(n, 1, kMaxGemmDim, where, join(key_prefix, "n"), "GEMM side");
  in_range(k, 1, kMaxGemmDim, where, join(key_prefix, "k"), "GEMM side");
  if (m * n > kMaxGemmOutputElements) {  // both <= 2^24: the product fits in int64
    throw InputError(where, join(key_prefix, "n"),
                     fmt::format("a {} x {} output ({} elements) is over the model's limit of {} (2^36) "
                                 "output elements per GEMM: the model simulates every macro-tile",
                                 m, n, m * n, kMaxGemmOutputElements));
  }
}

void check_gpu_count(std::int64_t gpus, const SourceLocation& where, const std::string& key) {
  if (gpus < kMinGpus) {
    throw InputError(where, key, fmt::format("{} GPU(s): a collective needs at least {}", gpus, kMinGpus));
  }
  in_range(gpus, kMinGpus, kMaxGpus, where, key, "GPU count");
}

void check_collective_bytes(std::int64_t bytes, std::int64_t gpus, int element_bytes,
                            const SourceLocation& where, const std::string& key) {
  in_range(bytes, 1, kMaxCollectiveBytes, where, key, "collective size in bytes");
  const std::int64_t unit = gpus * element_bytes;
  if (unit > 0 && bytes % unit != 0) {
    throw InputError(where, key,
                     fmt::format("{} bytes do not split into {} equal shards of whole {}-byte elements "
                                 "(must be a multiple of {} x {} = {} bytes)",
                                 bytes, gpus, element_bytes, gpus, element_bytes, unit));
  }
}

void check_workgroups(std::int64_t workgroups, const SourceLocation& where, const std::string& key) {
  in_range(workgroups, 1, kMaxWorkgroups, where, key, "workgroup count");
}

std::int64_t checked_bytes(double bytes, const SourceLocation& where, const std::string& key) {
  if (!std::isfinite(bytes) || bytes < 1 || bytes > static_cast<double>(kMaxCollectiveBytes)) {
    throw InputError(where, key,
                     fmt::format("{} bytes is outside 1..{} (1 PiB)", bytes, kMaxCollectiveBytes));
  }
  return static_cast<std::int64_t>(std::llround(bytes));
}

}  // namespace c3sim::wl
