#pragma once
// GEMM launch probe (env record details.gemm_launch, `c3bench sweep --what gemm_launch`): what it
// costs, on GPU 0, to get one prepared GEMM running beside an already running kernel, the case
// of a c3 trial's second part (a one-workgroup spin kernel runs on another stream throughout).
// Per shape and call, `reps` repetitions after warm-ups, each:
//   spin kernel on stream A | [hold] | event E0 on stream B | GEMM call | event E1 | [release]
//   held       the GEMM queued behind the start hold (start_hold.h): E1 - E0 is the GEMM's device
//              time with nothing of its call inside (how every trial's first part is timed)
//   unheld     E0 on the idle stream just before the call: E1 - E0 is host call + launch latency
//              + device time (how a trial's second part, and before issue 14 also its first, is
//              timed); gap_us = median(unheld) - median(held) is the host-launch-to-start gap
//   call       lt: the build's GEMM call (one Lt matmul, algorithm chosen before);
//              per_call (NVIDIA): cublasGemmEx with stream, workspace and SM target set per
//              call, c3bench's call before issue 14
// host_call_us is the host time inside the call.
#include <vector>

#include <nlohmann/json.hpp>

#include "hardware/hip/bench.h"
#include "workloads/gemm.h"

namespace c3sim::bench {

nlohmann::json probe_gemm_launch(Bench& bench, const std::vector<wl::Gemm>& gemms, int reps);

}  // namespace c3sim::bench
