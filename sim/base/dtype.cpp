#include "sim/base/dtype.h"

namespace c3sim {

int dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::bf16: return 2;
    case Dtype::fp16: return 2;
    case Dtype::fp8: return 1;
    case Dtype::fp32: return 4;
    case Dtype::tf32: return 4;  // stored as fp32; only the matrix unit drops mantissa bits
  }
  return 0;
}

const char* to_string(Dtype d) {
  switch (d) {
    case Dtype::bf16: return "bf16";
    case Dtype::fp16: return "fp16";
    case Dtype::fp8: return "fp8";
    case Dtype::fp32: return "fp32";
    case Dtype::tf32: return "tf32";
  }
  return "?";
}

// Scans the enumerators through to_string so the spelling lives in one place.
std::optional<Dtype> parse_dtype(std::string_view text) {
  for (Dtype d : kAllDtypes) {
    if (text == to_string(d)) return d;
  }
  return std::nullopt;
}

}  // namespace c3sim
