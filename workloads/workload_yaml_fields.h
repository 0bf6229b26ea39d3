#pragma once
// Readers of the fields that scenario files (scenario_io.cpp) and program files (program_io.cpp)
// share: bounded integers, byte counts with units, names, the GEMM and the collective. Each reads
// through StrictMap, so a bad value is an InputError naming the file, line and dotted key.
#include <cstdint>
#include <functional>
#include <string>

#include "sim/base/strict_yaml.h"
#include "workloads/collective.h"
#include "workloads/gemm.h"

namespace YAML {
class Emitter;
}

namespace c3sim::wl {

// An integer in 1..max.
std::int64_t positive_integer(StrictMap& m, const std::string& key, std::int64_t max);

// A string that must not be empty (a name).
std::string nonempty_string(StrictMap& m, const std::string& key);

// How a byte count over the 1 PiB bound (input_limits.h) written with a unit is reported:
// scenario files name the bound, program files do not (each reader's message as it always was).
enum class BoundInMessage { named, omitted };

// A byte count: a plain integer or a size with a unit ("896 MiB", "3.25 GiB") that comes out
// whole, in 1..kMaxCollectiveBytes.
std::int64_t byte_count(StrictMap& m, const std::string& key, BoundInMessage bound);

// The writers' text for a byte count: "896 MiB", "1.625 GiB", or plain bytes. Only sizes that are
// multiples of unit/64 use the unit, so the number has at most six decimals and byte_count reads
// back the exact same integer.
std::string byte_count_text(std::int64_t bytes);

// Runs on a GEMM given as a mapping once its keys are read, with that mapping (so its errors
// point into it); a Table I tag is not checked.
using GemmCheck = std::function<void(const Gemm&, const StrictMap&)>;

// `gemm: cb1` (a Table I tag) or a mapping {tag, m, n, k, dtype, source}, each side in 1..2^24.
Gemm gemm_field(StrictMap& m, const GemmCheck& check);

// The `collective:` mapping {op, bytes, impl, max_workgroups}, with where its bytes were given
// (for checks that need the GPU count, which the caller knows later).
struct CollectiveField {
  Collective collective;
  SourceLocation bytes_location;
  std::string bytes_key;
};
CollectiveField collective_field(StrictMap c, std::int64_t max_workgroups, BoundInMessage bound);

// Writes `collective: {op, bytes, impl, ...}` as collective_field reads it back (the optional keys
// only where set), for the scenario and program writers alike.
void emit_collective_field(YAML::Emitter& out, const Collective& c);

}  // namespace c3sim::wl
