#include "models/fit/validation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "models/kernels/collective_plan.h"
#include "models/policies/policy.h"
#include "models/run/c3_simulator.h"
#include "sim/base/errors.h"

namespace c3sim::models {

namespace {

// A record's own file and line when it was read from a file, else the files' label.
SourceLocation where_of(const wl::C3Record& c, const std::string& label) {
  return c.where.file.empty() ? SourceLocation{label, 0, 0} : c.where;
}

wl::Scenario scenario_of(const wl::C3Record& c, const std::string& label) {
  wl::Scenario s;
  s.name = c.scenario;
  s.gpus = c.gpus;
  s.gemm = wl::Gemm{c.gemm_tag, c.m, c.n, c.k, hw::parse_dtype(c.dtype).value_or(hw::Dtype::bf16), ""};
  const auto op = wl::parse_collective_op(c.op);
  if (!op) throw InputError(where_of(c, label), "op", fmt::format("unknown collective '{}'", c.op));
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

ErrorStats stats_of(const std::vector<double>& signed_errors) {
  ErrorStats s;
  s.records = static_cast<int>(signed_errors.size());
  std::vector<double> abs_errors;
  abs_errors.reserve(signed_errors.size());
  for (double e : signed_errors) abs_errors.push_back(std::fabs(e));
  s.mean_abs_pct_error = mean(abs_errors);
  s.mean_signed_pct_error = mean(signed_errors);
  return s;
}

template <typename Key>
std::map<Key, ErrorStats> stats_by(const std::map<Key, std::vector<double>>& errors) {
  std::map<Key, ErrorStats> out;
  for (const auto& [k, v] : errors) out[k] = stats_of(v);
  return out;
}

// "64 MiB", "512 KiB", "1000 B": the largest binary unit that divides the size.
std::string size_label(std::int64_t bytes) {
  constexpr std::int64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;
  if (bytes >= GiB && bytes % GiB == 0) return fmt::format("{} GiB", bytes / GiB);
  if (bytes >= MiB && bytes % MiB == 0) return fmt::format("{} MiB", bytes / MiB);
  if (bytes >= KiB && bytes % KiB == 0) return fmt::format("{} KiB", bytes / KiB);
  return fmt::format("{} B", bytes);
}

// One (GPU count, scenario, policy): repeats merged.
struct PolicyTimes {
  double measured_sum = 0;
  double spread = 0;  // the largest of the repeats' spreads
  double predicted = 0;
  int n = 0;
  [[nodiscard]] double measured() const { return measured_sum / n; }
};

// The policy with the smallest time; equal times go to the name that sorts first (the map's
// order), so the verdict does not depend on the order of the records.
template <typename Time>
const std::pair<const std::string, PolicyTimes>& argmin(const std::map<std::string, PolicyTimes>& policies,
                                                        Time time) {
  const auto* best = &*policies.begin();
  for (const auto& entry : policies) {
    if (time(entry.second) < time(best->second)) best = &entry;
  }
  return *best;
}

}  // namespace

ValidationReport validate_predictions(const hw::NodeSpec& spec, const std::vector<wl::Record>& records,
                                      const std::string& label, const ValidationOptions& options) {
  SimOptions o;
  o.attribution = false;
  ValidationReport rep;
  rep.hardware_gpus = spec.interconnect.gpus;
  rep.cross = options.cross;
  // c3bench files written before the ordered launch released both kernels at the same instant
  // (env details.launch_semantics: simultaneous): there "collective first" was never first, so
  // those records say nothing about launch order and are left out, not predicted as if it were.
  bool simultaneous = false;
  for (const auto& rec : records) {
    if (const auto* e = std::get_if<wl::EnvRecord>(&rec)) {
      const auto it = e->details.find("launch_semantics");
      simultaneous = simultaneous || (it != e->details.end() && *it == "simultaneous");
    }
  }
  std::vector<const wl::C3Record*> c3;
  int unordered = 0;
  for (const auto& rec : records) {
    const auto* c = std::get_if<wl::C3Record>(&rec);
    if (c == nullptr) continue;
    const auto order = c->extra.find("launch_order");
    if (simultaneous && order != c->extra.end() && *order == "collective,gemm") {
      ++unordered;
      continue;
    }
    c3.push_back(c);
  }
  if (unordered > 0) {
    rep.warnings.push_back(
        fmt::format("{} collective-first records left out: measured with both kernels released at once "
                    "(launch_semantics: simultaneous), so their launch order was not realized",
                    unordered));
  }
  if (c3.empty()) {
    // An import-only file (env + iso_coll from `c3sim import`) is the common case: say what it holds.
    std::map<std::string, int> kinds;
    for (const auto& rec : records) ++kinds[wl::kind_of(rec)];
    std::string held;
    for (const auto& [kind, n] : kinds) held += fmt::format("{}{} {}", held.empty() ? "" : ", ", n, kind);
    throw InputError(
        SourceLocation{label, 0, 0}, "kind",
        fmt::format("no c3 records to validate (the input holds {}): kernels measured alone "
                    "(c3sim import, c3bench iso runs) calibrate a hardware file (c3sim calibrate); "
                    "validate compares c3 records (c3bench run) with predictions",
                    held.empty() ? "no records" : held));
  }
  std::map<int, C3Simulator> sims;  // by the GPU count the node is given
  for (const auto* c : c3) {
    if (c->gpus > spec.interconnect.gpus && !options.cross) {
      throw InputError(where_of(*c, label), "gpus",
                       fmt::format("scenario '{}' uses {} GPUs, the hardware has {} (--cross predicts it "
                                   "on this hardware with the records' GPU count)",
                                   c->scenario, c->gpus, spec.interconnect.gpus));
    }
    try {
      (void)make_policy(c->policy, spec, where_of(*c, label));
    } catch (const InputError& e) {  // the record's field is `policy`, not a file's `policies:` list
      throw InputError(where_of(*c, label), "policy", e.problem());
    }
    if (std::find(rep.record_gpus.begin(), rep.record_gpus.end(), c->gpus) == rep.record_gpus.end()) {
      rep.record_gpus.push_back(c->gpus);
    }
  }
  std::sort(rep.record_gpus.begin(), rep.record_gpus.end());
  for (const int g : rep.record_gpus) {
    hw::NodeSpec node = spec;
    // The library's channel plan on a fully connected node is the file's node size's (NCCL builds
    // its channels from the topology): another node size gets the caps and defaults, not that plan.
    // Through a switch the plan holds at every size (channel_plan_holds).
    const bool plan_dropped =
        options.cross && !channel_plan_holds(spec, g) &&
        (node.model.collective.max_channels > 0 || node.model.collective.max_p2p_channels > 0);
    if (options.cross) node.interconnect.gpus = g;
    if (plan_dropped) {
      node.model.collective.max_channels = 0;
      node.model.collective.max_p2p_channels = 0;
      rep.warnings.push_back(
          fmt::format("cross-node validation: '{}''s model.collective.max_channels / max_p2p_channels are "
                      "the library's plan "
                      "on {} GPUs, not used for {}",
                      spec.name, spec.interconnect.gpus, g));
    }
    sims.emplace(g, C3Simulator(node, o));
    if (g == spec.interconnect.gpus) continue;
    rep.warnings.push_back(
        options.cross
            ? fmt::format(
                  "cross-node validation: '{}' describes {} GPUs, the records use {}; predicting them "
                  "with the node's GPU count set to {}",
                  spec.name, spec.interconnect.gpus, g, g)
            : fmt::format("records use {} GPUs, '{}' describes {}: predicting {}-GPU scenarios on a {}-GPU "
                          "node (pass --cross to set the node's GPU count to the records')",
                          g, spec.name, spec.interconnect.gpus, g, spec.interconnect.gpus));
  }
  rep.rows.reserve(c3.size());
  for (const auto* c : c3) {
    const C3Result r = sims.at(c->gpus).run_named(scenario_of(*c, label), c->policy);
    ValidationRow row;
    row.scenario = c->scenario;
    row.policy = c->policy;
    row.gpus = c->gpus;
    row.gemm_shape = fmt::format("{}x{}x{} {}", c->m, c->n, c->k, c->dtype);
    row.op = c->op;
    row.bytes = c->bytes;
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
    row.measured_gemm_us = c->gemm_time_us;
    row.measured_coll_us = c->coll_time_us;
    row.predicted_gemm_us = r.gemm_us;
    row.predicted_coll_us = r.coll_us;
    row.measured_iso_gemm_us = c->iso_gemm_us.value_or(0.0);
    row.measured_iso_coll_us = c->iso_coll_us.value_or(0.0);
    row.predicted_iso_gemm_us = r.iso_gemm_us;
    row.predicted_iso_coll_us = r.iso_coll_us;
    rep.rows.push_back(row);
  }
  ValidationReport scored = score_rows(std::move(rep.rows));
  scored.hardware_gpus = rep.hardware_gpus;
  scored.record_gpus = rep.record_gpus;
  scored.cross = rep.cross;
  scored.warnings = rep.warnings;
  return scored;
}

ValidationReport score_rows(std::vector<ValidationRow> rows) {
  if (rows.empty()) throw ModelError("score_rows: no rows to score");
  ValidationReport rep;
  rep.rows = std::move(rows);
  std::map<std::string, std::vector<double>> err_policy, err_shape, err_op;
  std::map<std::int64_t, std::vector<double>> err_bytes;
  std::map<std::pair<int, std::string>, std::map<std::string, PolicyTimes>> by_scenario;
  std::vector<double> abs_err, signed_err, sp_err, poi_err;
  for (const auto& row : rep.rows) {
    PolicyTimes& t = by_scenario[{row.gpus, row.scenario}][row.policy];
    t.measured_sum += row.measured_us;
    t.spread = std::max(t.spread, row.measured_spread_us);
    t.predicted = row.predicted_us;  // the same scenario and policy predict the same time
    ++t.n;
    err_policy[row.policy].push_back(row.pct_error);
    err_shape[row.gemm_shape].push_back(row.pct_error);
    err_op[row.op].push_back(row.pct_error);
    err_bytes[row.bytes].push_back(row.pct_error);
    abs_err.push_back(std::fabs(row.pct_error));
    signed_err.push_back(row.pct_error);
    sp_err.push_back(std::fabs(row.predicted_speedup - row.measured_speedup));
    poi_err.push_back(std::fabs(row.predicted_pct_of_ideal - row.measured_pct_of_ideal));
  }
  rep.by_policy = stats_by(err_policy);
  rep.by_gemm_shape = stats_by(err_shape);
  rep.by_op = stats_by(err_op);
  rep.by_collective_bytes = stats_by(err_bytes);
  for (const auto& [p, s] : rep.by_policy) rep.mean_abs_pct_error_by_policy[p] = s.mean_abs_pct_error;
  rep.mean_abs_pct_error = mean(abs_err);
  rep.mean_signed_pct_error = mean(signed_err);
  rep.mean_abs_speedup_error = mean(sp_err);
  rep.mean_abs_pct_of_ideal_error = mean(poi_err);
  int matches = 0, exact = 0, good = 0;
  std::vector<double> costs;
  for (const auto& [key, policies] : by_scenario) {
    ScenarioVerdict v;
    v.gpus = key.first;
    v.scenario = key.second;
    const auto& best_measured = argmin(policies, [](const PolicyTimes& t) { return t.measured(); });
    const auto& best_predicted = argmin(policies, [](const PolicyTimes& t) { return t.predicted; });
    v.measured_best = best_measured.first;
    v.predicted_best = best_predicted.first;
    v.measured_best_us = best_measured.second.measured();
    v.predicted_best_measured_us = best_predicted.second.measured();
    v.within_noise = v.predicted_best_measured_us - v.measured_best_us <=
                     std::max(best_measured.second.spread, best_predicted.second.spread);
    matches += v.match() ? 1 : 0;
    exact += v.exact_match() ? 1 : 0;
    good += v.good_pick() ? 1 : 0;
    costs.push_back(v.pick_cost());
    rep.max_pick_cost = std::max(rep.max_pick_cost, v.pick_cost());
    rep.scenarios.push_back(v);
  }
  const auto n = double(rep.scenarios.size());
  rep.best_policy_accuracy = double(matches) / n;
  rep.best_policy_accuracy_strict = double(exact) / n;
  rep.picks_within_2pct = double(good) / n;
  rep.mean_pick_cost = mean(costs);
  return rep;
}

namespace {

nlohmann::json stats_json(const ErrorStats& s) {
  return {{"records", s.records},
          {"mean_abs_pct_error", s.mean_abs_pct_error},
          {"mean_signed_pct_error", s.mean_signed_pct_error}};
}

template <typename Key, typename Label>
nlohmann::json breakdown_json(const std::map<Key, ErrorStats>& m, Label label) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, s] : m) j[label(k)] = stats_json(s);
  return j;
}

