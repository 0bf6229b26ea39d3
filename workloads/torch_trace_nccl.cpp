#include "workloads/torch_trace_nccl.h"

namespace c3sim::wl {

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

}  // namespace c3sim::wl
