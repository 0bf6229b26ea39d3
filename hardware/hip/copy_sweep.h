#pragma once
// Copy-engine characterization (`c3bench sweep --what copy_engine`): the copies a DMA collective
// is made of, alone, as iso_copy records, so the simulator's copy-engine model is fitted on what
// limits a copy rather than on whole collectives of one GPU count:
//   local          GPU 0 copies within its own memory
//   push / pull    GPU 0 writes to / reads from every peer at once
//   bidirectional  every GPU pushes to every peer at once (the traffic of a direct all-gather)
// each vs bytes (per peer), and at the larger sizes vs streams per peer, chunks per transfer and
// batched vs one-call-per-piece submission. Every configuration's destination bytes are checked
// once against the source's hash before it is timed. Times run from the first submission reaching
// the GPU to the last completion (trial.h); host-side submission costs are in the launch probe.
#include <cstdint>
#include <vector>

#include "hardware/hip/bench.h"
#include "workloads/measurement.h"

namespace c3sim::bench {

struct CopySweepRequest {
  std::vector<std::int64_t> sizes;        // per peer, every pattern, 1 stream, 1 chunk
  std::vector<std::int64_t> shape_sizes;  // where streams x chunks x batched are swept
  std::vector<int> streams{1, 2, 4};
  std::vector<int> chunks{1, 4, 16};
  int warmups = 1;
  int trials = 5;
};

std::vector<wl::Record> sweep_copy_engine(Bench& bench, const CopySweepRequest& request);

}  // namespace c3sim::bench
