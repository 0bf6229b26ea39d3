// c3sim paper: the main paper's figures (5-10) and heuristic table on a hardware model.
#include <iostream>

#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/paper/paper_report.h"
#include "sim/base/units.h"
#include "sim/cli/command_inputs.h"
#include "sim/cli/commands.h"
#include "sim/cli/output.h"
#include "sim/cli/paper_beside_text.h"

namespace c3sim::cli {

namespace {

std::string pct(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1.0) * 100.0); }

std::string hardware_line(const models::PaperReport& r) {
  return fmt::format("hardware file: {} ({})\n", r.hardware_file,
                     r.hardware_is_preset ? "built-in preset" : "user file");
}

// A policy's headline % of ideal is Figure 8's (CU policies) or Figure 10's (c3_best and ConCCL).
models::PaperComparison const* headline(const models::PaperReport& r, const std::string& policy) {
  for (const auto& c : r.paper_values) {
    if (c.paper.id == "fig8.percent_of_ideal." + policy || c.paper.id == "fig10.percent_of_ideal." + policy)
      return &c;
  }
  return nullptr;
}

std::string render_tables(const models::PaperReport& r) {
  std::string out = fmt::format("c3sim paper reproduction on '{}'\n", r.hardware) + hardware_line(r) +
                    "paper values: workloads/paper_values.yaml (each with the sentence it quotes)\n\n";
  if (!r.fig5_gemm.empty()) {
    std::vector<std::string> head{"GEMM", "class"};
    for (const auto& [c, v] : r.fig5_gemm.front().slowdown) head.push_back(fmt::format("-{} CUs", c));
    TextTable t(head);
    for (const auto& g : r.fig5_gemm) {
      std::vector<std::string> row{g.tag, g.cls};
      for (const auto& [c, v] : g.slowdown) row.push_back(pct(v));
      t.add(row);
    }
    out += "Figure 5(a): GEMM slowdown when CUs are taken away (time vs all CUs)\n" + t.render() + "\n";
  }
  if (!r.fig5_coll.empty()) {
    std::vector<std::string> head{"collective", "default CUs"};
    for (const auto& [c, v] : r.fig5_coll.front().slowdown) head.push_back(fmt::format("{} CUs", c));
    TextTable t(head);
    for (const auto& c : r.fig5_coll) {
      std::vector<std::string> row{fmt::format("{} {}", wl::short_name(c.op), format_bytes_binary(c.bytes)),
                                   std::to_string(c.default_cus)};
      for (const auto& [n, v] : c.slowdown) row.push_back(pct(v));
      t.add(row);
    }
    out += "Figure 5(b,c): collective slowdown with CUs assigned (time vs default CUs)\n" + t.render() + "\n";
  }
  if (!r.fig5_coll.empty()) out += paper_beside_table(r.paper_values, {"fig5."}, "Figure 5") + "\n";
  if (!r.fig6.empty()) {
    TextTable t({"kernel", "LLC GB/s", "relative"});
    for (const auto& k : r.fig6)
      t.add({k.kernel, fmt::format("{:.0f}", k.llc_bw_gbps), fmt::format("{:.2f}", k.relative)});
    out += "Figure 6: Infinity Cache (LLC) bandwidth per kernel, isolated\n" + t.render() + "\n";
    out += paper_beside_table(r.paper_values, {"fig6."}, "Figure 6") + "\n";
  }
  if (!r.fig7.empty()) {
    TextTable t({"scenario", "GEMM us", "coll us", "ideal", "taxonomy", "paper"});
    for (const auto& s : r.fig7) {
      t.add({s.scenario, fmt::format("{:.0f}", s.gemm_us), fmt::format("{:.0f}", s.coll_us),
             fmt::format("{:.2f}x", s.ideal), s.taxonomy, s.paper_taxonomy});
    }
    out += "Figure 7: ideal C3 speedup (serial / max of isolated times) and taxonomy\n" + t.render();
    out += fmt::format("mean ideal speedup {:.2f}x; taxonomy matches Table II in {} of {} scenarios\n\n",
                       r.mean_ideal, r.taxonomy_matches, r.fig7.size());
    out += paper_beside_table(r.paper_values, {"fig7."}, "Figure 7") + "\n";
  }
  if (!r.summary.empty()) {
    TextTable t({"policy", "speedup", "% of ideal", "paper", "difference", "per-scen. %", "AG %", "A2A %",
                 "G-long %", "C-long %", "GC-equal %"});
    for (const auto& p : r.policies) {
      const auto& s = r.summary.at(p);
      auto col = [&](const auto& m, const std::string& k) {
        auto it = m.at(p).find(k);
        return it == m.at(p).end() ? std::string("-")
                                   : fmt::format("{:.0f}", it->second.mean_percent_of_ideal);
      };
      const models::PaperComparison* paper = headline(r, p);
      const PaperCells cells = paper == nullptr ? PaperCells{} : paper_cells(r.paper_values, paper->paper.id);
      t.add({p, fmt::format("{:.3f}x", s.mean_speedup), fmt::format("{:.1f}", s.mean_percent_of_ideal),
             cells.paper, cells.difference, fmt::format("{:.1f}", s.mean_percent_of_ideal_per_scenario),
             col(r.by_collective, "all_gather"), col(r.by_collective, "all_to_all"),
             col(r.by_taxonomy, "G-long"), col(r.by_taxonomy, "C-long"), col(r.by_taxonomy, "GC-equal")});
    }
    out +=
        "Figures 8 and 10: C3 speedup over serial, mean over the 30 Table II scenarios; % of ideal as the\n"
        "paper computes it, (mean speedup - 1) / (mean ideal - 1), and as the mean of per-scenario values\n" +
        t.render() + "\n";
    out += paper_beside_table(r.paper_values, {"fig8.", "fig10."}, "Figures 8 and 10");
    out +=
        "G-long, C-long, GC-equal: the paper's text states no value for the taxonomy groups (its Figures 8\n"
        "and 10 show them as bars only)\n\n";
    std::vector<std::string> head{"scenario"};
    for (const auto& p : r.policies) head.push_back(p);
    TextTable per(head);
    for (size_t i = 0; i < r.runs.size(); i += r.policies.size()) {
      std::vector<std::string> row{r.runs[i].scenario};
      for (size_t j = 0; j < r.policies.size(); ++j)
        row.push_back(fmt::format("{:.0f}%", r.runs[i + j].percent_of_ideal()));
      per.add(row);
    }
    out += "Percent of ideal speedup per scenario\n" + per.render() + "\n";
  }
  if (!r.fig9.empty()) {
    TextTable t({"size", "AG cu us", "AG dma us", "AG dma/cu", "A2A cu us", "A2A dma us", "A2A dma/cu"});
    const size_t half = r.fig9.size() / 2;
    for (size_t i = 0; i < half; ++i) {
      const auto& a = r.fig9[i];
      const auto& b = r.fig9[i + half];
      t.add({format_bytes_binary(a.bytes), fmt::format("{:.1f}", a.cu_us), fmt::format("{:.1f}", a.dma_us),
             fmt::format("{:.2f}", a.dma_us / a.cu_us), fmt::format("{:.1f}", b.cu_us),
             fmt::format("{:.1f}", b.dma_us), fmt::format("{:.2f}", b.dma_us / b.cu_us)});
    }
    out += "Figure 9: DMA (ConCCL) vs CU (RCCL) collectives, isolated\n" + t.render() + "\n";
    out += paper_beside_table(r.paper_values, {"fig9."}, "Figure 9") + "\n";
  }
  if (!r.heuristics.empty()) {
    TextTable t({"scenario", "SP pick", "SP best", "RP pick", "RP best", "RP loss", "ConCCL-RP pick", "best",
                 "loss"});
    for (const auto& h : r.heuristics) {
      t.add({h.scenario, h.sp_choice, h.sp_best, std::to_string(h.rp_choice), std::to_string(h.rp_best),
             fmt::format("{:.1f}%", h.rp_loss_pct), std::to_string(h.dma_rp_choice),
             std::to_string(h.dma_rp_best), fmt::format("{:.1f}%", h.dma_rp_loss_pct)});
    }
    out += "Heuristics (Sections V-C, VI-G) vs the CU sweep\n" + t.render();
    out += fmt::format("RP heuristic picks the best split in {} of {} scenarios; worst loss {:.1f}%\n\n",
                       r.rp_heuristic_correct, r.heuristics.size(), r.rp_heuristic_max_loss_pct);
    out += paper_beside_table(r.paper_values, {"heuristics."}, "the heuristics");
  }
  return out;
}

}  // namespace

