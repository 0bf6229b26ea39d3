// c3sim generate KIND: program YAML from a model configuration (workloads/program_generators.h),
// to run with `c3sim run FILE`.
#include <map>

#include "sim/base/errors.h"
#include "sim/cli/commands.h"
#include "sim/cli/output.h"
#include "workloads/dlrm_generator.h"
#include "workloads/program_generators.h"
#include "workloads/program_io.h"

namespace c3sim::cli {

namespace {

struct GenerateArgs {
  std::string kind;
  std::string model;
  int tp = 8;
  std::vector<double> imbalance;
  std::map<std::string, std::string> dlrm;  // option name -> value, the ones given
  std::string output;
};

// The dlrm options' help: what each sets and its reference default (workloads/dlrm_generator.h).
const std::map<std::string, std::string>& dlrm_option_help() {
  static const std::map<std::string, std::string> help{
      {"gpus", "dlrm: GPUs per node (8)"},
      {"nodes", "dlrm: nodes (1); over several, the program's nodes: and column-wise sharding"},
      {"sharding",
       "dlrm: table (each table on one GPU; default on one node) | column (every GPU a share of "
       "every table; default on several nodes)"},
      {"batch", "dlrm: samples per GPU (8192 = MLPerf's 65536 over 8 GPUs)"},
      {"tables", "dlrm: embedding tables (26); other counts need --rows and --pooling"},
      {"rows", "dlrm: rows per table, one value or one per table (MLPerf's 26)"},
      {"pooling",
       "dlrm: rows gathered per sample per table, one value or one per table (MLPerf's multi-hot)"},
      {"dim", "dlrm: embedding dimension (128)"},
      {"dtype", "dlrm: fp32 (default) | bf16 | fp16 | fp8, of tables and MLPs"},
      {"bottom-mlp", "dlrm: bottom MLP widths after the 13 dense features, ending at --dim (512,256,128)"},
      {"top-mlp", "dlrm: top MLP widths (1024,1024,512,256,1)"},
      {"interaction", "dlrm: dcn (DCN v2, 3 x rank 512; default) | dot (classic DLRM)"},
  };
  return help;
}

}  // namespace

void add_generate_command(CLI::App& app) {
  auto a = std::make_shared<GenerateArgs>();
  auto* cmd = app.add_subcommand("generate", "Write a program YAML generated from a model configuration");
  cmd->add_option("kind", a->kind, "fsdp-layer | tp-block | moe-layer | dlrm")->required();
  cmd->add_option("--model", a->model,
                  "llama-70b (default) | llama-405b for fsdp-layer and tp-block; mixtral-8x7b for moe-layer; "
                  "dlrm-dcnv2 for dlrm");
  cmd->add_option("--tp", a->tp, "Tensor-parallel degree (tp-block)")->capture_default_str();
  cmd->add_option(
         "--imbalance", a->imbalance,
         "moe-layer: per-rank token factors, repeated over the ranks (1,1.5: every other rank 1.5x); "
         "the program then runs every rank")
      ->delimiter(',');
  for (const auto& name : wl::dlrm_option_names()) {
    cmd->add_option_function<std::string>(
        "--" + name, [a, name](const std::string& v) { a->dlrm[name] = v; }, dlrm_option_help().at(name));
  }
  cmd->add_option("-o,--output", a->output, "Write to FILE instead of stdout");
  cmd->callback([a] {
    const SourceLocation where{"<command line>", 0, 0};
    const OutputTarget target{a->output, "-o"};
    check_outputs({target}, {});  // no input files, but still never a device, folder or FIFO
    if (a->kind != "dlrm" && !a->dlrm.empty()) {
      throw InputError(where, "--" + a->dlrm.begin()->first, "is an option of dlrm");
    }
    std::string comment;
    wl::Program p;
    if (a->kind == "dlrm") {
      (void)wl::generate_program(a->kind, a->model, a->tp, where);  // checks --model
      std::vector<wl::DlrmOption> options;
      for (const auto& [name, value] : a->dlrm) options.push_back({name, value});
      wl::DlrmConfig config;
      try {
        config = wl::dlrm_config(options, where);
      } catch (const InputError& e) {
        throw InputError(where, "--" + e.key(), e.problem());
      }
      p = wl::dlrm_step_program(config);
      comment = wl::dlrm_program_comment(config);
    } else {
      p = wl::generate_program(a->kind, a->model, a->tp, where);
    }
    if (!a->imbalance.empty()) {
      if (a->kind != "moe-layer") throw InputError(where, "imbalance", "--imbalance is for moe-layer");
      p = wl::with_moe_imbalance(std::move(p), a->imbalance, where);
    }
    write_outputs({{target, wl::programs_to_yaml({p}, comment)}}, {});
  });
}

}  // namespace c3sim::cli
