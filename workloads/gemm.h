#pragma once
// A GEMM as the paper names it: C[M x N] = A[M x K] * B[K x N] in one dtype.
// M = output rows, N = output columns, K = reduction (REFERENCE.md: "Reading Table I").
#include <cstdint>
#include <string>

#include "sim/base/dtype.h"

namespace c3sim::wl {

struct Gemm {
  std::string tag;  // e.g. "cb1"; empty for an ad-hoc shape
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  Dtype dtype = Dtype::bf16;
  std::string source;  // e.g. "LLaMA-70B"

  [[nodiscard]] double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  // Compulsory traffic: each input read once, the output written once.
  [[nodiscard]] double min_bytes() const {
    const double e = dtype_bytes(dtype);
    return e * (double(m) * double(k) + double(k) * double(n) + double(m) * double(n));
  }
  [[nodiscard]] std::string shape_string() const;  // "8192x8192x8192"
};

}  // namespace c3sim::wl
