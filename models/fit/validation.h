#pragma once
// Putting measured c3 records beside the simulator's predictions of the same scenario and policy:
// per-record time error, speedup and percent-of-ideal errors; signed and absolute error per policy,
// GEMM shape, collective size and op; and per scenario whether the predicted best policy (argmin
// predicted time over the policies measured) is the measured best and what following it costs
// (measured time of the predicted pick / measured best - 1).
// Measured medians that differ by less than the trials' spread are a tie, not a ranking: the
// prediction counts as right when its policy's measured time is within the larger of the two
// records' spreads of the measured best (`best_policy_accuracy`); the exact-name comparison is
// reported beside it (`best_policy_accuracy_strict`).
// Order does not matter: repeats of one (GPU count, scenario, policy) are merged (mean of their
// measured times), and equal times go to the policy whose name sorts first.
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
  int gpus = 0;
  std::string gemm_shape;  // "MxNxK dtype"
  std::string op;          // collective op, canonical
  std::int64_t bytes = 0;  // collective size
  double measured_us = 0;
  double measured_spread_us = 0;  // max - min (or IQR) of the trials; 0 when not recorded
  double predicted_us = 0;
  double pct_error = 0;          // 100 * (predicted - measured) / measured
  double measured_speedup = 0;   // measured serial (its baselines) / measured time
  double predicted_speedup = 0;  // predicted serial / predicted time
  double measured_pct_of_ideal = 0;
  double predicted_pct_of_ideal = 0;
  // Each kernel's own span in the run (the record's gemm_time_us / coll_time_us and the
  // simulator's) and alone (the serial baselines; measured 0 when the record has none), so an
  // error in the step can be traced to the side that carries it, and within a side to the kernel
  // alone or to its slowdown beside the other.
  double measured_gemm_us = 0;
  double measured_coll_us = 0;
  double predicted_gemm_us = 0;
  double predicted_coll_us = 0;
  double measured_iso_gemm_us = 0;
  double measured_iso_coll_us = 0;
  double predicted_iso_gemm_us = 0;
  double predicted_iso_coll_us = 0;
};

// Mean error of a group of records (a policy, a shape, a size, an op).
struct ErrorStats {
  int records = 0;
  double mean_abs_pct_error = 0;
  double mean_signed_pct_error = 0;
};

// A pick within this fraction of the measured best counts as a good pick (`picks_within_2pct`).
inline constexpr double kGoodPickFraction = 0.02;

struct ScenarioVerdict {
  std::string scenario;
  int gpus = 0;
  std::string measured_best;
  std::string predicted_best;
  double measured_best_us = 0;
  double predicted_best_measured_us = 0;  // what the predicted best policy measured
  bool within_noise = false;  // predicted best measured within the trials' spread of the measured best
  [[nodiscard]] bool match() const { return measured_best == predicted_best || within_noise; }
  [[nodiscard]] bool exact_match() const { return measured_best == predicted_best; }
  // Following the prediction: measured time of the predicted pick / measured best - 1 (>= 0).
  [[nodiscard]] double pick_cost() const { return predicted_best_measured_us / measured_best_us - 1.0; }
  [[nodiscard]] bool good_pick() const { return pick_cost() <= kGoodPickFraction; }
};

struct ValidationOptions {
  // The hardware file describes another node size (e.g. calibrated on 4 GPUs, validated on 2):
  // each record is predicted on the file's hardware with the node's GPU count set to the record's.
  bool cross = false;
};

struct ValidationReport {
  std::vector<ValidationRow> rows;         // in file order
  std::vector<ScenarioVerdict> scenarios;  // sorted by GPU count, then name
  std::map<std::string, double> mean_abs_pct_error_by_policy;
  std::map<std::string, ErrorStats> by_policy;
  std::map<std::string, ErrorStats> by_gemm_shape;
  std::map<std::int64_t, ErrorStats> by_collective_bytes;
  std::map<std::string, ErrorStats> by_op;
  double mean_abs_pct_error = 0;
  double mean_signed_pct_error = 0;
  double mean_abs_speedup_error = 0;
  double mean_abs_pct_of_ideal_error = 0;  // percentage points
  double best_policy_accuracy = 0;         // fraction of scenarios, 0..1, ties within the spread count
  double best_policy_accuracy_strict = 0;  // fraction whose predicted best has the measured best's name
  double mean_pick_cost = 0;               // mean over scenarios of ScenarioVerdict::pick_cost()
  double max_pick_cost = 0;
  double picks_within_2pct = 0;  // fraction of scenarios whose pick is within kGoodPickFraction
  int hardware_gpus = 0;         // the hardware file's node size
  std::vector<int> record_gpus;  // the distinct GPU counts of the records, ascending
  bool cross = false;
  std::vector<std::string> warnings;  // for the CLI to print on stderr
};

// Predicts every c3 record (records of other kinds are ignored). Scenarios keep their measured GPU
// count. Throws InputError when there are no c3 records, a record's policy is unknown, or (without
// options.cross) a record uses more GPUs than the hardware has. A GPU count that differs from the
// file's is a warning in the report.
ValidationReport validate_predictions(const hw::NodeSpec& spec, const std::vector<wl::Record>& records,
                                      const std::string& label, const ValidationOptions& options = {});

// The aggregates, breakdowns and verdicts of rows whose measured and predicted times are filled
// in (validate_predictions's second half; the node-size fields are left empty). Throws ModelError
// when there are no rows.
ValidationReport score_rows(std::vector<ValidationRow> rows);

nlohmann::json to_json(const ValidationReport& r);
std::string render_summary(const ValidationReport& r);  // aggregate, breakdowns, per-row, per-scenario

}  // namespace c3sim::models
