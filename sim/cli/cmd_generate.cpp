// c3sim generate KIND: program YAML from a model configuration (workloads/program_generators.h),
// to run with `c3sim run FILE`.
#include "sim/base/errors.h"
#include "sim/cli/commands.h"
#include "sim/cli/output.h"
#include "workloads/program_generators.h"
#include "workloads/program_io.h"

namespace c3sim::cli {

namespace {

struct GenerateArgs {
  std::string kind;
  std::string model;
  int tp = 8;
  std::vector<double> imbalance;
  std::string output;
};

}  // namespace

void add_generate_command(CLI::App& app) {
  auto a = std::make_shared<GenerateArgs>();
  auto* cmd = app.add_subcommand("generate", "Write a program YAML generated from a model configuration");
  cmd->add_option("kind", a->kind, "fsdp-layer | tp-block | moe-layer")->required();
  cmd->add_option("--model", a->model,
                  "llama-70b (default) | llama-405b for fsdp-layer and tp-block; mixtral-8x7b for moe-layer");
  cmd->add_option("--tp", a->tp, "Tensor-parallel degree (tp-block)")->capture_default_str();
  cmd->add_option(
         "--imbalance", a->imbalance,
         "moe-layer: per-rank token factors, repeated over the ranks (1,1.5: every other rank 1.5x); "
         "the program then runs every rank")
      ->delimiter(',');
  cmd->add_option("-o,--output", a->output, "Write to FILE instead of stdout");
  cmd->callback([a] {
    const SourceLocation where{"<command line>", 0, 0};
    const OutputTarget target{a->output, "-o"};
    check_outputs({target}, {});  // no input files, but still never a device, folder or FIFO
    wl::Program p = wl::generate_program(a->kind, a->model, a->tp, where);
    if (!a->imbalance.empty()) {
      if (a->kind != "moe-layer") throw InputError(where, "imbalance", "--imbalance is for moe-layer");
      p = wl::with_moe_imbalance(std::move(p), a->imbalance, where);
    }
    write_outputs({{target, wl::programs_to_yaml({p})}}, {});
  });
}

}  // namespace c3sim::cli
