// c3sim validate MEAS.jsonl... --hardware FILE: predicts every c3 record of the measurement files
// and reports measured vs predicted time, speedup and percent-of-ideal errors, and whether the
// predicted best policy of each scenario is the measured best and what following it costs
// (models/validation.h). --cross predicts records of another node size on the file's hardware with
// the records' GPU count; a GPU count that differs from the file's is a warning on stderr.
#include <iostream>

#include "hardware/hardware_loader.h"
#include "models/validation.h"
#include "sim/cli/commands.h"
#include "sim/cli/output.h"

namespace c3sim::cli {

namespace {

struct ValidateArgs {
  std::vector<std::string> measurements;
  std::string hardware = "h200-sxm-x4";
  std::string format = "table";
  std::string output;
  bool cross = false;
};

}  // namespace

void add_validate_command(CLI::App& app) {
  auto a = std::make_shared<ValidateArgs>();
  auto* cmd = app.add_subcommand("validate", "Compare c3 measurements with the simulator's predictions");
  cmd->add_option("measurements", a->measurements, "Measurement JSON Lines files (c3bench output)")
      ->required();
  cmd->add_option("--hardware", a->hardware, "Hardware preset name or YAML file")->capture_default_str();
  cmd->add_option("--format", a->format, "table | json")->capture_default_str();
  cmd->add_option("-o,--output", a->output, "Write to FILE instead of stdout");
  cmd->add_flag("--cross", a->cross,
                "The hardware file was calibrated on another node size: predict each record with the "
                "node's GPU count set to the record's");
  cmd->callback([a] {
    const Format f = parse_format(a->format, {Format::table, Format::json});
    std::vector<std::string> inputs = a->measurements;
    inputs.push_back(a->hardware);
    check_outputs({{a->output, "-o"}}, inputs);
    const hw::NodeSpec spec = hw::load_hardware(a->hardware);
    std::vector<wl::Record> records;
    std::string label;
    for (const auto& path : a->measurements) {
      for (auto& r : wl::read_measurements(path)) records.push_back(std::move(r));
      label += (label.empty() ? "" : ",") + path;
    }
    models::ValidationOptions o;
    o.cross = a->cross;
    const models::ValidationReport rep = models::validate_predictions(spec, records, label, o);
    for (const auto& w : rep.warnings) std::cerr << "c3sim validate: warning: " << w << "\n";
    write_output(a->output,
                 f == Format::json ? models::to_json(rep).dump(2) + "\n" : models::render_summary(rep));
  });
}

}  // namespace c3sim::cli
