#include "models/paper/paper_report.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "hardware/preset_registry.h"
#include "models/paper/heuristics.h"
#include "models/policies/policy.h"
#include "models/policies/transform_registry.h"
#include "workloads/paper_catalog.h"

namespace c3sim::models {

namespace {

const std::vector<std::string> kC3Policies = {"base", "sp", "prio", "rp_best", "sp_rp_best"};
const std::vector<std::string> kDmaPolicies = {"dma", "dma_rp_best"};
constexpr const char* kBestCu = "c3_best";

void add(PolicySummary& s, const C3Result& r) {
  s.mean_speedup += r.speedup();
  s.mean_ideal_speedup += r.ideal_speedup();
  s.mean_percent_of_ideal_per_scenario += r.percent_of_ideal();
  s.scenarios++;
}

void finish(PolicySummary& s) {
  if (s.scenarios == 0) return;
  s.mean_speedup /= s.scenarios;
  s.mean_ideal_speedup /= s.scenarios;
  s.mean_percent_of_ideal_per_scenario /= s.scenarios;
  s.mean_percent_of_ideal = 100.0 * (s.mean_speedup - 1.0) / (s.mean_ideal_speedup - 1.0);
}

std::string taxonomy_of(const wl::Scenario& s) {
  return s.paper_taxonomy ? wl::to_string(*s.paper_taxonomy) : "unclassified";
}

void isolated_figures(C3Simulator& sim, Heuristics& heur, PaperReport& rep) {
  const hw::NodeSpec& spec = sim.spec();
  const int total = spec.compute.total_cus();
  const int gpus = spec.interconnect.gpus;
  const std::vector<int> sweep = rp_sweep_cus(spec);
  for (const wl::Gemm& g : wl::table1_gemms()) {
    Fig5Gemm row{g.tag, to_string(heur.classify(g)), {}};
    const double full = sim.iso_gemm(g).time_us;
    row.slowdown[0] = 1.0;
    for (int c : sweep) {
      if (c <= total / 2) row.slowdown[c] = sim.iso_gemm(g, total - c).time_us / full;
    }
    rep.fig5_gemm.push_back(row);
    rep.fig6.push_back(Fig6Row{g.tag, sim.iso_gemm(g).llc_bw_gbps(), 0});
  }
  for (auto op : {wl::CollectiveOp::all_gather, wl::CollectiveOp::all_to_all}) {
    for (std::int64_t mib : {512, 4096}) {
      const wl::Collective c{op, mib << 20, wl::CollectiveImpl::cu, {}};
      Fig5Coll row{op, c.bytes, 0, {}};
      const IsoCollResult def = sim.iso_coll(c, gpus);
      row.default_cus = def.workgroups;
      for (int w : sweep) {
        if (w <= 128) row.slowdown[w] = sim.iso_coll(c, gpus, w).time_us / def.time_us;
      }
      rep.fig5_coll.push_back(row);
      rep.fig6.push_back(Fig6Row{fmt::format("{}_{}", wl::short_name(op), format_bytes_binary(c.bytes)),
                                 def.llc_bw_gbps(), 0});
    }
  }
  double most = 0;
  for (const auto& r : rep.fig6) most = std::max(most, r.llc_bw_gbps);
  for (auto& r : rep.fig6) r.relative = most > 0 ? r.llc_bw_gbps / most : 0;

  double sum = 0;
  for (const wl::Scenario& s : wl::paper_scenarios()) {
    Fig7Row row;
    row.scenario = s.name;
    row.gemm_us = sim.iso_gemm(s.gemm).time_us;
    row.coll_us = sim.iso_coll(s.collective, sim.gpus_of(s)).time_us;
    row.ideal = (row.gemm_us + row.coll_us) / std::max(row.gemm_us, row.coll_us);
    row.taxonomy = wl::to_string(wl::classify(row.gemm_us, row.coll_us));
    row.paper_taxonomy = taxonomy_of(s);
    rep.taxonomy_matches += row.taxonomy == row.paper_taxonomy ? 1 : 0;
    sum += row.ideal;
    rep.fig7.push_back(row);
  }
  rep.mean_ideal = rep.fig7.empty() ? 0 : sum / static_cast<double>(rep.fig7.size());
}

// The CUs a sweep's winner partitions ("rp:64" -> 64; "dma", the offload alone -> 0).
int chosen_cus(const std::string& chosen) {
  return builtin_registry().parse(chosen, {}).steps.front().arg.value_or(0);
}

void c3_figures(C3Simulator& sim, Heuristics& heur, PaperReport& rep) {
  rep.policies = kC3Policies;
  rep.policies.emplace_back(kBestCu);
  for (const auto& p : kDmaPolicies) rep.policies.push_back(p);
  for (const wl::Scenario& s : wl::paper_scenarios()) {
    std::map<std::string, C3Result> here;
    for (const auto& p : kC3Policies) here[p] = sim.run_named(s, p);
    for (const auto& p : kDmaPolicies) here[p] = sim.run_named(s, p);
    // c3_best: the best CU-based variant of Sections IV-V (base, sp, rp, sp_rp).
    C3Result best = here["base"];
    for (const char* p : {"sp", "rp_best", "sp_rp_best"}) {
      if (here[p].total_us < best.total_us) best = here[p];
    }
    best.chosen = best.chosen.empty() ? best.policy : best.chosen;
    best.policy = kBestCu;
    here[kBestCu] = best;
    for (const auto& p : rep.policies) {
      const C3Result& r = here[p];
      rep.runs.push_back(r);
      add(rep.summary[p], r);
      add(rep.by_collective[p][wl::to_string(s.collective.op)], r);
      add(rep.by_taxonomy[p][taxonomy_of(s)], r);
    }

    // Heuristics against the sweeps.
    HeuristicRow h;
    h.scenario = s.name;
    h.sp_choice = heur.schedule_order(s);
    h.sp_best = here["sp"].total_us <= here["base"].total_us ? "sp" : "base";
    h.rp_choice = heur.partition_cus(s);
    const std::string rp_chosen = here["rp_best"].chosen;
    h.rp_best = chosen_cus(rp_chosen);
    const C3Result chosen = sim.run_timing(s, *make_policy(PolicyStep{"rp", h.rp_choice}, sim.spec()));
    h.rp_loss_pct = 100.0 * (chosen.total_us / here["rp_best"].total_us - 1.0);
    h.dma_rp_choice = heur.dma_partition_cus(s);
    const std::string dma_chosen = here["dma_rp_best"].chosen;
    h.dma_rp_best = chosen_cus(dma_chosen);
    const C3Result dma_pick =
        h.dma_rp_choice == 0
            ? here["dma"]
            : sim.run_timing(s, *make_policy(PolicyStep{"dma_rp", h.dma_rp_choice}, sim.spec()));
    h.dma_rp_loss_pct = 100.0 * (dma_pick.total_us / here["dma_rp_best"].total_us - 1.0);
    rep.rp_heuristic_correct += (h.rp_choice == h.rp_best || h.rp_loss_pct <= 1e-9) ? 1 : 0;
    rep.rp_heuristic_max_loss_pct = std::max(rep.rp_heuristic_max_loss_pct, h.rp_loss_pct);
    rep.heuristics.push_back(h);
  }
  for (auto& [p, s] : rep.summary) finish(s);
  for (auto& [p, m] : rep.by_collective)
    for (auto& [k, s] : m) finish(s);
  for (auto& [p, m] : rep.by_taxonomy)
    for (auto& [k, s] : m) finish(s);
}

void figure9(C3Simulator& sim, PaperReport& rep) {
  const int gpus = sim.spec().interconnect.gpus;
  for (auto op : {wl::CollectiveOp::all_gather, wl::CollectiveOp::all_to_all}) {
    for (std::int64_t mib = 1; mib <= 4096; mib *= 2) {
      wl::Collective c{op, mib << 20, wl::CollectiveImpl::cu, {}};
      const double cu = sim.iso_coll(c, gpus).time_us;
      c.impl = wl::CollectiveImpl::dma;
      const double dma = sim.iso_coll(c, gpus).time_us;
      rep.fig9.push_back(Fig9Row{op, c.bytes, cu, dma});
    }
  }
}

nlohmann::json comparison_json(const PaperComparison& c) {
  nlohmann::json j = {{"id", c.paper.id},
                      {"figure", c.paper.figure},
                      {"section", c.paper.section},
                      {"read", wl::to_string(c.paper.read)},
                      {"quote", c.paper.quote},
                      {"paper_low", c.paper.low},
                      {"paper_high", c.paper.high},
                      {"paper_is_range", c.paper.is_range()},
                      {"precision", c.paper.precision},
                      {"unit", c.unit},
                      {"model", nullptr},
                      {"difference", nullptr},
                      {"inside", c.inside()}};
  if (!c.paper.note.empty()) j["note"] = c.paper.note;
  if (c.model) j["model"] = *c.model;
  if (c.difference) j["difference"] = *c.difference;
  return j;
}

nlohmann::json summary_json(const PolicySummary& s) {
  return {{"mean_speedup", s.mean_speedup},
          {"mean_ideal_speedup", s.mean_ideal_speedup},
          {"mean_percent_of_ideal", s.mean_percent_of_ideal},
          {"mean_percent_of_ideal_per_scenario", s.mean_percent_of_ideal_per_scenario},
          {"scenarios", s.scenarios}};
}

}  // namespace

PaperOptions paper_options(const std::string& only, const SourceLocation& where) {
  PaperOptions o;
  if (only == "all") return o;
  o.figures_isolated = only == "isolated";
  o.figures_c3 = only == "c3";
  o.figure9 = only == "dma";
  if (!o.figures_isolated && !o.figures_c3 && !o.figure9) {
    throw InputError(where, "only", fmt::format("unknown selection '{}'", only));
  }
  return o;
}

void check_paper_runs(const hw::NodeSpec& spec, const PaperOptions& options, const SourceLocation& hardware) {
  if (options.figures_c3 && rp_sweep_cus(spec).empty()) {
    throw InputError(hardware, "spec.compute.cu_mask_granularity",
                     fmt::format("{} CUs in steps of {}: no CU partition to sweep for Figures 8 and 10 "
                                 "(use --only isolated or --only dma)",
                                 spec.compute.total_cus(), spec.compute.cu_mask_granularity));
  }
}

PaperReport make_paper_report(const hw::NodeSpec& spec, const PaperOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  PaperReport rep;
  rep.hardware = spec.name;
  rep.hardware_file = spec.source_file;
  const auto presets = hw::embedded_presets();
  rep.hardware_is_preset = std::any_of(presets.begin(), presets.end(), [&](const hw::EmbeddedPreset& p) {
    return p.path == spec.source_file;
  });
  SimOptions so;
  so.attribution = false;  // the paper's figures need totals only; `c3sim run` attributes
  C3Simulator sim(spec, so);
  Heuristics heur(sim);
  if (options.figures_isolated) isolated_figures(sim, heur, rep);
  if (options.figures_c3) c3_figures(sim, heur, rep);
  if (options.figure9) figure9(sim, rep);
  rep.paper_values = compare_with_paper(rep, wl::published_paper_values());
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

nlohmann::json to_json(const PaperReport& rep) {
  using nlohmann::json;
  json j;
  j["schema"] = "c3sim.paper";
  j["version"] = 1;
  j["hardware"] = rep.hardware;
  j["hardware_file"] = rep.hardware_file;
  j["hardware_source"] = rep.hardware_is_preset ? "preset" : "file";
  json f5 = json::array();
  for (const auto& r : rep.fig5_gemm) {
    json s = json::object();
    for (const auto& [c, v] : r.slowdown) s[std::to_string(c)] = v;
    f5.push_back({{"gemm", r.tag}, {"class", r.cls}, {"slowdown_by_cus_removed", s}});
  }
  json f5c = json::array();
  for (const auto& r : rep.fig5_coll) {
    json s = json::object();
    for (const auto& [c, v] : r.slowdown) s[std::to_string(c)] = v;
    f5c.push_back({{"op", wl::to_string(r.op)},
                   {"bytes", r.bytes},
                   {"default_cus", r.default_cus},
                   {"slowdown_by_cus_assigned", s}});
  }
  j["figure5"] = {{"gemm", f5}, {"collective", f5c}};
  json f6 = json::array();
  for (const auto& r : rep.fig6)
    f6.push_back({{"kernel", r.kernel}, {"llc_bw_gbps", r.llc_bw_gbps}, {"relative", r.relative}});
  j["figure6"] = f6;
  json f7 = json::array();
  for (const auto& r : rep.fig7) {
    f7.push_back({{"scenario", r.scenario},
                  {"gemm_us", r.gemm_us},
                  {"coll_us", r.coll_us},
                  {"ideal_speedup", r.ideal},
                  {"taxonomy", r.taxonomy},
                  {"paper_taxonomy", r.paper_taxonomy}});
  }
  j["figure7"] = {
      {"rows", f7}, {"mean_ideal_speedup", rep.mean_ideal}, {"taxonomy_matches", rep.taxonomy_matches}};
  json summary = json::object();
  for (const auto& [p, s] : rep.summary) summary[p] = summary_json(s);
  json by_coll = json::object();
  for (const auto& [p, m] : rep.by_collective)
    for (const auto& [k, s] : m) by_coll[p][k] = summary_json(s);
  json by_tax = json::object();
  for (const auto& [p, m] : rep.by_taxonomy)
    for (const auto& [k, s] : m) by_tax[p][k] = summary_json(s);
  j["summary"] = summary;
  j["summary_by_collective"] = by_coll;
  j["summary_by_taxonomy"] = by_tax;
  json rows = json::array();
  for (const auto& r : rep.runs) {
    json row = {{"scenario", r.scenario},
                {"policy", r.policy},
                {"time_us", r.total_us},
                {"gemm_time_us", r.gemm_us},
                {"coll_time_us", r.coll_us},
                {"iso_gemm_us", r.iso_gemm_us},
                {"iso_coll_us", r.iso_coll_us},
                {"speedup", r.speedup()},
                {"ideal_speedup", r.ideal_speedup()},
                {"percent_of_ideal", r.percent_of_ideal()}};
    if (!r.chosen.empty()) row["chosen"] = r.chosen;
    rows.push_back(row);
  }
  j["scenarios"] = rows;
  json f9 = json::array();
  for (const auto& r : rep.fig9) {
    f9.push_back({{"op", wl::to_string(r.op)},
                  {"bytes", r.bytes},
                  {"cu_us", r.cu_us},
                  {"dma_us", r.dma_us},
                  {"dma_over_cu", r.dma_us / r.cu_us}});
  }
  j["figure9"] = f9;
  json heur = json::array();
  for (const auto& h : rep.heuristics) {
    heur.push_back({{"scenario", h.scenario},
                    {"sp_choice", h.sp_choice},
                    {"sp_best", h.sp_best},
                    {"rp_choice_cus", h.rp_choice},
                    {"rp_best_cus", h.rp_best},
                    {"rp_loss_pct", h.rp_loss_pct},
                    {"dma_rp_choice_cus", h.dma_rp_choice},
                    {"dma_rp_best_cus", h.dma_rp_best},
                    {"dma_rp_loss_pct", h.dma_rp_loss_pct}});
  }
  j["heuristics"] = {{"rows", heur},
                     {"rp_correct", rep.rp_heuristic_correct},
                     {"rp_max_loss_pct", rep.rp_heuristic_max_loss_pct}};
  json beside = json::array();
  for (const auto& c : rep.paper_values) beside.push_back(comparison_json(c));
  j["paper_values"] = beside;
  return j;
}

}  // namespace c3sim::models
