#pragma once
// Element types of GEMM operands: shared vocabulary of the hardware description (peak FLOP/s per
// dtype), the workloads (a GEMM's dtype) and the models, so it lives at the bottom layer.
#include <array>
#include <optional>
#include <string_view>

namespace c3sim {

enum class Dtype { bf16, fp16, fp8, fp32, tf32 };

int dtype_bytes(Dtype d);
const char* to_string(Dtype d);

inline constexpr std::array<Dtype, 5> kAllDtypes{Dtype::bf16, Dtype::fp16, Dtype::fp8, Dtype::fp32,
                                                 Dtype::tf32};
// Inverse of to_string; nullopt for an unknown spelling (callers turn that into an InputError).
std::optional<Dtype> parse_dtype(std::string_view text);

}  // namespace c3sim
