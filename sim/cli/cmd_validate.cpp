// c3sim validate MEAS.jsonl... --hardware FILE: predicts every c3 record of the measurement files
// and reports measured vs predicted time, speedup and percent-of-ideal errors, and whether the
// predicted best policy of each scenario is the measured best and what following it costs
// (models/fit/validation.h). --cross predicts records of another node size on the file's hardware with
// the records' GPU count; a GPU count that differs from the file's is a warning on stderr.
// Program records (c3bench run of a program file) are predicted from the program files given with
// --programs under the same policy and their step-time errors listed
// (models/fit/program_validation.h).
// c3sim validate PROGRAM.yaml...: programs imported from traces, each kernel's predicted vs traced
// duration, the error per kind, the step error and the worst kernels
// (models/fit/traced_kernel_validation.h); without --hardware, the traced GPU's preset. --report
// FILE also writes the page of the predicted and traced timelines (sim/report/validation_page.h).
#include <algorithm>
#include <iostream>
#include <variant>

#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/fit/program_validation.h"
#include "models/fit/traced_kernel_validation.h"
#include "models/fit/validation.h"
#include "models/run/traced_hardware.h"
#include "sim/cli/command_inputs.h"
#include "sim/cli/commands.h"
#include "sim/cli/output.h"
#include "sim/cli/program_run.h"
#include "workloads/program_io.h"
#ifndef C3SIM_WITHOUT_REPORT
#include "sim/report/validation_page.h"
#endif

