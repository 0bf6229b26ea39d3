// c3sim generate KIND: program YAML from a model configuration (workloads/program_generators.h),
// to run with `c3sim run FILE`.
#include <fmt/format.h>

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
  std::string output;
};

wl::TransformerConfig transformer(const std::string& model) {
  if (model == "llama-70b") return wl::llama_70b();
  if (model == "llama-405b") return wl::llama_405b();
  throw InputError(SourceLocation{"<command line>", 0, 0}, "--model",
                   fmt::format("unknown model '{}' (llama-70b, llama-405b)", model));
}

wl::Program generate(const GenerateArgs& a) {
  if (a.kind == "fsdp-layer")
    return wl::fsdp_layer_program(transformer(a.model.empty() ? "llama-70b" : a.model));
  if (a.kind == "tp-block")
    return wl::tp_block_program(transformer(a.model.empty() ? "llama-70b" : a.model), a.tp);
  if (a.kind == "moe-layer") {
    if (!a.model.empty() && a.model != "mixtral-8x7b") {
      throw InputError(SourceLocation{"<command line>", 0, 0}, "--model",
                       fmt::format("unknown MoE model '{}' (mixtral-8x7b)", a.model));
    }
    return wl::moe_layer_program(wl::mixtral_8x7b());
  }
  throw InputError(SourceLocation{"<command line>", 0, 0}, "kind",
                   fmt::format("unknown program kind '{}' (fsdp-layer, tp-block, moe-layer)", a.kind));
}

}  // namespace

void add_generate_command(CLI::App& app) {
  auto a = std::make_shared<GenerateArgs>();
  auto* cmd = app.add_subcommand("generate", "Write a program YAML generated from a model configuration");
  cmd->add_option("kind", a->kind, "fsdp-layer | tp-block | moe-layer")->required();
  cmd->add_option("--model", a->model,
                  "llama-70b (default) | llama-405b for fsdp-layer and tp-block; mixtral-8x7b for moe-layer");
  cmd->add_option("--tp", a->tp, "Tensor-parallel degree (tp-block)")->capture_default_str();
  cmd->add_option("-o,--output", a->output, "Write to FILE instead of stdout");
  cmd->callback([a] { write_output(a->output, wl::programs_to_yaml({generate(*a)})); });
}

}  // namespace c3sim::cli
