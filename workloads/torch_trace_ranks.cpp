#include "workloads/torch_trace_ranks.h"

#include <algorithm>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "sim/base/input_file.h"
#include "workloads/program_io.h"
#include "workloads/torch_trace_nccl.h"

namespace c3sim::wl {

namespace {

// Text quoted in the YAML's comments: one printable line (a newline would end the comment).
std::string one_line(std::string s) {
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = '?';
  }
  return s;
}

const SourceLocation kCommandLine{"<command line>", 0, 0};

}  // namespace

TorchRanksResult import_torch_rank_traces(const std::vector<std::string>& paths,
                                          const TorchImportOptions& options) {
  if (options.rank)
    throw InputError(kCommandLine, "--rank",
                     "several traces are ranked by their distributedInfo, not --rank");
  if (paths.size() < 2)
    throw InputError(kCommandLine, "logs",
                     fmt::format("a multi-rank import takes 2 or more traces, got {}", paths.size()));
  std::vector<TorchImportResult> imported;
  std::vector<int> rank_of;
  std::set<int> seen;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    imported.push_back(import_torch_trace_file(paths[i], options));
    const int rank = imported.back().trace_rank.value_or(static_cast<int>(i));
    if (!seen.insert(rank).second) {
      throw InputError(SourceLocation{paths[i], 0, 0}, "distributedInfo.rank",
                       fmt::format("rank {} is imported from two traces", rank));
    }
    rank_of.push_back(rank);
  }
  const int ranks = static_cast<int>(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const Program& p = imported[i].program;
    if (p.gpus && *p.gpus != ranks) {
      throw InputError(
          SourceLocation{paths[i], 0, 0}, "traceEvents",
          fmt::format("the trace's collectives run on {} GPUs, but {} traces were given (one per rank)",
                      *p.gpus, ranks));
    }
    if (rank_of[i] >= ranks) {
      throw InputError(
          SourceLocation{paths[i], 0, 0}, "distributedInfo.rank",
          fmt::format("rank {} is beyond the {} ranks given (0..{})", rank_of[i], ranks, ranks - 1));
    }
  }
  // In rank order.
  std::vector<std::size_t> order(paths.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[static_cast<std::size_t>(rank_of[i])] = i;

  TorchRanksResult out;
  Program& p = out.program;
  const Program& zero = imported[order[0]].program;
  p.name = zero.name;
  p.gpus = ranks;
  p.location = SourceLocation{paths[order[0]], 0, 0};
  p.device = zero.device;  // the traced GPU (every rank's trace names the same model)
  p.steady_state = zero.steady_state;
  double first_launch = std::numeric_limits<double>::infinity();
  double first_kernel = std::numeric_limits<double>::infinity(), last_end = 0;
  std::set<std::string> streams;
  for (const std::size_t i : order) {
    const TorchImportResult& r = imported[i];
    first_launch = std::min(first_launch, r.first_launch_ts_us);
    first_kernel = std::min(first_kernel, r.first_kernel_ts_us);
    last_end = std::max(last_end, r.first_kernel_ts_us + r.program.measured_step_us.value_or(0));
    if (r.program.measured_profiler_step_us) {
      p.measured_profiler_step_us =
          std::max(p.measured_profiler_step_us.value_or(0), *r.program.measured_profiler_step_us);
    }
    for (const ProgramStream& s : r.program.streams) {
      if (streams.insert(s.name).second) p.streams.push_back(s);
    }
  }
  std::sort(p.streams.begin(), p.streams.end(),
            [](const ProgramStream& a, const ProgramStream& b) { return a.name < b.name; });
  p.measured_step_us = last_end - first_kernel;
  std::string sources;
  for (const std::size_t i : order) {
    TorchImportResult& r = imported[i];
    sources += (sources.empty() ? "" : ", ") + one_line(paths[i]);
    RankKernels e;
    e.rank = rank_of[i];
    e.start_us = r.first_launch_ts_us - first_launch;
    e.kernels = std::move(r.program.kernels);
    e.location = SourceLocation{paths[i], 0, 0};
    r.program.kernels.clear();
    p.rank_kernels.push_back(std::move(e));
    out.ranks.push_back(std::move(r));
    out.files.push_back(paths[i]);
  }
  p.source = "PyTorch profiler traces " + sources;
  p.kernels = p.rank_kernels.front().kernels;
  validate_rank_kernels(p);
  return out;
}

std::string torch_ranks_yaml(const TorchRanksResult& r) {
  std::string head = fmt::format(
      "# Imported from {} PyTorch profiler traces (one per rank) by `c3sim import --from torch-profiler`.\n",
      r.ranks.size());
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    const TorchImportResult& x = r.ranks[i];
    const RankKernels& e = r.program.rank_kernels[i];
    head += fmt::format(
        "# rank {} ({}): start {:.1f} us; {} kernels: {} GEMMs, {} collectives, {} measured; cross-stream "
        "dependencies: {} from sync records, {} inferred, {} unresolved; host time removed from launch gaps: "
        "{:.1f} us; "
        "unmapped ({}):\n",
        e.rank, one_line(r.files[i]), e.start_us, e.kernels.size(), x.gemms, x.collectives, x.measured,
        x.dependencies.exact, x.dependencies.inferred, x.dependencies.unresolved, x.blocked_host_us,
        x.unmapped.size());
    for (const auto& u : x.unmapped) head += "#   " + one_line(u) + "\n";
    if (x.nccl_log) head += fmt::format("# rank {}: {}.\n", e.rank, nccl_log_summary(*x.nccl_log));
    if (x.collectives > 0) head += fmt::format("# rank {}: {}.\n", e.rank, collective_choice_summary(x));
    head += fmt::format("# rank {}: {}.\n", e.rank, occupancy_summary(x));
  }
  std::string yaml = program_to_yaml(r.program, head);
  if (yaml.size() > kMaxInputFileBytes) {
    throw InputError(
        SourceLocation{r.files.front(), 0, 0}, "traceEvents",
        fmt::format("the program would be {} bytes, over the {} MiB a program file may have: import "
                    "one profiler step (a ProfilerStep# annotation bounds the import)",
                    yaml.size(), kMaxInputFileBytes >> 20));
  }
  return yaml;
}

}  // namespace c3sim::wl
