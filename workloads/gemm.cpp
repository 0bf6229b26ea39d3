#include "workloads/gemm.h"

#include <fmt/format.h>

namespace c3sim::wl {

std::string Gemm::shape_string() const { return fmt::format("{}x{}x{}", m, n, k); }

}  // namespace c3sim::wl