namespace c3sim::cli {

namespace {

struct ValidateArgs {
  std::vector<std::string> measurements;
  std::string hardware = "h200-sxm-x4";
  std::string format = "table";
  std::string output;
  std::string report;  // --report: the timeline page of programs imported from traces
  bool cross = false;
  std::vector<std::string> programs;  // program files for the program records
};

// Programs imported from traces: each kernel against its traced duration.
void validate_traced_programs(const ValidateArgs& a, bool hardware_given, Format f) {
  std::vector<wl::Program> programs;
  for (const auto& path : a.measurements) {
    for (auto& p : wl::load_programs_file(path)) programs.push_back(std::move(p));
  }
  std::string hardware = a.hardware;
  const auto traced =
      std::find_if(programs.begin(), programs.end(), [](const wl::Program& p) { return p.device; });
  if (!hardware_given && traced != programs.end()) {
    if (const auto preset = models::preset_for_device(*traced->device, traced->gpus.value_or(2))) {
      hardware = *preset;
      std::cerr << fmt::format(
          "c3sim validate: {} was traced on {}: using the {} preset (no --hardware given)\n", traced->name,
          models::describe_device(*traced->device), hardware);
    }
  }
  std::vector<std::string> inputs = inputs_with_hardware(a.measurements, hardware);
  std::vector<OutputTarget> targets{{a.output, "-o"}};
  if (!a.report.empty()) targets.push_back({a.report, "--report"});
  check_outputs(targets, inputs);
  const hw::NodeSpec spec = hw::load_hardware(hardware);
  std::string text;
  nlohmann::json json = nlohmann::json::array();
  for (const auto& p : programs) {
    if (p.device && !models::device_matches(*p.device, spec)) {
      std::cerr << fmt::format("c3sim validate: warning: {} was traced on {}, but the hardware is {}\n",
                               p.name, models::describe_device(*p.device), models::describe_hardware(spec));
    }
    wl::check_program_fits(p, spec.interconnect.gpus, spec.compute.total_cus());
    const models::TracedKernelReport rep = models::validate_traced_kernels(spec, p);
    text += (text.empty() ? "" : "\n") + models::render_summary(rep);
    json.push_back(models::to_json(rep));
  }
  std::vector<std::pair<OutputTarget, std::string>> outputs{
      {{a.output, "-o"}, f == Format::json ? json.dump(2) + "\n" : text}};
#ifndef C3SIM_WITHOUT_REPORT
  if (!a.report.empty()) {
    outputs.emplace_back(OutputTarget{a.report, "--report"},
                         report::render_validation_html(report::validation_page_data(json, a.measurements)));
  }
#endif
  write_outputs(outputs, inputs);
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto a = std::make_shared<ValidateArgs>();
  auto* cmd = app.add_subcommand("validate", "Compare c3 measurements with the simulator's predictions");
  cmd->add_option("measurements", a->measurements,
                  "Measurement JSON Lines files (c3bench output), or program files imported from traces")
      ->required();
  CLI::Option* hardware =
      cmd->add_option("--hardware", a->hardware, "Hardware preset name or YAML file")->capture_default_str();
  cmd->add_option("--format", a->format, "table | json")->capture_default_str();
  cmd->add_option("-o,--output", a->output, "Write to FILE instead of stdout");
  cmd->add_flag("--cross", a->cross,
                "The hardware file was calibrated on another node size: predict each record with the "
                "node's GPU count set to the record's");
  cmd->add_option("--programs", a->programs,
                  "Program YAML files of the measured program records (c3bench run PROGRAMS.yaml): each "
                  "program record is compared with c3sim's prediction of the same program and policy");
  cmd->add_option("--report", a->report,
                  "Programs imported from traces: also write FILE, a self-contained HTML page of the "
                  "predicted and traced timelines, the error per kind and the worst kernels");
  cmd->callback([a, hardware] {
#ifdef C3SIM_WITHOUT_REPORT
    if (!a->report.empty()) {
      throw InputError(
          {"<command line>", 0, 0}, "--report",
          "this c3sim was built without the report page (configure with -DC3SIM_WITH_REPORT=ON)");
    }
#endif
    const Format f = parse_format(a->format, {Format::table, Format::json});
    // Measurement files are JSON Lines, which a YAML reader refuses: only YAML files are asked.
    const auto program_file = [](const std::string& path) {
      const auto ends = [&](const std::string& ext) {
        return path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
      };
      return (ends(".yaml") || ends(".yml")) && is_program_file(path);
    };
    if (std::all_of(a->measurements.begin(), a->measurements.end(), program_file)) {
      validate_traced_programs(*a, hardware->count() > 0, f);
      return;
    }
    if (!a->report.empty()) {
      throw InputError({a->measurements.front(), 0, 0}, "--report",
                       "the timeline page is for programs imported from traces (c3sim import); measurement "
                       "files have their charts in c3sim report");
    }
    std::vector<std::string> inputs = inputs_with_hardware(a->measurements, a->hardware);
    inputs.insert(inputs.end(), a->programs.begin(), a->programs.end());
    check_outputs({{a->output, "-o"}}, inputs);
    const hw::NodeSpec spec = hw::load_hardware(a->hardware);
    std::vector<wl::Record> records;
    std::string label;
    for (const auto& path : a->measurements) {
      for (auto& r : wl::read_measurements(path)) records.push_back(std::move(r));
      label += (label.empty() ? "" : ",") + path;
    }
    const bool has_c3 = std::any_of(records.begin(), records.end(), [](const wl::Record& r) {
      return std::holds_alternative<wl::C3Record>(r);
    });
    const bool has_programs = std::any_of(records.begin(), records.end(), [](const wl::Record& r) {
      return std::holds_alternative<wl::ProgramRecord>(r);
    });
    if (has_programs && a->programs.empty()) {
      throw InputError({label, 0, 0}, "--programs",
                       "program records need the program files (--programs FILE)");
    }
    if (!has_programs && !a->programs.empty()) {
      throw InputError({label, 0, 0}, "--programs", "the measurements hold no program records");
    }
    std::string text;
    nlohmann::json json = nlohmann::json::object();
    if (has_c3 || !has_programs) {  // without either, validate_predictions says there is nothing
      models::ValidationOptions o;
      o.cross = a->cross;
      const models::ValidationReport rep = models::validate_predictions(spec, records, label, o);
      for (const auto& w : rep.warnings) std::cerr << "c3sim validate: warning: " << w << "\n";
      text = models::render_summary(rep);
      json = models::to_json(rep);
    }
    if (has_programs) {
      std::vector<wl::Program> programs;
      for (const auto& path : a->programs) {
        for (auto& p : wl::load_programs_file(path)) programs.push_back(std::move(p));
      }
      const models::ProgramValidationReport rep =
          models::validate_program_predictions(spec, programs, records, label);
      for (const auto& w : rep.warnings) std::cerr << "c3sim validate: warning: " << w << "\n";
      text += (text.empty() ? "" : "\n") + models::render_summary(rep);
      json["programs"] = models::to_json(rep);
    }
    write_outputs({{{a->output, "-o"}, f == Format::json ? json.dump(2) + "\n" : text}}, inputs);
  });
}

}  // namespace c3sim::cli
