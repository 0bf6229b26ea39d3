#pragma once
// What the program transforms ask of one kernel of a program: is it a collective, and does it wait
// for the kernel named `other` (one of its `after:` entries).
#include <algorithm>
#include <string>

#include "workloads/program.h"

namespace c3sim::models {

inline bool is_collective(const wl::ProgramKernel& k) { return k.kind == wl::KernelKind::collective; }

inline bool waits_for(const wl::ProgramKernel& k, const std::string& other) {
  return std::find(k.after.begin(), k.after.end(), other) != k.after.end();
}

}  // namespace c3sim::models
