#pragma once
// Importing nccl-tests / rccl-tests output (the tables all_gather_perf, alltoall_perf, ... print)
// as iso_coll measurement records (impl cu: the library's kernels), so collectives can be
// calibrated from logs users already have. Each data row gives one record: bytes = the per-GPU
// output, from the "size" column (nccl-tests prints max(send, receive) bytes per rank: the output of
// an all-gather, all-to-all or all-reduce, the input of a reduce-scatter, whose output is one
// size / gpus block),
// time = the out-of-place "time" column in microseconds.
#include <optional>
#include <string>
#include <vector>

#include "workloads/measurement.h"

namespace c3sim::wl {

struct NcclTestsOptions {
  std::optional<std::string> op;  // overrides the "Collective test starting: X_perf" line
  std::optional<int> gpus;        // overrides the "nGpus N" / "nranks N" header
};

// Throws InputError naming `label`, the line and the column on anything it cannot read (no
// table, no op, no GPU count, a malformed row).
std::vector<Record> import_nccl_tests(const std::string& text, const std::string& label,
                                      const NcclTestsOptions& options = {});

}  // namespace c3sim::wl
