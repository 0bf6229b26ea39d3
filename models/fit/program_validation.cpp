#include "models/fit/program_validation.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/policies/transform_registry.h"
#include "models/run/program_runner.h"
#include "sim/base/errors.h"

namespace c3sim::models {

namespace {

// A record's own file and line when it was read from a file, else the files' label.
SourceLocation where_of(const wl::ProgramRecord& r, const std::string& label) {
  return r.where.file.empty() ? SourceLocation{label, 0, 0} : r.where;
}

}  // namespace

ProgramValidationReport validate_program_predictions(const hw::NodeSpec& spec,
                                                     const std::vector<wl::Program>& programs,
                                                     const std::vector<wl::Record>& records,
                                                     const std::string& label) {
  const TransformRegistry registry = builtin_transforms();
  ProgramSimulator sim(spec);
  ProgramValidationReport rep;
  for (const wl::Record& any : records) {
    const auto* m = std::get_if<wl::ProgramRecord>(&any);
    if (m == nullptr) continue;
    const auto it = std::find_if(programs.begin(), programs.end(),
                                 [&](const wl::Program& p) { return p.name == m->program; });
    if (it == programs.end()) {
      throw InputError(
          where_of(*m, label), "program",
          "measured program '" + m->program + "' is not in the program files given (--programs)");
    }
    const wl::Program& p = *it;
    try {
      registry.check(m->policy, spec, where_of(*m, label));
    } catch (const InputError& e) {  // the record's field is `policy`, not a file's `policies:` list
      throw InputError(where_of(*m, label), "policy", e.problem());
    }
    const int gpus = p.gpus.value_or(spec.interconnect.gpus);
    if (m->gpus != gpus) {
      rep.warnings.push_back(fmt::format("{} / {}: measured on {} GPUs, the program runs on {}", m->program,
                                         m->policy, m->gpus, gpus));
    }
    const ProgramResult predicted = run_program_policy(sim, registry, p, m->policy);
    ProgramValidationRow row;
    row.program = m->program;
    row.policy = m->policy;
    row.gpus = m->gpus;
    row.measured_us = m->step_us;
    row.measured_spread_us = m->spread_us.value_or(0.0);
    row.predicted_us = predicted.step_us;
    row.pct_error = 100.0 * (predicted.step_us - m->step_us) / m->step_us;
    row.measured_overlap_percent = m->overlap_percent;
    row.predicted_overlap_percent = predicted.overlap_percent();
    rep.rows.push_back(std::move(row));
  }
  if (rep.rows.empty()) throw InputError({label, 0, 0}, "kind", "no program records to validate");
  double sum = 0;
  for (const auto& r : rep.rows) {
    sum += std::abs(r.pct_error);
    rep.max_abs_pct_error = std::max(rep.max_abs_pct_error, std::abs(r.pct_error));
  }
  rep.mean_abs_pct_error = sum / static_cast<double>(rep.rows.size());
  return rep;
}

nlohmann::json to_json(const ProgramValidationReport& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : r.rows) {
    nlohmann::json j{{"program", row.program},
                     {"policy", row.policy},
                     {"gpus", row.gpus},
                     {"measured_us", row.measured_us},
                     {"spread_us", row.measured_spread_us},
                     {"predicted_us", row.predicted_us},
                     {"pct_error", row.pct_error}};
    if (row.measured_overlap_percent) j["measured_overlap_percent"] = *row.measured_overlap_percent;
    if (row.predicted_overlap_percent) j["predicted_overlap_percent"] = *row.predicted_overlap_percent;
    rows.push_back(std::move(j));
  }
  return {{"rows", rows},
          {"mean_abs_pct_error", r.mean_abs_pct_error},
          {"max_abs_pct_error", r.max_abs_pct_error}};
}

std::string render_summary(const ProgramValidationReport& r) {
  const auto overlap = [](const std::optional<double>& v) { return v ? fmt::format("{:.0f}", *v) : "-"; };
  std::string out = fmt::format("program records: {}  mean |step error|: {:.2f}%  worst: {:.2f}%\n",
                                r.rows.size(), r.mean_abs_pct_error, r.max_abs_pct_error);
  out += fmt::format("{:<28} {:<16} {:>4} {:>12} {:>10} {:>12} {:>8} {:>7} {:>7}\n", "program", "policy",
                     "gpus", "measured us", "spread us", "predicted us", "error %", "meas ov", "pred ov");
  for (const auto& row : r.rows) {
    out += fmt::format("{:<28} {:<16} {:>4} {:>12.1f} {:>10.1f} {:>12.1f} {:>+8.2f} {:>7} {:>7}\n",
                       row.program, row.policy, row.gpus, row.measured_us, row.measured_spread_us,
                       row.predicted_us, row.pct_error, overlap(row.measured_overlap_percent),
                       overlap(row.predicted_overlap_percent));
  }
  return out;
}

}  // namespace c3sim::models
