#pragma once
// Best policy per overlap region (models/policies/overlap_regions.h): each region tries every
// candidate policy (base, sp, prio, dma when it holds a collective copy engines can run, rp:<cus>
// for the rp sweep's sizes, and where the region has a FiCCO pair (OverlapRegion::chunk_pair) the
// registry's ficco and ficco_dma sweeps, chunking only that pair) with every other region left as
// written; the fastest step wins (the
// first on a tie, base first). The choices are then combined into one program and simulated.
// One CU partition size serves the whole program (the simulator lays every differently masked
// stream side by side, so two sizes would not get the layout each was tried with): the size whose
// per-region best choices have the smallest sum of trial steps; regions whose best was another
// size take their best among the rest.
// Regions interact (a region's choice moves where the next one starts), so the combination is
// checked: when some regions chose a chunked schedule, the combination with each of them under
// its best unchunked candidate is simulated too and the faster kept (chunking changes the graph
// the other regions were tried beside); and when one region's change alone gave a shorter step
// than the combination, that change alone is kept. Registry entry `per_region` (a `region_best` name would
// read as the sweep of a `region` entry).
#include <string>
#include <vector>

#include "models/policies/overlap_regions.h"
#include "models/policies/transform_registry.h"

namespace c3sim::models {

struct RegionChoice {
  OverlapRegion region;
  std::string policy;  // the winning candidate
  double step_us = 0;  // the step with only this region under `policy`
};

struct RegionPlan {
  std::vector<RegionChoice> regions;
  double base_us = 0;      // the step as written
  double combined_us = 0;  // every region under its choice
  bool combined = true;    // false: a single region's change alone was kept (it was faster)
  std::string kept;        // that region and its policy ("ag=dma")
  wl::Program program;     // the program under the kept choice
  // The choices, regions grouped by policy, base left out: "ag1,ag2=dma rs=rp:128".
  [[nodiscard]] std::string describe() const;
};

// The candidate policies a region tries on this hardware.
std::vector<std::string> region_candidates(const OverlapRegion& region, const wl::Program& program,
                                           const hw::NodeSpec& spec);

// The program with `region` under a candidate policy (stream copies tagged with the policy's name,
// so regions under one policy share them).
wl::Program apply_to_region(const wl::Program& program, const OverlapRegion& region,
                            const std::string& policy, const hw::NodeSpec& spec);

RegionPlan choose_per_region(ProgramSimulator& sim, const wl::Program& program);

// Registry entry `per_region`.
TransformEntry per_region_entry();

}  // namespace c3sim::models
