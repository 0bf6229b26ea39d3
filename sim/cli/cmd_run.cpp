// c3sim run SCENARIO.yaml: isolated baselines and C3 runs under each policy, as measurement
// records (the schema c3bench writes), a table or CSV.
#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/policies/policy_selection.h"
#include "models/run/simulated_runner.h"
#include "sim/cli/command_inputs.h"
#include "sim/cli/commands.h"
#include "sim/cli/output.h"
#include "sim/cli/program_run.h"
#include "sim/cli/run_trace.h"
#include "workloads/scenario_io.h"

namespace c3sim::cli {

namespace {

struct RunArgs {
  std::string scenario_file;
  std::string hardware = "mi300x";
  std::vector<std::string> policies;
  std::string format = "jsonl";
  std::string output;
  std::string trace;
  bool per_workgroup = false;
  bool no_attribution = false;
  bool all_gpus = false;
  int rank = -1;
  int nodes = 0;
};

std::string render_table(const std::vector<wl::Record>& records, bool csv) {
  TextTable t({"scenario", "policy", "time us", "GEMM us", "coll us", "iso GEMM", "iso coll", "speedup",
               "ideal", "% ideal"});
  for (const auto& rec : records) {
    if (const auto* c = std::get_if<wl::C3Record>(&rec)) {
      t.add({c->scenario,
             c->policy + (c->extra.contains("chosen") ? "=" + c->extra["chosen"].get<std::string>() : ""),
             fmt::format("{:.1f}", c->time_us), fmt::format("{:.1f}", c->gemm_time_us),
             fmt::format("{:.1f}", c->coll_time_us), fmt::format("{:.1f}", c->iso_gemm_us.value_or(0)),
             fmt::format("{:.1f}", c->iso_coll_us.value_or(0)), fmt::format("{:.3f}", c->speedup.value_or(0)),
             fmt::format("{:.3f}", c->ideal_speedup.value_or(0)),
             fmt::format("{:.0f}", c->percent_of_ideal.value_or(0))});
    }
  }
  return csv ? t.csv() : t.render();
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run", "Simulate a scenario file (isolated kernels and C3 under each policy) or a program file");
  cmd->add_option("scenario", a->scenario_file, "Scenario YAML file")->required();
  CLI::Option* hardware =
      cmd->add_option(
             "--hardware", a->hardware,
             "Hardware preset name or YAML file (a program imported from a trace that names its GPU: "
             "that GPU's preset)")
          ->capture_default_str();
  cmd->add_option("--policy", a->policies,
                  "Policies (comma separated or repeated): " + models::builtin_registry().known_names() +
                      " (a scenario runs the GEMM + collective launch plans; a program every policy)")
      ->delimiter(',');
  cmd->add_option("--format", a->format, "jsonl | table | csv")->capture_default_str();
  cmd->add_option("-o,--output", a->output, "Write to FILE instead of stdout");
  cmd->add_flag("--per-workgroup", a->per_workgroup, "Simulate every workgroup separately (fidelity mode)");
  cmd->add_option("--trace", a->trace,
                  "Also write a Chrome/Perfetto trace JSON of every scenario x policy (one process each)");
  auto* all_gpus = cmd->add_flag(
      "--all-gpus", a->all_gpus,
      "Program files: simulate every rank (collectives synchronise the ranks), not one representative GPU");
  cmd->add_option("--rank", a->rank,
                  "Program files: simulate rank R's program alone (its own kernel list or sizes) on one "
                  "representative GPU")
      ->check(CLI::NonNegativeNumber)
      ->excludes(all_gpus);
  cmd->add_option("--nodes", a->nodes,
                  "Program files: run every program on N nodes (overrides its `nodes:`; needs a hardware "
                  "file with a cluster section, docs/scale-out.md)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-attribution", a->no_attribution,
                "Skip the counterfactual runs that attribute slowdowns");
  cmd->callback([a, hardware] {
    if (is_program_file(a->scenario_file)) {  // kernels on streams: sim/cli/cmd_program.cpp
      run_program_file(ProgramRunArgs{a->scenario_file, a->hardware, hardware->count() > 0, a->policies,
                                      a->format, a->output, a->trace, a->per_workgroup, a->all_gpus,
                                      !a->no_attribution, a->rank, a->nodes});
      return;
    }
    const Format f = parse_format(a->format, {Format::jsonl, Format::table, Format::csv});
    std::vector<OutputTarget> outputs{{a->output, "-o"}};
    if (!a->trace.empty()) outputs.push_back({a->trace, "--trace"});
    const std::vector<std::string> inputs = inputs_with_hardware({a->scenario_file}, a->hardware);
    check_outputs(outputs, inputs);
    const hw::NodeSpec spec = hw::load_hardware(a->hardware);
    const std::vector<wl::Scenario> scenarios = wl::load_scenarios_file(a->scenario_file);
    // Validate everything before simulating anything.
    std::vector<wl::RunRequest> requests;
    for (const auto& s : scenarios) {
      wl::check_scenario_fits(s, spec.interconnect.gpus);
      wl::RunRequest r;
      r.scenario = s;
      r.policies = models::scenario_policies(s, {a->policies, {"<command line>", 0, 0}}, spec);
      requests.push_back(std::move(r));
    }
    models::SimOptions o;
    if (a->per_workgroup) o.max_cohort_size = 1;
    o.attribution = !a->no_attribution;
    models::SimulatedRunner runner(spec, o);
    std::vector<wl::Record> records{runner.environment()};
    for (const auto& r : requests) {
      for (auto& rec : runner.run(r)) records.push_back(std::move(rec));
    }
    // Both outputs are complete in memory before either file is written, and written together.
    std::vector<std::pair<OutputTarget, std::string>> contents{
        {outputs[0], f == Format::jsonl ? wl::to_jsonl(records) : render_table(records, f == Format::csv)}};
    if (!a->trace.empty()) contents.emplace_back(outputs[1], trace_runs(spec, o, requests));
    write_outputs(contents, inputs);
  });
}

}  // namespace c3sim::cli
