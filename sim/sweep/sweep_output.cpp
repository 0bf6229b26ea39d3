#include "sim/sweep/sweep_output.h"

#include <fmt/format.h>

#include "models/run/program_runner.h"
#include "models/run/simulated_runner.h"
#include "workloads/measurement.h"

namespace c3sim::sweep {

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

const std::string* setting_of(const Task& v, const std::string& key) {
  for (const auto& s : v.settings) {
    if (s.key == key) return &s.value;
  }
  return nullptr;
}

// The columns after the identifying ones: a scenario's measures, then a program's; a sweep with
// both kinds has both sets, each row leaving the other kind's empty.
constexpr const char* kScenarioColumns =
    "bytes,time_us,gemm_us,coll_us,iso_gemm_us,iso_coll_us,speedup,ideal_speedup,percent_of_ideal";
constexpr int kScenarioValues = 9;
constexpr const char* kProgramColumns = "step_us,serial_us,ideal_us,overlap_percent";
constexpr int kProgramValues = 4;

std::string empty_fields(int n) { return std::string(static_cast<std::size_t>(n), ','); }

// point,variant,name and the varied keys' values of one row.
std::string row_prefix(const SweepSpec& spec, const TaskResult& result, std::size_t policy) {
  const Task& v = result.setup;
  const std::size_t point = result.task * spec.policies.size() + policy;
  std::string out = fmt::format("{},{},{}", point, v.variant, csv_field(v.variant_name));
  for (const auto& k : spec.varied_keys) {
    const std::string* value = setting_of(v, k);
    out += ',';
    if (value) out += csv_field(*value);
  }
  return out;
}

nlohmann::json variant_json(const Task& v) {
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& s : v.settings) settings[s.key] = s.value;
  return {{"index", v.variant}, {"name", v.variant_name}, {"settings", settings}};
}

// A program task's rows: step time, serial and ideal (critical path at isolated times) and the
// share of the possible overlap realized (empty when the program is one dependency chain).
std::string render_program_task(const SweepSpec& spec, const TaskResult& result, OutputFormat format) {
  const Task& v = result.setup;
  const int gpus = v.program.gpus.value_or(result.node_gpus);
  const bool with_scenarios = !spec.scenario_names.empty();
  std::string out;
  for (std::size_t p = 0; p < result.program_runs.size(); ++p) {
    const models::ProgramResult& r = result.program_runs[p];
    if (format == OutputFormat::jsonl) {
      wl::ProgramRecord rec = models::to_record(r, gpus);
      rec.extra["variant"] = variant_json(v);
      out += wl::to_json(wl::Record{rec}).dump() + "\n";
      continue;
    }
    out += row_prefix(spec, result, result.policy[p]);
    if (with_scenarios) out += ',';
    out += fmt::format(",{},{},{},{}", csv_field(v.program.name), csv_field(spec.policies[result.policy[p]]),
                       csv_field(r.chosen), gpus);
    if (with_scenarios) out += empty_fields(kScenarioValues);
    for (double x : {r.step_us, r.serial_us, r.ideal_us}) {
      out += ',';
      out += wl::format_double(x);
    }
    out += ',';
    if (const auto overlap = r.overlap_percent()) out += wl::format_double(*overlap);
    out += "\n";
  }
  return out;
}

}  // namespace

std::string render_header(const SweepSpec& spec, OutputFormat format) {
  if (format == OutputFormat::jsonl) {
    wl::EnvRecord env;
    env.producer = "c3sim";
    env.hardware = spec.hardware;
    const hw::NodeSpec first = spec.task(0).spec;
    env.gpus = first.interconnect.gpus;
    env.cus_per_gpu = first.compute.total_cus();
    env.details["sweep"] = {{"variants", spec.variant_count},
                            {"scenarios", spec.scenario_names.size()},
                            {"policies", spec.policies},
                            {"varied", spec.varied_keys}};
    if (!spec.program_names.empty()) env.details["sweep"]["programs"] = spec.program_names;
    return wl::to_json(wl::Record{env}).dump() + "\n";
  }
  const bool scenarios = !spec.scenario_names.empty();
  const bool programs = !spec.program_names.empty();
  std::string h = "point,variant,name";
  for (const auto& k : spec.varied_keys) {
    h += ',';
    h += csv_field(k);
  }
  h += scenarios ? ",scenario" : "";
  h += programs ? ",program" : "";
  h += ",policy,chosen,gpus";
  h += scenarios ? fmt::format(",{}", kScenarioColumns) : "";
  h += programs ? fmt::format(",{}", kProgramColumns) : "";
  return h + "\n";
}

std::string render_task(const SweepSpec& spec, const TaskResult& result, OutputFormat format) {
  if (result.setup.is_program) return render_program_task(spec, result, format);
  const Task& v = result.setup;
  const wl::Scenario& sc = v.scenario;
  const int gpus = sc.gpus.value_or(result.node_gpus);
  const bool with_programs = !spec.program_names.empty();
  std::string out;
  for (std::size_t p = 0; p < result.runs.size(); ++p) {
    const models::C3Result& r = result.runs[p];
    if (format == OutputFormat::jsonl) {
      wl::C3Record rec = models::to_record(sc, r, gpus);
      rec.extra["variant"] = variant_json(v);
      out += wl::to_json(wl::Record{rec}).dump() + "\n";
      continue;
    }
    out += row_prefix(spec, result, result.policy[p]);
    out += fmt::format(",{}{},{},{},{},{}", csv_field(sc.name), with_programs ? "," : "",
                       csv_field(spec.policies[result.policy[p]]), csv_field(r.chosen), gpus,
                       sc.collective.bytes);
    for (double x : {r.total_us, r.gemm_us, r.coll_us, r.iso_gemm_us, r.iso_coll_us, r.speedup(),
                     r.ideal_speedup(), r.percent_of_ideal()}) {
      out += ',';
      out += wl::format_double(x);
    }
    if (with_programs) out += empty_fields(kProgramValues);
    out += "\n";
  }
  return out;
}

}  // namespace c3sim::sweep