template <typename Key, typename Label>
std::string breakdown_table(const std::string& title, const std::map<Key, ErrorStats>& m, Label label) {
  std::string out = fmt::format("\nper {}:\n  {:<28} {:>7} {:>10} {:>10}\n", title, title, "records",
                                "|error| %", "signed %");
  for (const auto& [k, s] : m) {
    out += fmt::format("  {:<28} {:>7} {:>10.2f} {:>+10.2f}\n", label(k), s.records, s.mean_abs_pct_error,
                       s.mean_signed_pct_error);
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const ValidationReport& r) {
  const auto same = [](const std::string& s) { return s; };
  nlohmann::json j;
  j["mean_abs_pct_error"] = r.mean_abs_pct_error;
  j["mean_signed_pct_error"] = r.mean_signed_pct_error;
  j["mean_abs_speedup_error"] = r.mean_abs_speedup_error;
  j["mean_abs_pct_of_ideal_error"] = r.mean_abs_pct_of_ideal_error;
  j["best_policy_accuracy"] = r.best_policy_accuracy;
  j["best_policy_accuracy_strict"] = r.best_policy_accuracy_strict;
  j["mean_pick_cost"] = r.mean_pick_cost;
  j["max_pick_cost"] = r.max_pick_cost;
  j["picks_within_2pct"] = r.picks_within_2pct;
  j["hardware_gpus"] = r.hardware_gpus;
  j["record_gpus"] = r.record_gpus;
  j["cross"] = r.cross;
  j["warnings"] = r.warnings;
  j["mean_abs_pct_error_by_policy"] = r.mean_abs_pct_error_by_policy;
  j["by_policy"] = breakdown_json(r.by_policy, same);
  j["by_gemm_shape"] = breakdown_json(r.by_gemm_shape, same);
  j["by_op"] = breakdown_json(r.by_op, same);
  j["by_collective_bytes"] =
      breakdown_json(r.by_collective_bytes, [](std::int64_t b) { return std::to_string(b); });
  j["records"] = r.rows.size();
  j["rows"] = nlohmann::json::array();
  for (const auto& row : r.rows) {
    j["rows"].push_back({{"scenario", row.scenario},
                         {"policy", row.policy},
                         {"gpus", row.gpus},
                         {"gemm_shape", row.gemm_shape},
                         {"op", row.op},
                         {"bytes", row.bytes},
                         {"measured_us", row.measured_us},
                         {"predicted_us", row.predicted_us},
                         {"pct_error", row.pct_error},
                         {"abs_pct_error", std::fabs(row.pct_error)},
                         {"measured_speedup", row.measured_speedup},
                         {"predicted_speedup", row.predicted_speedup},
                         {"speedup_error", row.predicted_speedup - row.measured_speedup},
                         {"measured_pct_of_ideal", row.measured_pct_of_ideal},
                         {"predicted_pct_of_ideal", row.predicted_pct_of_ideal},
                         {"pct_of_ideal_error", row.predicted_pct_of_ideal - row.measured_pct_of_ideal},
                         {"measured_gemm_us", row.measured_gemm_us},
                         {"predicted_gemm_us", row.predicted_gemm_us},
                         {"measured_coll_us", row.measured_coll_us},
                         {"predicted_coll_us", row.predicted_coll_us},
                         {"measured_iso_gemm_us", row.measured_iso_gemm_us},
                         {"predicted_iso_gemm_us", row.predicted_iso_gemm_us},
                         {"measured_iso_coll_us", row.measured_iso_coll_us},
                         {"predicted_iso_coll_us", row.predicted_iso_coll_us}});
  }
  j["scenarios"] = nlohmann::json::array();
  for (const auto& s : r.scenarios) {
    j["scenarios"].push_back({{"scenario", s.scenario},
                              {"gpus", s.gpus},
                              {"measured_best", s.measured_best},
                              {"predicted_best", s.predicted_best},
                              {"measured_best_us", s.measured_best_us},
                              {"predicted_best_measured_us", s.predicted_best_measured_us},
                              {"pick_cost", s.pick_cost()},
                              {"good_pick", s.good_pick()},
                              {"within_noise", s.within_noise},
                              {"match", s.match()},
                              {"exact_match", s.exact_match()}});
  }
  return j;
}

std::string render_summary(const ValidationReport& r) {
  std::string gpus;
  for (const int g : r.record_gpus) gpus += fmt::format("{}{}", gpus.empty() ? "" : ",", g);
  std::string out = fmt::format(
      "records: {}  scenarios: {}  GPUs in the records: {}  hardware file: {} GPUs{}\n"
      "mean |error| of C3 time: {:.2f}%  (signed {:+.2f}%)\n"
      "mean |speedup error|: {:.3f}  mean |percent-of-ideal error|: {:.1f} points\n"
      "predicted best policy = measured best: {:.1f}% of scenarios, ties within the trials' spread "
      "counted ({:.1f}% by exact name)\n"
      "cost of following the predicted best (its measured time / measured best - 1): mean {:.2f}%, "
      "worst {:.2f}%; picks within {:.0f}% of the best: {:.1f}% of scenarios\n",
      r.rows.size(), r.scenarios.size(), gpus, r.hardware_gpus, r.cross ? " (cross-node validation)" : "",
      r.mean_abs_pct_error, r.mean_signed_pct_error, r.mean_abs_speedup_error, r.mean_abs_pct_of_ideal_error,
      100.0 * r.best_policy_accuracy, 100.0 * r.best_policy_accuracy_strict, 100.0 * r.mean_pick_cost,
      100.0 * r.max_pick_cost, 100.0 * kGoodPickFraction, 100.0 * r.picks_within_2pct);
  const auto same = [](const std::string& s) { return s; };
  out += breakdown_table("policy", r.by_policy, same);
  out += breakdown_table("GEMM shape", r.by_gemm_shape, same);
  out += breakdown_table("collective size", r.by_collective_bytes, size_label);
  out += breakdown_table("op", r.by_op, same);
  out += fmt::format("\n{:<16} {:<20} {:>12} {:>12} {:>8} {:>8} {:>8} {:>7} {:>7}\n", "scenario", "policy",
                     "measured us", "predicted us", "error %", "meas sp", "pred sp", "meas %i", "pred %i");
  for (const auto& row : r.rows) {
    out += fmt::format("{:<16} {:<20} {:>12.1f} {:>12.1f} {:>+8.2f} {:>8.3f} {:>8.3f} {:>7.0f} {:>7.0f}\n",
                       row.scenario, row.policy, row.measured_us, row.predicted_us, row.pct_error,
                       row.measured_speedup, row.predicted_speedup, row.measured_pct_of_ideal,
                       row.predicted_pct_of_ideal);
  }
  out += fmt::format("\n{:<16} {:>4} {:<20} {:<20} {:>12} {:>12} {:>7} {}\n", "scenario", "gpus",
                     "measured best", "predicted best", "best us", "pred's us", "cost %", "match");
  for (const auto& s : r.scenarios) {
    out += fmt::format("{:<16} {:>4} {:<20} {:<20} {:>12.1f} {:>12.1f} {:>7.2f} {}\n", s.scenario, s.gpus,
                       s.measured_best, s.predicted_best, s.measured_best_us, s.predicted_best_measured_us,
                       100.0 * s.pick_cost(),
                       s.exact_match() ? "yes" : (s.within_noise ? "tie (within spread)" : "NO"));
  }
  return out;
}

}  // namespace c3sim::models
