#include "sim/sweep/sweep_output.h"

#include <fmt/format.h>

#include "models/simulated_runner.h"
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
    return wl::to_json(wl::Record{env}).dump() + "\n";
  }
  std::string h = "point,variant,name";
  for (const auto& k : spec.varied_keys) {
    h += ',';
    h += csv_field(k);
  }
  h += ",scenario,policy,chosen,gpus,bytes,time_us,gemm_us,coll_us,iso_gemm_us,iso_coll_us,speedup,ideal_"
       "speedup,"
       "percent_of_ideal\n";
  return h;
}

std::string render_task(const SweepSpec& spec, const TaskResult& result, OutputFormat format) {
  const Task& v = result.setup;
  const std::size_t vi = v.variant;
  const wl::Scenario& sc = v.scenario;
  const int gpus = sc.gpus.value_or(result.node_gpus);
  std::string out;
  for (std::size_t p = 0; p < result.runs.size(); ++p) {
    const models::C3Result& r = result.runs[p];
    if (format == OutputFormat::jsonl) {
      wl::C3Record rec = models::to_record(sc, r, gpus);
      nlohmann::json settings = nlohmann::json::object();
      for (const auto& s : v.settings) settings[s.key] = s.value;
      rec.extra["variant"] = {{"index", vi}, {"name", v.variant_name}, {"settings", settings}};
      out += wl::to_json(wl::Record{rec}).dump() + "\n";
      continue;
    }
    const std::size_t point = result.task * spec.policies.size() + result.policy[p];
    out += fmt::format("{},{},{}", point, vi, csv_field(v.variant_name));
    for (const auto& k : spec.varied_keys) {
      const std::string* value = setting_of(v, k);
      out += ',';
      if (value) out += csv_field(*value);
    }
    out += fmt::format(",{},{},{},{},{}", csv_field(sc.name), csv_field(spec.policies[result.policy[p]]),
                       csv_field(r.chosen), gpus, sc.collective.bytes);
    for (double x : {r.total_us, r.gemm_us, r.coll_us, r.iso_gemm_us, r.iso_coll_us, r.speedup(),
                     r.ideal_speedup(), r.percent_of_ideal()}) {
      out += ',';
      out += wl::format_double(x);
    }
    out += "\n";
  }
  return out;
}

}  // namespace c3sim::sweep
