#pragma once
// A C3 scenario: one GEMM and one collective that run concurrently on every GPU of a node,
// plus the policies to try. Loaded from scenario YAML (workloads/scenario_io.h) or taken from the
// paper's catalog (workloads/paper_catalog.h).
#include <optional>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "workloads/collective.h"
#include "workloads/gemm.h"

namespace c3sim::wl {

// The paper's Table II classes (Section III): G-long if GEMM > 1.15 x collective, C-long the
// reverse, GC-equal otherwise.
enum class Taxonomy { g_long, c_long, gc_equal };
inline constexpr double kTaxonomyDominance = 1.15;  // "> 115%" in Section III
const char* to_string(Taxonomy t);                  // "G-long", "C-long", "GC-equal"
// Accepts the printed names and the enumerator spellings ("g_long").
std::optional<Taxonomy> parse_taxonomy(const std::string& s);
// Times in any one unit. Throws ModelError for a negative or non-finite time (a caller bug).
Taxonomy classify(double gemm_time, double collective_time);

struct Scenario {
  std::string name;                        // e.g. "mb1_896M_ag"
  std::string tag;                         // the paper's C3 tag, e.g. "mb1_896M"
  std::string source;                      // "LLaMA-70B", "synthetic", ...
  std::optional<Taxonomy> paper_taxonomy;  // as printed in Table II, when from the catalog
  std::optional<int> gpus;                 // nullopt = every GPU of the node
  Gemm gemm;
  Collective collective;
  std::vector<std::string> policies;  // policy names ("base", "sp", "rp:32", ...); empty = default

  // Where each came from when loaded from YAML (empty file for catalog/programmatic scenarios).
  // Policies are parsed later (models/), against the hardware; these let that pass name the line.
  SourceLocation location;                       // the scenario's mapping
  std::vector<SourceLocation> policy_locations;  // parallel to `policies` (or empty)
};

// Per-GPU shard of the collective: bytes / gpus (the paper's 8-way FSDP sharding).
// Throws ModelError if gpus <= 0.
std::int64_t shard_bytes(const Collective& c, int gpus);

}  // namespace c3sim::wl
