#pragma once
// What the hardware's block scheduler does with an imported kernel that the trace records but the
// program would otherwise lose: how many of its blocks one SM holds at once (so a measured kernel
// runs in the waves it ran in, MeasuredKernel::blocks_per_cu), and which streams PyTorch FSDP2
// created at high priority (its copy-in, all-gather and reduce-scatter streams, priority -1 in
// FSDPCommContext.lazy_init), which the profiler does not record.
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "workloads/torch_trace_events.h"

namespace c3sim::wl {

// Resident blocks per SM for the kernel's launch (threads, registers per thread, shared memory per
// block) on an NVIDIA device whose properties the trace gives; nullopt when either is missing.
// Registers are allocated per warp in units of 256 and each block reserves 1 KiB of shared memory
// (compute capability 8.0 and later), as the CUDA occupancy calculator counts them.
std::optional<int> trace_blocks_per_sm(const TraceEvent& kernel, const TraceDevice& device);

// The streams of `device` that ran FSDP2's communication: those its FSDP::all_gather ranges ran
// on (the copy-in stream) and, in a trace with FSDP2 ranges, those its all-gather and
// reduce-scatter NCCL kernels ran on. Empty without FSDP2 ranges.
std::set<std::int64_t> fsdp2_high_priority_streams(const TraceEvents& trace, std::int64_t device,
                                                   const std::vector<const TraceEvent*>& kernels);

}  // namespace c3sim::wl
