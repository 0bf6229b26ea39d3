// c3sim calibrate MEAS.jsonl... --hardware BASE -o CALIBRATED.yaml: fits the base hardware file's
// model parameters to the isolated records of the measurement files (models/fit/calibration.h) and
// writes a hardware file that extends the base. Records it cannot use and parameters that end at a
// bound are warnings on stderr.
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/fit/calibration.h"
#include "sim/cli/command_inputs.h"
#include "sim/cli/commands.h"
#include "sim/cli/output.h"

namespace c3sim::cli {

namespace {

struct CalibrateArgs {
  std::vector<std::string> measurements;
  std::string hardware = "h200-sxm-x4";
  std::string output;
  std::vector<std::string> exclude_gemm;
  bool no_gemm_library = false;
};

// A preset is extended by name; a file by its path relative to the output file's folder.
std::string extends_of(const std::string& hardware, const std::string& output) {
  if (hw::find_preset(hardware) != nullptr) return hardware;
  namespace fs = std::filesystem;
  const fs::path out_dir =
      output.empty() || output == "-" ? fs::current_path() : fs::absolute(output).parent_path();
  return fs::relative(fs::absolute(hardware), out_dir).generic_string();
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto a = std::make_shared<CalibrateArgs>();
  auto* cmd =
      app.add_subcommand("calibrate", "Fit a hardware file's model: parameters to isolated measurements");
  cmd->add_option("measurements", a->measurements, "Measurement JSON Lines files (c3bench output)")
      ->required();
  cmd->add_option("--hardware", a->hardware, "Base hardware preset name or YAML file")->capture_default_str();
  cmd->add_option("-o,--output", a->output, "Write the calibrated hardware YAML to FILE instead of stdout");
  cmd->add_option("--exclude-gemm", a->exclude_gemm,
                  "Ignore iso_gemm records of these GEMM tags (leave-one-out)")
      ->delimiter(',');
  cmd->add_flag("--no-gemm-library", a->no_gemm_library,
                "Fit the hardware model only: no per-shape GEMM efficiencies (gemm_library:) from the "
                "isolated GEMM records");
  cmd->callback([a] {
    const std::vector<std::string> inputs = inputs_with_hardware(a->measurements, a->hardware);
    check_outputs({{a->output, "-o"}}, inputs);
    const hw::NodeSpec base = hw::load_hardware(a->hardware);
    std::vector<models::MeasurementFile> files;
    for (const auto& path : a->measurements) files.push_back({path, wl::read_measurements(path)});
    models::CalibrationOptions o;
    o.exclude_gemm_tags = a->exclude_gemm;
    o.gemm_library = !a->no_gemm_library;
    const models::CalibrationResult r = models::calibrate(base, files, o);
    for (const auto& w : r.warnings) std::cerr << "c3sim calibrate: warning: " << w << "\n";
    std::vector<std::string> names;
    for (const auto& p : a->measurements) names.push_back(std::filesystem::path(p).filename().string());
    write_outputs(
        {{{a->output, "-o"}, models::calibrated_yaml(r, extends_of(a->hardware, a->output), names)}}, inputs);
  });
}

}  // namespace c3sim::cli
