#pragma once
// One timed execution of several parts (a GEMM, a collective, or both at once), launched the way
// one host thread of a training program launches them: in the order given, each part's calls
// right after the previous part's, nothing held back once the trial starts.
//
//   host:  hold + start_g + FIRST queued (all GPUs) | release | launch SECOND (all GPUs) ... wait
//   GPU g: hold ....................................| start_g: FIRST runs |
//                                                   SECOND arrives one host launch later -> ...
//
// The first part is queued behind a start hold (start_hold.h) on each of its streams, with event
// start_g recorded on GPU g's first stream after the hold; release() follows the first part's last
// host call. So start_g is when the hold ends and the first part can start on GPU g: its host
// call cost (cuBLASLt call, NCCL group launch, copy submission) and its launch latency to an idle
// GPU are not timed, as for a kernel queued behind running work in a program. Each part's time on
// GPU g runs from start_g to its last stream's end event there; a part's time is the max over
// GPUs, the trial's total the max over parts. The second part is launched by the host after the
// release, so the launch gap a program pays between its two kernels is inside the measurement,
// and "collective first" really is first (details.launch in the env record measures that gap).
// A GPU the first part does not use gets start_g on the idle stream of its first work (unheld).
//
// Until issue 14 start_g was recorded on an idle stream just before the first part's host call,
// so that call's host work and launch latency were timed: 2048^3 bf16 took 68 us in c3bench
// (cublasGemmEx, stream/workspace/SM target set per call) against 25.8 us in a PyTorch loop on the
// same H200 (hardware/measurements/harness_gemm/). Earlier still every stream waited on one gate
// kernel and was released at once: both kernels became eligible in the same instant and
// "collective first" measured the same as "GEMM first" (median sp/base 1.001 on 4 x H200,
// h200x4_table1.jsonl). Holding the first part behind another stream's gate event does not order
// them either: the wait on the gate's event reaches the held stream about 6 us after the release,
// later than a kernel launched from the host after the release (measured on 2 x H200), so the
// "second" part started first. The start hold is a kernel on the held stream itself: when it
// ends the next kernel of that stream starts (kernel-to-kernel gap), before any later launch.
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
