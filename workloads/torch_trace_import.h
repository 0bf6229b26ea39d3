#pragma once
// One GPU's part of a PyTorch profiler Chrome trace (Kineto JSON) as a program (docs/programs.md,
// "Import a PyTorch profiler trace"):
// - every GPU kernel, memcpy and memset of the chosen device, on its stream, in host launch order
//   (the timestamp of the runtime call with the same `correlation`), with gap_us = the host time
//   between two launch calls less the time the host spent blocked in synchronizing runtime calls
//   (cuda*Synchronize, synchronous cudaMemcpy) in between: the simulator re-creates GPU waiting
//   itself, so host time that was only waiting for the GPU is not kept as host work;
// - dependencies: stream order, and cross-stream `after` from the trace's event records and stream
//   waits (torch_trace_dependencies.h: exact from "Stream Wait Event" records, else inferred from
//   record -> wait -> launch on one host thread), with what could not be resolved counted;
// - GEMM kernels (a GEMM-library kernel name launched inside aten::mm/addmm/bmm/baddbmm/matmul/
//   linear) as {m, n, k, dtype} of the op's logical product (from "Input Dims"/"Input type"; bmm's
//   batch folds into m; a transposed operand is a view with the same logical shape, and c3sim's GEMM
//   model takes the logical m, n, k);
// - NCCL/RCCL kernels as collectives (op from the kernel name; bytes from "In/Out msg nelems" and
//   "dtype" on the kernel or its record_param_comms/nccl:* op; bytes = the per-GPU output, as the
//   program format sizes collectives: the gathered tensor, the reduce-scatter's one reduced block
//   (its input / group size), the all-reduce buffer, the all-to-all buffer), their channels from
//   the kernel's grid x, and on NCCL 2.28 their algorithm and protocol from its block x where that
//   count has one (nccl_launch_shape.h; not on an AMD device);
// - every other kernel as `measured` (its measured duration, its grid as workgroups).
// What cannot be mapped as GEMM or collective is kept as `measured` and listed in `unmapped`.
// Not a profiler trace (no traceEvents, or no GPU kernel for the chosen device) -> InputError.
// Whatever is imported loads back as a program (program_io.h) that `c3sim run` accepts: a value
// the program cannot carry (a GEMM side, a group size or a byte count beyond input_limits.h, a
// negative or non-finite time, a kernel that starts before its launch call, a program file over
// the input-file cap) is an InputError naming the trace's event (traceEvents[i], its line) and field.
// The trace is read as a stream (torch_trace_events.h): memory holds compact event records, not
// the text or a JSON tree.
#include <optional>
#include <string>
#include <vector>

#include "workloads/nccl_tuning_log.h"
#include "workloads/program.h"
#include "workloads/torch_trace_dependencies.h"

namespace c3sim::wl {

struct TorchImportOptions {
  std::optional<int> rank;    // must match the trace's distributedInfo.rank when both are given
  std::optional<int> device;  // required when the trace holds kernels of several devices
  std::string name;           // program name; default "torch_trace"
};

struct TorchImportResult {
  Program program;
  std::vector<std::string> unmapped;  // "<kernel>: <why>", in launch order
  int gemms = 0, collectives = 0, measured = 0;
  TraceDependencyCounts dependencies;
  // With NCCL's tuning log (torch_trace_nccl.h): how many collectives it described.
  std::optional<NcclLogMatch> nccl_log;
  // Collectives whose kernel launch gave their channels (grid x) and their algorithm and protocol
  // (block x, nccl_launch_shape.h), as indices into the kernel list; a matched log line overrides
  // both (collective_choice_summary, torch_trace_nccl.h, counts where each came from).
  std::vector<std::size_t> channels_from_grid, choice_from_block;
  std::string nccl_version;    // the trace's distributedInfo.nccl_version, "" when absent
  double blocked_host_us = 0;  // host time removed from the gaps (blocked in synchronizing calls)
  int measured_in_waves = 0;   // measured kernels given blocks_per_cu (more blocks than one wave)
  // Streams given high priority because the trace shows they ran FSDP2's communication.
  std::vector<std::string> high_priority_streams;
  // For combining ranks (torch_trace_ranks.h): the trace's distributedInfo.rank, and the host time
  // (trace clock, us) of the first imported kernel's launch call and of the first kernel start.
  std::optional<int> trace_rank;
  double first_launch_ts_us = 0;
  double first_kernel_ts_us = 0;
};

TorchImportResult import_torch_trace(const std::string& text, const std::string& file,
                                     const TorchImportOptions& options);
TorchImportResult import_torch_trace_file(const std::string& path, const TorchImportOptions& options);

// "measured kernels in waves of their launch's occupancy: N[; high-priority streams (...): a, b]".
std::string occupancy_summary(const TorchImportResult& r);

// The program's YAML with the unmapped list and the import's counts as leading comments.
// InputError when it would be over the input-file cap (kMaxInputFileBytes) that `run` reads.
std::string torch_import_yaml(const TorchImportResult& r, const std::string& trace_file);

}  // namespace c3sim::wl
