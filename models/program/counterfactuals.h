#pragma once
// Why each kernel of a program ran longer than alone, by cause, from counterfactual runs of the
// same program:
//   compute run  - every kernel has private memory bandwidth, isolated hit rates and no latency
//                  queueing, so only CU sharing and dispatch order differ from isolation;
//   cache run    - private bandwidth, shared caches;
//   latency run  - private bandwidth, shared caches, memory waits queue behind the co-runners;
//   full run     - everything shared.
// slowdown = dispatch delay + CUs unavailable (compute run - iso - delay) + cache (cache run -
// compute run) + memory latency (latency run - cache run) + bandwidth (full - latency run), the
// last split over the shared resources that limited the kernel in the full run, weighted by time
// and by the other kernels' share of them (BottleneckTally). Each stage's time is the kernel's
// duration in that run (ready to end), so a kernel that waits for a slower predecessor is not
// charged for the wait.
#include <vector>

#include "models/program/attribution.h"
#include "models/program/program_simulator.h"
#include "workloads/program.h"

namespace c3sim::models {

// `full`: the program's run with ProgramKnobs::tally (and nothing isolated); `iso_us`: each
// kernel's isolated reference, program order. Simulates the program three more times.
std::vector<Attribution> attribute_slowdowns(ProgramSimulator& sim, const wl::Program& program,
                                             const ProgramRun& full, const std::vector<double>& iso_us);

}  // namespace c3sim::models
