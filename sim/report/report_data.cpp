#include "sim/report/report_data.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/base/errors.h"
#include "sim/report/attribution_causes.h"
#include "sim/report/program_attribution.h"
#include "sim/report/program_steps.h"
#include "sim/report/sweep_heatmaps.h"
#include "workloads/scenario.h"

namespace c3sim::report {

namespace {

using nlohmann::json;

// Keeps first-appearance order, the order the producer chose (catalog order, policy order).
void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

std::vector<const wl::C3Record*> c3_records(const std::vector<wl::Record>& records) {
  std::vector<const wl::C3Record*> out;
  for (const auto& r : records) {
    if (const auto* c = std::get_if<wl::C3Record>(&r)) out.push_back(c);
  }
  return out;
}

std::vector<const wl::ProgramRecord*> program_records(const std::vector<wl::Record>& records) {
  std::vector<const wl::ProgramRecord*> out;
  for (const auto& r : records) {
    if (const auto* p = std::get_if<wl::ProgramRecord>(&r)) out.push_back(p);
  }
  return out;
}

bool is_sweep(const wl::C3Record& c) { return c.extra.contains("variant"); }

json figure5(const json& paper) {
  json gemm = json::array();
  json coll = json::array();
  if (!paper.contains("figure5")) return json{{"gemm", gemm}, {"collective", coll}};
  for (const auto& g : paper["figure5"].value("gemm", json::array())) {
    json pts = json::array();
    for (const auto& [cus, v] : g["slowdown_by_cus_removed"].items()) pts.push_back({std::stoi(cus), v});
    gemm.push_back(
        {{"label", fmt::format("{} ({})", g.value("gemm", ""), g.value("class", ""))}, {"points", pts}});
  }
  for (const auto& c : paper["figure5"].value("collective", json::array())) {
    json pts = json::array();
    for (const auto& [cus, v] : c["slowdown_by_cus_assigned"].items()) pts.push_back({std::stoi(cus), v});
    const double mib = c.value("bytes", 0.0) / (1024.0 * 1024.0);
    coll.push_back({{"label", fmt::format("{} {:.0f} MiB", c.value("op", ""), mib)}, {"points", pts}});
  }
  auto by_x = [](json& series) {
    for (auto& s : series) {
      auto& p = s["points"];
      std::sort(p.begin(), p.end(),
                [](const json& a, const json& b) { return a[0].get<int>() < b[0].get<int>(); });
    }
  };
  by_x(gemm);
  by_x(coll);
  return json{{"gemm", gemm}, {"collective", coll}};
}

// Ideal vs realized speedup per scenario (one bar group per scenario, one bar per policy).
json speedups(const std::vector<const wl::C3Record*>& runs, std::vector<std::string>& scenarios,
              std::vector<std::string>& policies) {
  for (const auto* c : runs) {
    add_unique(scenarios, c->scenario);
    add_unique(policies, c->policy);
  }
  json ideal = json::array();
  json realized = json::object();
  for (const auto& p : policies) realized[p] = json::array();
  for (const auto& s : scenarios) {
    json ideal_v = nullptr;
    for (const auto& p : policies) {
      json v = nullptr;
      for (const auto* c : runs) {
        if (c->scenario != s || c->policy != p) continue;
        if (c->speedup) v = *c->speedup;
        if (c->ideal_speedup) ideal_v = *c->ideal_speedup;
      }
      realized[p].push_back(v);
    }
    ideal.push_back(ideal_v);
  }
  return json{{"scenarios", scenarios}, {"policies", policies}, {"ideal", ideal}, {"realized", realized}};
}

// Mean percent of ideal per taxonomy class, the class taken from each run's isolated times.
json taxonomy(const std::vector<const wl::C3Record*>& runs, const std::vector<std::string>& policies) {
  const std::vector<std::string> classes{"G-long", "C-long", "GC-equal"};
  std::map<std::pair<std::string, std::string>, std::pair<double, int>> acc;
  for (const auto* c : runs) {
    if (!c->iso_gemm_us || !c->iso_coll_us || !c->percent_of_ideal) continue;
    const std::string cls = wl::to_string(wl::classify(*c->iso_gemm_us, *c->iso_coll_us));
    auto& a = acc[{c->policy, cls}];
    a.first += *c->percent_of_ideal;
    a.second += 1;
  }
  json pct = json::object();
  for (const auto& p : policies) {
    json row = json::array();
    for (const auto& cls : classes) {
      auto it = acc.find({p, cls});
      row.push_back(it == acc.end() ? json(nullptr) : json(it->second.first / it->second.second));
    }
    pct[p] = row;
  }
  return json{{"classes", classes}, {"policies", policies}, {"percent", pct}};
}

// Mean slowdown attribution per policy, for the GEMM and the collective (stacked by cause).
json attribution(const std::vector<const wl::C3Record*>& runs, const std::vector<std::string>& policies) {
  std::vector<std::string> causes = fixed_causes();
  std::map<std::string, std::map<std::string, std::map<std::string, double>>>
      sum;  // kernel -> policy -> cause
  std::map<std::string, int> count;
  for (const auto* c : runs) {
    if (c->attribution.empty()) continue;
    ++count[c->policy];
    for (const auto& kernel : {"gemm", "collective"}) {
      if (!c->attribution.contains(kernel)) continue;
      add_causes(c->attribution[kernel], sum[kernel][c->policy], causes);
    }
  }
  if (count.empty()) return nullptr;
  json out{{"policies", json::array()},
           {"causes", causes},
           {"gemm", json::object()},
           {"collective", json::object()}};
  for (const auto& p : policies) {
    if (count.contains(p)) out["policies"].push_back(p);
  }
  for (const auto& kernel : {"gemm", "collective"}) {
    for (const auto& cause : causes) {
      json row = json::array();
      for (const auto& p : out["policies"]) {
        const std::string ps = p.get<std::string>();
        row.push_back(sum[kernel][ps][cause] / count[ps]);
      }
      out[kernel][cause] = row;
    }
  }
  return out;
}

// Predicted vs measured time for every record kind both sides have, matched on its identity.
json scatter(const std::vector<wl::Record>& predicted, const std::vector<wl::Record>& measured) {
  auto key = [](const wl::Record& r) -> std::string {
    if (const auto* g = std::get_if<wl::IsoGemmRecord>(&r))
      return fmt::format("gemm {}x{}x{} {} cus={}", g->m, g->n, g->k, g->dtype, g->cus);
    if (const auto* c = std::get_if<wl::IsoCollRecord>(&r))
      return fmt::format("coll {} {} {} gpus={} wg={}", c->op, c->bytes, c->impl, c->gpus,
                         c->workgroups.value_or(0));
    if (const auto* c = std::get_if<wl::C3Record>(&r)) return fmt::format("c3 {} {}", c->scenario, c->policy);
    return {};
  };
  auto time = [](const wl::Record& r) -> double {
    if (const auto* g = std::get_if<wl::IsoGemmRecord>(&r)) return g->time_us;
    if (const auto* c = std::get_if<wl::IsoCollRecord>(&r)) return c->time_us;
    if (const auto* c = std::get_if<wl::C3Record>(&r)) return c->time_us;
    return 0;
  };
  std::map<std::string, double> pred;
  for (const auto& r : predicted) {
    const std::string k = key(r);
    if (!k.empty()) pred.emplace(k, time(r));
  }
  json groups = json::object();
  for (const auto& r : measured) {
    const std::string k = key(r);
    auto it = pred.find(k);
    if (k.empty() || it == pred.end()) continue;
    groups[wl::kind_of(r)].push_back({{"label", k}, {"measured", time(r)}, {"predicted", it->second}});
  }
  return groups;
}

// Sweep output: per variant, in how many scenarios DMA offload beats the best CU policy.
json sweep_summary(const std::vector<const wl::C3Record*>& runs) {
  struct Acc {
    std::string label;
    std::map<std::string, double> best_cu;  // scenario -> best speedup without DMA
    std::map<std::string, double> dma;      // scenario -> dma speedup
  };
  // Labels name only the fields that differ between variants ("engines=14, engine_bandwidth=64 GB/s").
  std::map<std::string, std::set<std::string>> values;
  for (const auto* c : runs) {
    if (!is_sweep(*c)) continue;
    const json settings =
        c->extra["variant"].value("settings", json::object());  // items() must not outlive it
    for (const auto& [k, val] : settings.items()) values[k].insert(val.dump());
  }
  std::map<int, Acc> by_variant;
  for (const auto* c : runs) {
    if (!is_sweep(*c) || !c->speedup) continue;
    const json& v = c->extra["variant"];
    Acc& a = by_variant[v.value("index", 0)];
    if (a.label.empty()) {
      std::string label;
      const json settings = v.value("settings", json::object());
      for (const auto& [k, val] : settings.items()) {
        if (values[k].size() < 2) continue;
        const auto dot = k.rfind('.');
        label += (label.empty() ? "" : ", ") + k.substr(dot == std::string::npos ? 0 : dot + 1) + "=" +
                 (val.is_string() ? val.get<std::string>() : val.dump());
      }
      a.label = label.empty() ? v.value("name", "base") : label;
    }
    auto& slot = c->impl == "cu" ? a.best_cu[c->scenario] : a.dma[c->scenario];
    slot = std::max(slot, *c->speedup);
  }
  json variants = json::array(), wins = json::array(), losses = json::array(), ratio = json::array();
  for (const auto& [index, a] : by_variant) {
    int w = 0, l = 0;
    double sum = 0;
    int n = 0;
    for (const auto& [s, d] : a.dma) {
      auto it = a.best_cu.find(s);
      if (it == a.best_cu.end()) continue;
      (d > it->second ? w : l) += 1;
      sum += d / it->second;
      ++n;
    }
    if (n == 0) continue;
    variants.push_back(a.label);
    wins.push_back(w);
    losses.push_back(l);
    ratio.push_back(sum / n);
  }
  if (variants.empty()) return nullptr;
  return json{{"variants", variants}, {"wins", wins}, {"losses", losses}, {"mean_ratio", ratio}};
}

}  // namespace

json build_report_data(const ReportInputs& in) {
  const auto all_runs = c3_records(in.predicted);
  std::vector<const wl::C3Record*> runs;  // the plain (non-sweep) runs, one per scenario x policy
  for (const auto* c : all_runs) {
    if (!is_sweep(*c)) runs.push_back(c);
  }
  const auto programs = program_records(in.predicted);
  if (all_runs.empty() && programs.empty() && !in.paper) {
    throw InputError(SourceLocation{in.sources.empty() ? "<input>" : in.sources.front(), 0, 0}, "kind",
                     "no c3 records and no --paper document: nothing to plot (the charts need c3sim run "
                     "or sweep output, for scenarios or programs, or --paper; kernels measured alone, as "
                     "c3sim import writes, calibrate a hardware file: c3sim calibrate)");
  }
  json d;
  d["sources"] = in.sources;
  std::string hardware;
  for (const auto& r : in.predicted) {
    if (const auto* e = std::get_if<wl::EnvRecord>(&r)) hardware = e->hardware;
  }
  if (hardware.empty() && in.paper) hardware = in.paper->value("hardware", "");
  d["hardware"] = hardware;
  std::vector<std::string> charts;
  if (in.paper) {
    d["figure5"] = figure5(*in.paper);
    if (!d["figure5"]["gemm"].empty()) charts.emplace_back("fig5-gemm");
    if (!d["figure5"]["collective"].empty()) charts.emplace_back("fig5-coll");
  }
  std::vector<std::string> scenarios, policies;
  if (!runs.empty()) {
    d["speedup"] = speedups(runs, scenarios, policies);
    d["taxonomy"] = taxonomy(runs, policies);
    charts.emplace_back("speedup");
    charts.emplace_back("taxonomy");
    d["attribution"] = attribution(runs, policies);
    if (!d["attribution"].is_null()) {
      charts.emplace_back("attr-gemm");
      charts.emplace_back("attr-coll");
    }
  }
  if (!in.measured.empty()) {
    d["scatter"] = scatter(in.predicted, in.measured);
    if (d["scatter"].empty()) {
      throw InputError(SourceLocation{in.sources.back(), 0, 0}, "kind",
                       "no measured record matches a predicted one (same GEMM shape and CUs, collective, or "
                       "scenario and policy)");
    }
    charts.emplace_back("scatter");
  }
  // A few variants: one bar group each. Many: heatmaps of variant x grid value.
  if (sweep_variant_count(all_runs) > kMaxBarVariants) {
    d["sweep_heatmaps"] = sweep_heatmaps(all_runs);
    charts.emplace_back("sweep-gain");
    charts.emplace_back("sweep-offload");
  } else {
    d["sweep"] = sweep_summary(all_runs);
    if (!d["sweep"].is_null()) charts.emplace_back("sweep");
  }
  if (!programs.empty()) {
    d["program_steps"] = program_steps(programs);
    charts.emplace_back("program-steps");
    d["program_attribution"] = program_attribution(programs);
    if (!d["program_attribution"].is_null()) {
      charts.emplace_back("prog-attr-gemm");
      charts.emplace_back("prog-attr-other");
    }
  }
  d["charts"] = charts;
  return d;
}

}  // namespace c3sim::report
