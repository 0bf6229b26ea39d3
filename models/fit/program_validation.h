#pragma once
// Measured program records (c3bench running a program file, hardware/hip/program_bench.h) beside
// c3sim's prediction of the same program under the same policy: per (program, policy) the measured
// and predicted step time and the step-time error, and the measured and predicted overlap.
// `c3sim validate MEAS.jsonl --programs PROGRAMS.yaml --hardware CALIBRATED.yaml` prints it.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hardware/node_spec.h"
#include "workloads/measurement.h"
#include "workloads/program.h"

namespace c3sim::models {

struct ProgramValidationRow {
  std::string program;
  std::string policy;
  int gpus = 0;
  double measured_us = 0;
  double measured_spread_us = 0;  // 0 when not recorded
  double predicted_us = 0;
  double pct_error = 0;  // 100 * (predicted - measured) / measured
  std::optional<double> measured_overlap_percent;
  std::optional<double> predicted_overlap_percent;
};

struct ProgramValidationReport {
  std::vector<ProgramValidationRow> rows;  // in file order
  double mean_abs_pct_error = 0;
  double max_abs_pct_error = 0;
  std::vector<std::string> warnings;  // for the CLI to print on stderr
};

// Predicts every program record (other kinds are ignored) with `programs` (matched by name) on
// `spec`. Throws InputError (file `label`) when there is no program record, a record names a
// program not given, or its policy is not in the transform registry or not valid on `spec`. A
// record's GPU count that differs from the program's is a warning.
ProgramValidationReport validate_program_predictions(const hw::NodeSpec& spec,
                                                     const std::vector<wl::Program>& programs,
                                                     const std::vector<wl::Record>& records,
                                                     const std::string& label);

nlohmann::json to_json(const ProgramValidationReport& r);
std::string render_summary(const ProgramValidationReport& r);

}  // namespace c3sim::models
