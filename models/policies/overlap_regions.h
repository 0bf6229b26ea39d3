#pragma once
// Overlap regions of a program, and transformations that act on a subset of its kernels.
//
// The ideal schedule is the program's critical path with every kernel at its isolated time
// (ProgramSimulator::ideal_us, here with each kernel's interval). An overlap region is one
// collective with the kernels it co-runs with in that schedule: every kernel that overlaps a
// collective on another stream joins the region of the collective it overlaps longest (the first
// in launch order on a tie), so regions are disjoint and a GEMM that straddles two all-gathers
// belongs to one. A collective that overlaps nothing is a region of one kernel (only its own
// implementation and mask matter there); kernels that overlap no collective are in no region.
//
// apply_plan_to_kernels gives a LaunchPlan (models/policies/policy.h) to a kernel subset: collectives of
// the subset launched one slot earlier (comm_first), copy-engine implementation for its
// collectives (comm_impl), and priorities / CU masks on copies of the subset's streams: the
// subset's kernels of a collective-only stream (when they include a CU collective) or of a
// GEMM-only stream (when they include a GEMM) move to "<stream>@<tag>", made on first use with
// the plan's priority and mask for that side (later calls with the same tag share it), and
// wherever two kernels that were consecutive on one stream now sit on different streams the later
// one waits for the earlier (an event), so the program's order is kept. Streams are only copied
// when the plan sets a priority or a mask, so a plan that changes nothing returns the program as
// is. The program simulator lays masked streams side by side (collective streams up from the low
// end of each XCD, GEMM streams down from the high end), so each distinct tag with a mask takes
// its own slice: callers keep the number of differently masked copies small.
#include <string>
#include <vector>

#include "models/policies/policy.h"
#include "models/program/program_simulator.h"
#include "workloads/program.h"

namespace c3sim::models {

struct IdealInterval {
  double start_us = 0;  // ready: launched, dependencies and stream predecessor ended
  double end_us = 0;    // start + isolated time
};

// Per kernel (program order), the same schedule whose last end is ProgramSimulator::ideal_us.
std::vector<IdealInterval> ideal_schedule(ProgramSimulator& sim, const wl::Program& program);

struct OverlapRegion {
  std::string name;                  // the collective's name
  std::vector<std::string> kernels;  // program order, the collective among them
  // The GEMM + collective pair FiCCO chunking would split for this region (program order), empty
  // when there is none: the collective with the first GEMM that waits for it or that it waits for
  // (a data-dependent pair; its GEMM may overlap another region's collective, or none, in the
  // ideal schedule) not taken by an earlier region; else, when the region is exactly one GEMM and
  // the collective and no region took that GEMM, that independent pair.
  std::vector<std::string> chunk_pair;
};

// Regions in the launch order of their collectives.
std::vector<OverlapRegion> overlap_regions(ProgramSimulator& sim, const wl::Program& program);

wl::Program apply_plan_to_kernels(const wl::Program& program, const std::vector<std::string>& kernels,
                                  const LaunchPlan& plan, const std::string& tag);

// Whether a collective runs on copy engines under a dma-style plan (reductions stay on CUs).
bool offloadable(const wl::ProgramKernel& k);

}  // namespace c3sim::models
