#include "models/validation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "models/c3_simulator.h"
#include "models/policy.h"
#include "sim/base/errors.h"

namespace c3sim::models {

namespace {

wl::Scenario scenario_of(const wl::C3Record& c, const std::string& label) {
  wl::Scenario s;
  s.name = c.scenario;
  s.gpus = c.gpus;
  s.gemm = wl::Gemm{c.gemm_tag, c.m, c.n, c.k, hw::parse_dtype(c.dtype).value_or(hw::Dtype::bf16), ""};
  const auto op = wl::parse_collective_op(c.op);
  if (!op) throw InputError(SourceLocation{label, 0, 0}, "op", fmt::format("unknown collective '{}'", c.op));
  s.collective.op = *op;
  s.collective.bytes = c.bytes;
  s.collective.impl = wl::CollectiveImpl::cu;  // the policy decides where it runs
  return s;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / double(v.size());
}

// Measured serial baseline: the GEMM alone plus the CU (kernel) collective alone, as the
// simulator's C3Result defines it, from the baselines measured beside the run.
double measured_serial(const wl::C3Record& c) {
  double coll = c.iso_coll_us.value_or(0);
  if (c.extra.contains("iso_coll_cu_us") && c.extra["iso_coll_cu_us"].is_number()) {
    coll = c.extra["iso_coll_cu_us"].get<double>();
  }
  return c.iso_gemm_us.value_or(0) + coll;
}

double pct_of_ideal(double speedup, double ideal) { return 100.0 * (speedup - 1.0) / (ideal - 1.0); }

}  // namespace

ValidationReport validate_predictions(const hw::NodeSpec& spec, const std::vector<wl::Record>& records,
                                      const std::string& label) {
  SimOptions o;
  o.attribution = false;
  C3Simulator sim(spec, o);
  ValidationReport rep;
  std::map<std::string, std::vector<const ValidationRow*>> by_scenario;
  std::vector<const wl::C3Record*> c3;
  for (const auto& rec : records) {
    if (const auto* c = std::get_if<wl::C3Record>(&rec)) c3.push_back(c);
  }
  if (c3.empty()) throw InputError(SourceLocation{label, 0, 0}, "kind", "no c3 records to validate");
  for (const auto* c : c3) {
    if (c->gpus > spec.interconnect.gpus) {
      throw InputError(SourceLocation{label, 0, 0}, "gpus",
                       fmt::format("scenario '{}' uses {} GPUs, the hardware has {}", c->scenario, c->gpus,
                                   spec.interconnect.gpus));
    }
    (void)make_policy(c->policy, spec, SourceLocation{label, 0, 0});
  }
  rep.rows.reserve(c3.size());
  for (const auto* c : c3) {
    const C3Result r = sim.run_named(scenario_of(*c, label), c->policy);
    ValidationRow row;
    row.scenario = c->scenario;
    row.policy = c->policy;
    row.measured_us = c->time_us;
    row.measured_spread_us = c->spread_us.value_or(0.0);
    row.predicted_us = r.total_us;
    row.pct_error = 100.0 * (r.total_us - c->time_us) / c->time_us;
    const double ms = measured_serial(*c);
    const double mi = ms / std::max(c->iso_gemm_us.value_or(0), ms - c->iso_gemm_us.value_or(0));
    row.measured_speedup = ms / c->time_us;
    row.predicted_speedup = r.speedup();
    row.measured_pct_of_ideal = pct_of_ideal(row.measured_speedup, mi);
    row.predicted_pct_of_ideal = r.percent_of_ideal();
    rep.rows.push_back(row);
  }
  std::map<std::string, std::vector<double>> abs_by_policy;
  std::vector<double> abs_err, signed_err, sp_err, poi_err;
  for (const auto& row : rep.rows) {
    by_scenario[row.scenario].push_back(&row);
    abs_by_policy[row.policy].push_back(std::fabs(row.pct_error));
    abs_err.push_back(std::fabs(row.pct_error));
    signed_err.push_back(row.pct_error);
    sp_err.push_back(std::fabs(row.predicted_speedup - row.measured_speedup));
    poi_err.push_back(std::fabs(row.predicted_pct_of_ideal - row.measured_pct_of_ideal));
  }
  for (const auto& [p, v] : abs_by_policy) rep.mean_abs_pct_error_by_policy[p] = mean(v);
  rep.mean_abs_pct_error = mean(abs_err);
  rep.mean_signed_pct_error = mean(signed_err);
  rep.mean_abs_speedup_error = mean(sp_err);
  rep.mean_abs_pct_of_ideal_error = mean(poi_err);
  int matches = 0, exact = 0;
  for (const auto& [name, rows] : by_scenario) {
    ScenarioVerdict v;
    v.scenario = name;
    const ValidationRow* best_measured = nullptr;
    const ValidationRow* best_predicted = nullptr;
    for (const auto* row : rows) {  // ties go to the first listed policy, deterministically
      if (!best_measured || row->measured_us < best_measured->measured_us) best_measured = row;
      if (!best_predicted || row->predicted_us < best_predicted->predicted_us) best_predicted = row;
    }
    v.measured_best = best_measured->policy;
    v.predicted_best = best_predicted->policy;
    v.measured_best_us = best_measured->measured_us;
    v.predicted_best_measured_us = best_predicted->measured_us;
    v.within_noise = best_predicted->measured_us - best_measured->measured_us <=
                     std::max(best_measured->measured_spread_us, best_predicted->measured_spread_us);
    matches += v.match() ? 1 : 0;
    exact += v.exact_match() ? 1 : 0;
    rep.scenarios.push_back(v);
  }
  rep.best_policy_accuracy = double(matches) / double(rep.scenarios.size());
  rep.best_policy_accuracy_strict = double(exact) / double(rep.scenarios.size());
  return rep;
}

nlohmann::json to_json(const ValidationReport& r) {
  nlohmann::json j;
  j["mean_abs_pct_error"] = r.mean_abs_pct_error;
  j["mean_signed_pct_error"] = r.mean_signed_pct_error;
  j["mean_abs_speedup_error"] = r.mean_abs_speedup_error;
  j["mean_abs_pct_of_ideal_error"] = r.mean_abs_pct_of_ideal_error;
  j["best_policy_accuracy"] = r.best_policy_accuracy;
  j["best_policy_accuracy_strict"] = r.best_policy_accuracy_strict;
  j["mean_abs_pct_error_by_policy"] = r.mean_abs_pct_error_by_policy;
  j["records"] = r.rows.size();
  j["rows"] = nlohmann::json::array();
  for (const auto& row : r.rows) {
    j["rows"].push_back({{"scenario", row.scenario},
                         {"policy", row.policy},
                         {"measured_us", row.measured_us},
                         {"predicted_us", row.predicted_us},
                         {"pct_error", row.pct_error},
                         {"abs_pct_error", std::fabs(row.pct_error)},
                         {"measured_speedup", row.measured_speedup},
                         {"predicted_speedup", row.predicted_speedup},
                         {"speedup_error", row.predicted_speedup - row.measured_speedup},
                         {"measured_pct_of_ideal", row.measured_pct_of_ideal},
                         {"predicted_pct_of_ideal", row.predicted_pct_of_ideal},
                         {"pct_of_ideal_error", row.predicted_pct_of_ideal - row.measured_pct_of_ideal}});
  }
  j["scenarios"] = nlohmann::json::array();
  for (const auto& s : r.scenarios) {
    j["scenarios"].push_back({{"scenario", s.scenario},
                              {"measured_best", s.measured_best},
                              {"predicted_best", s.predicted_best},
                              {"measured_best_us", s.measured_best_us},
                              {"predicted_best_measured_us", s.predicted_best_measured_us},
                              {"within_noise", s.within_noise},
                              {"match", s.match()},
                              {"exact_match", s.exact_match()}});
  }
  return j;
}

std::string render_summary(const ValidationReport& r) {
  std::string out = fmt::format(
      "records: {}  scenarios: {}\nmean |error| of C3 time: {:.2f}%  (signed {:+.2f}%)\n"
      "mean |speedup error|: {:.3f}  mean |percent-of-ideal error|: {:.1f} points\n"
      "predicted best policy = measured best: {:.1f}% of scenarios, ties within the trials' spread "
      "counted ({:.1f}% by exact name)\n\nper policy, mean |error|:\n",
      r.rows.size(), r.scenarios.size(), r.mean_abs_pct_error, r.mean_signed_pct_error,
      r.mean_abs_speedup_error, r.mean_abs_pct_of_ideal_error, 100.0 * r.best_policy_accuracy,
      100.0 * r.best_policy_accuracy_strict);
  for (const auto& [p, e] : r.mean_abs_pct_error_by_policy) out += fmt::format("  {:<20} {:6.2f}%\n", p, e);
  out += fmt::format("\n{:<16} {:<20} {:>12} {:>12} {:>8} {:>8} {:>8} {:>7} {:>7}\n", "scenario", "policy",
                     "measured us", "predicted us", "error %", "meas sp", "pred sp", "meas %i", "pred %i");
  for (const auto& row : r.rows) {
    out += fmt::format("{:<16} {:<20} {:>12.1f} {:>12.1f} {:>+8.2f} {:>8.3f} {:>8.3f} {:>7.0f} {:>7.0f}\n",
                       row.scenario, row.policy, row.measured_us, row.predicted_us, row.pct_error,
                       row.measured_speedup, row.predicted_speedup, row.measured_pct_of_ideal,
                       row.predicted_pct_of_ideal);
  }
  out += fmt::format("\n{:<16} {:<20} {:<20} {:>12} {:>12} {}\n", "scenario", "measured best",
                     "predicted best", "best us", "pred's us", "match");
  for (const auto& s : r.scenarios) {
    out += fmt::format("{:<16} {:<20} {:<20} {:>12.1f} {:>12.1f} {}\n", s.scenario, s.measured_best,
                       s.predicted_best, s.measured_best_us, s.predicted_best_measured_us,
                       s.exact_match() ? "yes" : (s.within_noise ? "tie (within spread)" : "NO"));
  }
  return out;
}

}  // namespace c3sim::models