void add_paper_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("paper", "Reproduce the main paper's figures (5-10) and heuristics as tables");
  auto hardware = std::make_shared<std::string>("mi300x");
  auto format = std::make_shared<std::string>("table");
  auto output = std::make_shared<std::string>();
  auto only = std::make_shared<std::string>("all");
  cmd->add_option("--hardware", *hardware, "Hardware preset name or YAML file")->capture_default_str();
  cmd->add_option("--format", *format, "table | json")->capture_default_str();
  cmd->add_option("-o,--output", *output, "Write to FILE instead of stdout");
  cmd->add_option("--only", *only,
                  "all | isolated (Figures 5-7) | c3 (Figures 8, 10, heuristics) | dma (Figure 9)")
      ->capture_default_str();
  cmd->callback([=] {
    const Format f = parse_format(*format, {Format::table, Format::json});
    const models::PaperOptions o = models::paper_options(*only, SourceLocation{"<command line>", 0, 0});
    const std::vector<std::string> inputs = inputs_with_hardware({}, *hardware);
    check_outputs({{*output, "-o"}}, inputs);
    const hw::NodeSpec spec = hw::load_hardware(*hardware);
    models::check_paper_runs(spec, o, SourceLocation{*hardware, 0, 0});
    const models::PaperReport rep = models::make_paper_report(spec, o);
    write_outputs(
        {{{*output, "-o"}, f == Format::json ? models::to_json(rep).dump(2) + "\n" : render_tables(rep)}},
        inputs);
    std::cerr << fmt::format("c3sim paper: computed in {:.2f} s\n", rep.seconds);
  });
}

}  // namespace c3sim::cli
