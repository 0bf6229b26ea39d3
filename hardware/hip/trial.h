#pragma once
// One timed execution of several parts (a GEMM, a collective, or both at once), launched the way
// one host thread of a training program launches them: in the order given, each part's calls
// right after the previous part's, nothing held back.
//
//   host:  launch FIRST (all GPUs) | launch SECOND (all GPUs) .................. wait
//   GPU g: start_g -> FIRST runs | SECOND arrives one host launch later -> ...
//
// start_g is an event recorded on GPU g's first stream just before the first work issued to that
// GPU (an event on an idle stream completes when the stream reaches it, i.e. when that launch
// reaches the GPU). Each part's time on GPU g runs from start_g to its last stream's end event
// there; a part's time is the max over GPUs, the trial's total the max over parts. So the
// launch gap a program pays between its two kernels is inside the measurement, and "collective
// first" really is first (details.launch in the env record measures that gap).
//
// Earlier versions held every stream behind one gate kernel and released them together: both
// kernels became eligible in the same instant and "collective first" measured the same as
// "GEMM first" (median sp/base 1.001 on 4 x H200, h200x4_table1.jsonl). Holding only the first
// part behind a gate does not fix that: the wait on the gate's event reaches the held stream about
// 6 us after the release, later than a kernel launched from the host after the release (measured
// on 2 x H200 with this probe), so the "second" part started first.
//
// Untimed (priming): parts are queued and run, untimed; used once per measurement so that library
// first-call work (module loads, allocations, connection setup) is not timed.
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

TrialTimes run_timed(DeviceSet& devices, const std::vector<Part>& parts);
void run_untimed(DeviceSet& devices, const std::vector<Part>& parts);

}  // namespace c3sim::bench
