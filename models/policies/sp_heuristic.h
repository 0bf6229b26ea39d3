#pragma once
// The paper's schedule-prioritization heuristic (V-C) extended to N kernels, as its VII-B
// proposes: launch kernels in order of their resource needs (workgroups), low to high. In a
// program the launch order is the host's, so the decision is per overlap pair: a collective that
// `sp` could launch one slot earlier (the kernel the host launches just before it is on another
// stream, is no collective and is not one it waits for) is moved there exactly when it needs no
// more workgroups than that kernel (copy-engine work needs none). `sp` moves every such
// collective; the exhaustive sweep tries every subset of them.
#include <string>
#include <vector>

#include "models/policies/transform_registry.h"
#include "models/program/program_simulator.h"

namespace c3sim::models {

// Indices of the collectives `sp` can move one slot earlier.
std::vector<int> sp_movable_collectives(const wl::Program& program);

// Workgroups kernel k launches with all the CUs of its stream (0 for copy-engine work).
std::int64_t launch_workgroups(const wl::Program& program, int kernel, const hw::NodeSpec& spec);

// The heuristic's subset of sp_movable_collectives.
std::vector<int> sp_heuristic_pick(const wl::Program& program, const hw::NodeSpec& spec);

// The program with exactly `collectives` launched one slot earlier.
wl::Program launch_first(const wl::Program& program, const std::vector<int>& collectives);

// Registry entry `sp_heuristic`.
TransformEntry sp_heuristic_entry();

}  // namespace c3sim::models
