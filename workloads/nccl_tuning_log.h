#pragma once
// NCCL's own record of how it ran each collective: with NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS
// including TUNING, rank 0 of every communicator logs one line per collective call
// (src/enqueue.cc, NCCL 2.28):
//
//   host:pid:tid [dev] NCCL INFO AllReduce: 8192 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}
//
// Bytes are the call's count times its type size: the all-gather's per-rank input, the
// reduce-scatter's per-rank output, the all-reduce's buffer. Other ranks log nothing for it; every
// rank of a communicator runs the same choice. Lines of other subsystems are skipped; a line that
// has the shape "... Bytes -> Algo ..." but does not parse is an InputError naming the file and line.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/collective.h"
#include "workloads/program.h"

namespace c3sim::wl {

struct NcclTuningLine {
  int line = 0;                    // 1-based, in its file
  std::string function;            // NCCL's name: AllReduce, AllGather, ReduceScatter, Broadcast, ...
  std::optional<CollectiveOp> op;  // the c3sim op it is (nullopt: Broadcast, Reduce, ...)
  std::int64_t bytes = 0;          // as NCCL logs them: count x type size
  std::string nccl_algorithm;      // RING, TREE, NVLS, PAT, COLLNET_DIRECT, ...
  std::optional<CollectiveAlgorithm> algorithm;  // ring or tree; nullopt for one c3sim does not model
  CollectiveProtocol protocol = CollectiveProtocol::simple;
  int channels = 1;  // Hi - Lo + 1
};

std::vector<NcclTuningLine> parse_nccl_tuning_log(const std::string& text, const std::string& file);

// How many of a program's collectives a log describes.
struct NcclLogMatch {
  int lines = 0;                 // tuning lines offered
  int matched = 0;               // collectives given their algorithm, protocol and channels
  int unmatched = 0;             // collectives no line fits (op and bytes), left to the model's tuner
  int algorithm_unmodelled = 0;  // matched collectives whose algorithm c3sim does not model (NVLS, PAT, ...):
                                 // protocol and channels written, the algorithm left to the tuner
  std::vector<std::size_t> matched_kernels;  // the matched collectives' indices in the kernel list
};

// One line for file headers and stderr: "NCCL tuning log: 9 of 9 collectives matched, 0 unmatched
// (left to c3sim's tuner), 0 with an algorithm c3sim does not model; 40 tuning lines".
std::string nccl_log_summary(const NcclLogMatch& m);

// NCCL's bytes for a c3sim collective of `op` with `bytes` (the per-GPU output) over `gpus` ranks.
std::int64_t nccl_logged_bytes(CollectiveOp op, std::int64_t bytes, int gpus);

// Writes algorithm, protocol and channels on `kernels`' cu collectives, in launch order: each
// takes the first line after the last one taken whose op and bytes fit (`gpus` ranks); a log that
// spans several steps thus gives the first step's lines, which NCCL chooses alike for the same
// call. Lines are consumed per kernel list: call once per rank.
NcclLogMatch apply_nccl_tuning(std::vector<ProgramKernel>& kernels, int gpus,
                               const std::vector<NcclTuningLine>& lines);

}  // namespace c3sim::wl
