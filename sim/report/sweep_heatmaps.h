#pragma once
// Sweep output with many variants as two heatmaps, variant x grid value. One bar per variant
// (report_data.cpp's sweep summary) stops being readable past a few dozen bars, and the question
// an architect brings is two-dimensional anyway: which enhancement buys how much at which size.
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/measurement.h"

namespace c3sim::report {

// Past this many sweep variants the report draws the heatmaps instead of one bar per variant
// (24 labelled bar groups still fit the page's 1300 px chart).
inline constexpr std::size_t kMaxBarVariants = 24;

// The distinct sweep variants (extra.variant.index) among the records.
std::size_t sweep_variant_count(const std::vector<const wl::C3Record*>& runs);

// Columns: the setting keys every variant sets and that take more than one value (a sweep's
// grid; when that leaves a single row, the first such key becomes the rows). Rows: the rest of a
// variant's identity, its given name or else its other settings. Per cell, over the scenarios
// that ran both sides ("engine" = a policy whose collective runs on the copy engines, impl != cu;
// the best is the fastest of them, likewise for the CU policies):
//   offload: geomean of best CU-policy time / best engine-policy time (> 1: offload is faster),
//            wins (engine strictly faster) and the scenarios counted;
//   gain:    geomean of the first row's best engine-policy time / this row's, same column and
//            scenario (> 1: the variant makes offload faster than the baseline row does).
// Cells without data are null. Returns null when no record is a sweep record.
nlohmann::json sweep_heatmaps(const std::vector<const wl::C3Record*>& runs);

}  // namespace c3sim::report
