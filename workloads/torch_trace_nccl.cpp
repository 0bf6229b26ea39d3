#include "workloads/torch_trace_nccl.h"

#include <algorithm>

#include <fmt/format.h>

namespace c3sim::wl {

namespace {

// How many of `from` the log did not match (a matched line overrides them).
int not_matched(const std::vector<std::size_t>& from, const std::vector<std::size_t>& matched) {
  return static_cast<int>(std::count_if(from.begin(), from.end(), [&](std::size_t k) {
    return std::find(matched.begin(), matched.end(), k) == matched.end();
  }));
}

}  // namespace

void apply_nccl_log(TorchImportResult& r, const std::vector<NcclTuningLine>& lines) {
  r.nccl_log = apply_nccl_tuning(r.program.kernels, r.program.gpus.value_or(0), lines);
}

void apply_nccl_log(TorchRanksResult& r, const std::vector<NcclTuningLine>& lines) {
  const int gpus = r.program.gpus.value_or(0);
  for (std::size_t i = 0; i < r.ranks.size() && i < r.program.rank_kernels.size(); ++i) {
    r.ranks[i].nccl_log = apply_nccl_tuning(r.program.rank_kernels[i].kernels, gpus, lines);
  }
  if (!r.program.rank_kernels.empty()) r.program.kernels = r.program.rank_kernels.front().kernels;
}

std::string collective_choice_summary(const TorchImportResult& r) {
  const std::vector<std::size_t> none;
  const std::vector<std::size_t>& matched = r.nccl_log ? r.nccl_log->matched_kernels : none;
  const int logged = static_cast<int>(matched.size());
  const int grid = not_matched(r.channels_from_grid, matched);
  const int block = not_matched(r.choice_from_block, matched);
  return fmt::format(
      "collective choices: channels from the NCCL log {}, from the kernel grid {}, left to c3sim's tuner {}; "
      "algorithm and protocol from the NCCL log {}, from the kernel block ({}) {}, left to c3sim's tuner {}",
      logged, grid, r.collectives - logged - grid, logged,
      r.nccl_version.empty() ? "no NCCL version in the trace" : "NCCL " + r.nccl_version, block,
      r.collectives - logged - block);
}

}  // namespace c3sim::wl
