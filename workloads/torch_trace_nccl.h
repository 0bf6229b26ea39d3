#pragma once
// An imported PyTorch step given NCCL's own tuning log (nccl_tuning_log.h): every rank's cu
// collectives take the algorithm, protocol and channels NCCL logged for them, matched in launch
// order by op and bytes; what matched is counted on the result (TorchImportResult::nccl_log).
#include <vector>

#include "workloads/nccl_tuning_log.h"
#include "workloads/torch_trace_import.h"
#include "workloads/torch_trace_ranks.h"

namespace c3sim::wl {

void apply_nccl_log(TorchImportResult& r, const std::vector<NcclTuningLine>& lines);
// Each rank's list against the whole log (rank 0 of a communicator logs for every rank of it);
// the program's `kernels` stays rank 0's list.
void apply_nccl_log(TorchRanksResult& r, const std::vector<NcclTuningLine>& lines);

}  // namespace c3sim::wl
