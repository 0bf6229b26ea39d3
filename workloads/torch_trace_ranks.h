#pragma once
// Every rank's PyTorch profiler trace of one step as one program with a kernel list per rank
// (wl::RankKernels; docs/programs.md, "Import a PyTorch profiler trace"). Each trace is imported
// alone (torch_trace_import.h); the ranks are then put on one clock: the traces of one host share
// it (Kineto's event timestamps are absolute), so each rank's `start_us` is its first launch call
// less the earliest rank's, and the skew between ranks comes from their own timelines.
// - A trace's rank is its distributedInfo.rank, else its position on the command line; two traces
//   of one rank, a rank beyond the collectives' group size, or a file count other than the group
//   size are InputErrors.
// - The ranks must have the same sequence of collectives (op and bytes; validate_rank_kernels).
// - measured_step_us spans the earliest rank's first kernel start to the last kernel end of any
//   rank; measured_profiler_step_us is the longest rank's ProfilerStep# span.
#include <string>
#include <vector>

#include "workloads/torch_trace_import.h"

namespace c3sim::wl {

struct TorchRanksResult {
  Program program;                       // rank_kernels in rank order; kernels = rank 0's
  std::vector<TorchImportResult> ranks;  // each rank's own import (its program's kernels moved out)
  std::vector<std::string> files;        // the trace of each rank
};

// `options.name` and `options.device` apply to every trace; `options.rank` must be unset.
TorchRanksResult import_torch_rank_traces(const std::vector<std::string>& paths,
                                          const TorchImportOptions& options);

// The program's YAML with each rank's counts and unmapped kernels as leading comments. InputError
// when it would be over the input-file cap that `run` reads.
std::string torch_ranks_yaml(const TorchRanksResult& r);

}  // namespace c3sim::wl
