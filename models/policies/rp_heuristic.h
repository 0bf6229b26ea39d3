#pragma once
// The paper's resource-partitioning heuristic (V-C) extended to N kernels (its VII-B): each
// collective stream (a stream holding CU collectives and no GEMM) gets its own CU mask from the
// rp sweep's sizes (granularity, 2x, 4x, ... below all CUs); GEMM streams get the CUs the largest
// collective mask leaves. The pair heuristic picks the split minimising max(GEMM, comm) with each
// kernel's time under its share; with N kernels that balance is the program's critical path with
// every kernel at its isolated time under its mask (ProgramSimulator::ideal_us of the partitioned
// program), minimised over every assignment of sizes to collective streams. The isolated times
// under a mask are simulated rather than read from the paper's roofline x slowdown tables; like
// the paper's, the estimate leaves out memory interference between the co-running kernels.
// The exhaustive sweep simulates every assignment.
#include <map>
#include <string>
#include <vector>

#include "models/policies/transform_registry.h"
#include "models/program/program_simulator.h"

namespace c3sim::models {

using StreamCus = std::map<std::string, int>;  // collective stream -> CUs

// Streams holding at least one CU collective and no GEMM, in declaration order.
std::vector<std::string> collective_streams(const wl::Program& program);

// Every assignment of rp_sweep_cus sizes to collective_streams (first stream slowest-varying).
std::vector<StreamCus> rp_assignments(const wl::Program& program, const hw::NodeSpec& spec);

// The program with each collective stream masked to its CUs and every GEMM-only stream to the
// CUs the largest collective mask leaves.
wl::Program partition_streams(const wl::Program& program, const StreamCus& cus, const hw::NodeSpec& spec);

// The heuristic's assignment (the first of the smallest critical paths).
StreamCus rp_heuristic_pick(ProgramSimulator& sim, const wl::Program& program);

std::string to_string(const StreamCus& cus);  // "ag:32 rs:16"

// Registry entry `rp_heuristic`.
TransformEntry rp_heuristic_entry();

}  // namespace c3sim::models
