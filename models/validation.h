#pragma once
// Putting measured c3 records beside the simulator's predictions of the same scenario and policy:
// per-record time error, speedup and percent-of-ideal errors, and per scenario whether the
// predicted best policy (argmin predicted time over the policies measured) is the measured best.
// Measured medians that differ by less than the trials' spread are a tie, not a ranking: the
// prediction counts as right when its policy's measured time is within the larger of the two
// records' spreads of the measured best (`best_policy_accuracy`); the exact-name comparison is
// reported beside it (`best_policy_accuracy_strict`).
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hardware/node_spec.h"
#include "workloads/measurement.h"

namespace c3sim::models {

struct ValidationRow {
  std::string scenario;
  std::string policy;
  double measured_us = 0;
  double measured_spread_us = 0;  // max - min (or IQR) of the trials; 0 when not recorded
  double predicted_us = 0;
  double pct_error = 0;          // 100 * (predicted - measured) / measured
  double measured_speedup = 0;   // measured serial (its baselines) / measured time
  double predicted_speedup = 0;  // predicted serial / predicted time
  double measured_pct_of_ideal = 0;
  double predicted_pct_of_ideal = 0;
};

struct ScenarioVerdict {
  std::string scenario;
  std::string measured_best;
  std::string predicted_best;
  double measured_best_us = 0;
  double predicted_best_measured_us = 0;  // what the predicted best policy measured
  bool within_noise = false;  // predicted best measured within the trials' spread of the measured best
  [[nodiscard]] bool match() const { return measured_best == predicted_best || within_noise; }
  [[nodiscard]] bool exact_match() const { return measured_best == predicted_best; }
};

struct ValidationReport {
  std::vector<ValidationRow> rows;         // in file order
  std::vector<ScenarioVerdict> scenarios;  // sorted by name
  std::map<std::string, double> mean_abs_pct_error_by_policy;
  double mean_abs_pct_error = 0;
  double mean_signed_pct_error = 0;
  double mean_abs_speedup_error = 0;
  double mean_abs_pct_of_ideal_error = 0;  // percentage points
  double best_policy_accuracy = 0;         // fraction of scenarios, 0..1, ties within the spread count
  double best_policy_accuracy_strict = 0;  // fraction whose predicted best has the measured best's name
};

// Predicts every c3 record (records of other kinds are ignored). Scenarios keep their measured GPU
// count. Throws InputError when there are no c3 records or a record's policy is unknown.
ValidationReport validate_predictions(const hw::NodeSpec& spec, const std::vector<wl::Record>& records,
                                      const std::string& label);

nlohmann::json to_json(const ValidationReport& r);
std::string render_summary(const ValidationReport& r);  // aggregate + per-policy + per-scenario tables

}  // namespace c3sim::models
