// c3sim import LOG... -o MEAS.jsonl: nccl-tests / rccl-tests output as iso_coll measurement
// records (workloads/nccl_tests_import.h), ready for c3sim calibrate.

#include "sim/base/errors.h"
#include "sim/base/input_file.h"
#include "sim/cli/commands.h"
#include "sim/cli/output.h"
#include "workloads/nccl_tests_import.h"

namespace c3sim::cli {

namespace {

struct ImportArgs {
  std::vector<std::string> logs;
  std::string op;
  int gpus = 0;
  std::string output;
};

}  // namespace

void add_import_command(CLI::App& app) {
  auto a = std::make_shared<ImportArgs>();
  auto* cmd = app.add_subcommand("import",
                                 "Convert nccl-tests / rccl-tests output into iso_coll measurement records");
  cmd->add_option("logs", a->logs, "nccl-tests output files")->required();
  cmd->add_option("--op", a->op, "Collective, when the log does not name it (all_gather, all_to_all, ...)");
  cmd->add_option("--gpus", a->gpus, "GPU count, when the log does not give nGpus (2 or more)")
      ->check(CLI::Range(2, 1 << 12));
  cmd->add_option("-o,--output", a->output, "Write to FILE instead of stdout");
  cmd->callback([a] {
    check_outputs({{a->output, "-o"}}, a->logs);
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
    write_output(a->output, wl::to_jsonl(records));
  });
}

}  // namespace c3sim::cli
