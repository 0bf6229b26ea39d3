#pragma once
// Launch microbenchmarks: what a program pays between issuing work on the host and the GPU
// running it, in the quantities the simulator's launch model reads (env record, details.launch):
//   kernel_after_kernel_us  start of a kernel on stream B after a kernel launched just before it
//                           on stream A (both from this thread, A's kernel released first)
//   copy_after_kernel_us    the same with a copy-engine copy second
//   kernel_after_copy_us    a kernel launched right after a copy on another stream
//   copy_submit_us          host time inside one copy call (cudaMemcpyAsync / hipMemcpyAsync)
//   copy_submit_to_first_byte_us, copy_last_byte_to_host_us
//                           one 4-byte device-to-pinned-host copy: the host polls the landing
//                           word (first byte) and then waits on an event (completion seen)
//   peer_copy_roundtrip_us  one 4 KiB peer copy, submit to host-observed completion
//   batched[N]              N 4 KiB peer copies as one batched call vs N calls: host submit time
//                           and round trip (NVIDIA with CUDA >= 12.8; AMD: single calls only)
// Each figure is the median, min and max over `reps` repetitions after warm-ups.
#include <nlohmann/json.hpp>

#include "hardware/hip/device_set.h"

namespace c3sim::bench {

nlohmann::json probe_launch_latencies(DeviceSet& devices, int reps);

}  // namespace c3sim::bench
