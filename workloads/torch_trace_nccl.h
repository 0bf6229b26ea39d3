#pragma once
// An imported PyTorch step given NCCL's own tuning log (nccl_tuning_log.h): every rank's cu
// collectives take the algorithm, protocol and channels NCCL logged for them, matched in launch
// order by op and bytes; what matched is counted on the result (TorchImportResult::nccl_log).
// A matched line overrides what the kernel's launch gave (nccl_launch_shape.h).
#include <string>
#include <vector>

#include "workloads/nccl_tuning_log.h"
#include "workloads/torch_trace_import.h"
#include "workloads/torch_trace_ranks.h"

namespace c3sim::wl {

void apply_nccl_log(TorchImportResult& r, const std::vector<NcclTuningLine>& lines);
// Each rank's list against the whole log (rank 0 of a communicator logs for every rank of it);
// the program's `kernels` stays rank 0's list.
void apply_nccl_log(TorchRanksResult& r, const std::vector<NcclTuningLine>& lines);

// Where an imported rank's collectives got their channels and their algorithm and protocol, for
// file headers and stderr: "collective choices: channels from the NCCL log 1, from the kernel grid
// 8, left to c3sim's tuner 0; algorithm and protocol from the NCCL log 1, from the kernel block
// (NCCL 2.28.9) 8, left to c3sim's tuner 0".
std::string collective_choice_summary(const TorchImportResult& r);

}  // namespace c3sim::wl
