#include "workloads/scenario.h"

#include <cmath>

#include <fmt/format.h>

namespace c3sim::wl {

const char* to_string(Taxonomy t) {
  switch (t) {
    case Taxonomy::g_long: return "G-long";
    case Taxonomy::c_long: return "C-long";
    case Taxonomy::gc_equal: return "GC-equal";
  }
  return "?";
}

std::optional<Taxonomy> parse_taxonomy(const std::string& s) {
  for (Taxonomy t : {Taxonomy::g_long, Taxonomy::c_long, Taxonomy::gc_equal}) {
    if (s == to_string(t)) return t;
  }
  if (s == "g_long") return Taxonomy::g_long;
  if (s == "c_long") return Taxonomy::c_long;
  if (s == "gc_equal") return Taxonomy::gc_equal;
  return std::nullopt;
}

Taxonomy classify(double gemm_time, double collective_time) {
  if (!std::isfinite(gemm_time) || !std::isfinite(collective_time) || gemm_time < 0 || collective_time < 0) {
    throw ModelError(fmt::format("classify: times must be finite and non-negative (gemm {}, collective {})",
                                 gemm_time, collective_time));
  }
  // Strictly greater: a ratio of exactly 1.15 is still "within 15%", i.e. GC-equal.
  if (gemm_time > kTaxonomyDominance * collective_time) return Taxonomy::g_long;
  if (collective_time > kTaxonomyDominance * gemm_time) return Taxonomy::c_long;
  return Taxonomy::gc_equal;
}

std::int64_t shard_bytes(const Collective& c, int gpus) {
  if (gpus <= 0) throw ModelError(fmt::format("shard_bytes: gpus must be positive, got {}", gpus));
  return c.bytes / gpus;
}

}  // namespace c3sim::wl
