// c3sim import LOG... -o MEAS.jsonl: nccl-tests / rccl-tests output as iso_coll measurement
// records (workloads/nccl_tests_import.h), ready for c3sim calibrate.
// c3sim import --from torch-profiler TRACE.json -o PROGRAM.yaml: one GPU's part of a PyTorch
// profiler trace as a program (workloads/torch_trace_import.h); its summary goes to stderr.
// c3sim import --from torch-profiler RANK0.json RANK1.json ... -o STEP.yaml: every rank's trace of
// one step as one program with a kernel list per rank (workloads/torch_trace_ranks.h).
#include <iostream>

#include <fmt/format.h>

#include "sim/base/errors.h"
#include "sim/base/input_file.h"
#include "sim/cli/commands.h"
#include "sim/cli/output.h"
#include "workloads/nccl_tests_import.h"
#include "workloads/nccl_tuning_log.h"
#include "workloads/torch_trace_import.h"
#include "workloads/torch_trace_nccl.h"
#include "workloads/torch_trace_ranks.h"

namespace c3sim::cli {

namespace {

struct ImportArgs {
  std::vector<std::string> logs;
  std::string op;
  int gpus = 0;
  std::string output;
  std::string from = "nccl-tests";
  int rank = -1;
  int device = -1;
  std::string name;
  std::vector<std::string> nccl_logs;
};

// Every file's tuning lines, in the order given.
std::vector<wl::NcclTuningLine> read_nccl_logs(const std::vector<std::string>& paths) {
  std::vector<wl::NcclTuningLine> lines;
  for (const auto& path : paths) {
    for (auto& l : wl::parse_nccl_tuning_log(read_input_file(path, "--nccl-log"), path))
      lines.push_back(std::move(l));
  }
  return lines;
}

// Every input the command reads (the outputs may be none of them).
std::vector<std::string> inputs_of(const ImportArgs& a) {
  std::vector<std::string> in = a.logs;
  in.insert(in.end(), a.nccl_logs.begin(), a.nccl_logs.end());
  return in;
}

// Several traces: one per rank of one step, into one program with a kernel list per rank.
void import_torch_ranks(const ImportArgs& a, const wl::TorchImportOptions& o) {
  wl::TorchRanksResult r = wl::import_torch_rank_traces(a.logs, o);
  if (!a.nccl_logs.empty()) wl::apply_nccl_log(r, read_nccl_logs(a.nccl_logs));
  const std::string yaml = wl::torch_ranks_yaml(r);
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    const wl::TorchImportResult& x = r.ranks[i];
    const wl::RankKernels& e = r.program.rank_kernels[i];
    std::cerr << fmt::format(
        "{}: rank {}, start {:.1f} us: {} kernels: {} GEMMs, {} collectives, {} measured; cross-stream "
        "dependencies: {} exact, {} inferred, {} waits unresolved, {} within one stream; {} unmapped{}\n",
        r.files[i], e.rank, e.start_us, e.kernels.size(), x.gemms, x.collectives, x.measured,
        x.dependencies.exact, x.dependencies.inferred, x.dependencies.unresolved, x.dependencies.same_stream,
        x.unmapped.size(), x.unmapped.empty() ? "" : ":");
    for (const auto& u : x.unmapped) std::cerr << "  " << u << "\n";
    if (x.nccl_log)
      std::cerr << fmt::format("{}: rank {}: {}\n", r.files[i], e.rank, wl::nccl_log_summary(*x.nccl_log));
    if (x.collectives > 0)
      std::cerr << fmt::format("{}: rank {}: {}\n", r.files[i], e.rank, wl::collective_choice_summary(x));
    std::cerr << fmt::format("{}: rank {}: {}\n", r.files[i], e.rank, wl::occupancy_summary(x));
  }
  std::cerr << fmt::format("{} ranks on {} streams; measured step {:.1f} us (all ranks)\n", r.ranks.size(),
                           r.program.streams.size(), r.program.measured_step_us.value_or(0));
  write_outputs({{{a.output, "-o"}, yaml}}, inputs_of(a));
}

void import_torch_profiler(const ImportArgs& a) {
  wl::TorchImportOptions o;
  if (a.rank >= 0) o.rank = a.rank;
  if (a.device >= 0) o.device = a.device;
  o.name = a.name;
  if (a.logs.size() > 1) {
    import_torch_ranks(a, o);
    return;
  }
  const std::string& path = a.logs.front();
  wl::TorchImportResult r = wl::import_torch_trace_file(path, o);
  if (!a.nccl_logs.empty()) wl::apply_nccl_log(r, read_nccl_logs(a.nccl_logs));
  const std::string yaml = wl::torch_import_yaml(r, path);
  std::cerr << fmt::format(
      "{}: {} kernels on {} streams: {} GEMMs, {} collectives, {} measured; cross-stream dependencies: "
      "{} exact, {} inferred, {} waits unresolved, {} within one stream; measured step {:.1f} us; {} "
      "unmapped{}\n",
      path, r.program.kernels.size(), r.program.streams.size(), r.gemms, r.collectives, r.measured,
      r.dependencies.exact, r.dependencies.inferred, r.dependencies.unresolved, r.dependencies.same_stream,
      r.program.measured_step_us.value_or(0), r.unmapped.size(), r.unmapped.empty() ? "" : ":");
  for (const auto& u : r.unmapped) std::cerr << "  " << u << "\n";
  if (r.nccl_log) std::cerr << fmt::format("{}: {}\n", path, wl::nccl_log_summary(*r.nccl_log));
  if (r.collectives > 0) std::cerr << fmt::format("{}: {}\n", path, wl::collective_choice_summary(r));
  std::cerr << fmt::format("{}: {}\n", path, wl::occupancy_summary(r));
  write_outputs({{{a.output, "-o"}, yaml}}, inputs_of(a));
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto a = std::make_shared<ImportArgs>();
  auto* cmd = app.add_subcommand("import",
                                 "Convert nccl-tests / rccl-tests output into iso_coll measurement records, "
                                 "or a PyTorch profiler trace into a program (--from torch-profiler)");
  cmd->add_option("logs", a->logs,
                  "nccl-tests output files, or PyTorch profiler traces (one, or one per rank of a step)")
      ->required();
  cmd->add_option("--from", a->from, "Input kind: nccl-tests (default) or torch-profiler")
      ->check(CLI::IsMember({"nccl-tests", "torch-profiler"}));
  cmd->add_option("--rank", a->rank, "torch-profiler: the rank the trace must be (its distributedInfo)")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--device", a->device, "torch-profiler: the device whose kernels to import")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--name", a->name, "torch-profiler: program name (default torch_trace)");
  cmd->add_option("--nccl-log", a->nccl_logs,
                  "torch-profiler: NCCL logs with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING (or ALL): each "
                  "collective takes the algorithm, protocol and channels NCCL logged for it")
      ->expected(1, -1);
  cmd->add_option("--op", a->op, "Collective, when the log does not name it (all_gather, all_to_all, ...)");
  cmd->add_option("--gpus", a->gpus, "GPU count, when the log does not give nGpus (2 or more)")
      ->check(CLI::Range(2, 1 << 12));
  cmd->add_option("-o,--output", a->output, "Write to FILE instead of stdout");
  cmd->callback([a] {
    check_outputs({{a->output, "-o"}}, inputs_of(*a));
    if (!a->nccl_logs.empty() && a->from != "torch-profiler")
      throw InputError(
          SourceLocation{a->nccl_logs.front(), 0, 0}, "--nccl-log",
          "--nccl-log goes with --from torch-profiler (it describes a traced step's collectives)");
    if (a->from == "torch-profiler") {
      import_torch_profiler(*a);
      return;
    }
    std::vector<wl::Record> records;
    wl::EnvRecord env;
    env.producer = "nccl-tests";
    env.hardware = "unknown";
    wl::NcclTestsOptions o;
    if (!a->op.empty()) o.op = a->op;
    if (a->gpus > 0) o.gpus = a->gpus;
    for (const auto& path : a->logs) {
      for (auto& r : wl::import_nccl_tests(read_input_file(path), path, o)) {
        env.gpus = std::get<wl::IsoCollRecord>(r).gpus;
        records.push_back(std::move(r));
      }
    }
    records.insert(records.begin(), env);
    write_outputs({{{a->output, "-o"}, wl::to_jsonl(records)}}, a->logs);
  });
}

}  // namespace c3sim::cli
