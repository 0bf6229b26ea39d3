#pragma once
// One timed execution of several parts (a GEMM, a collective, or both at once). Gated: a gate
// kernel on every GPU holds every stream until all parts are queued, then the host releases all
// GPUs together; each part's time runs from that release (a per-GPU event recorded after the
// gate) to its last stream's end event, and the trial's total to the last end of any part.
// Ungated (priming): parts are queued and run at once, untimed; used once per measurement so
// that library first-call work (module loads, allocations, connection setup) never happens while
// a gate holds the GPUs.
#include <functional>
#include <string>
#include <vector>

#include "hardware/hip/device_set.h"

namespace c3sim::bench {

struct Part {
  std::string name;                // "gemm", "coll"
  std::vector<StreamRef> streams;  // every stream the part enqueues on
  std::function<void()> enqueue;   // queues the part's work on those streams (all GPUs)
};

struct TrialTimes {
  double total_us = 0;
  std::vector<double> part_us;  // per part, in the order given
};

TrialTimes run_gated(DeviceSet& devices, const std::vector<Part>& parts);
void run_ungated(DeviceSet& devices, const std::vector<Part>& parts);

}  // namespace c3sim::bench
