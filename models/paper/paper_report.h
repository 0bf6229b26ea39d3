#pragma once
// Reproduces the main paper's figures and tables on a hardware model: Figures 5-10 and the
// heuristic table, as plain data. The CLI formats it as tables or one JSON document.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/paper/paper_beside.h"
#include "models/run/c3_simulator.h"
#include "workloads/scenario.h"

namespace c3sim::models {

struct Fig5Gemm {
  std::string tag;
  std::string cls;                 // compute-bound / memory-bound (measured op-to-byte)
  std::map<int, double> slowdown;  // CUs removed -> time / time with all CUs
};
struct Fig5Coll {
  wl::CollectiveOp op;
  std::int64_t bytes = 0;
  int default_cus = 0;
  std::map<int, double> slowdown;  // CUs assigned -> time / time with the default
};
struct Fig6Row {
  std::string kernel;
  double llc_bw_gbps = 0;
  double relative = 0;  // to the largest
};
struct Fig7Row {
  std::string scenario;
  double gemm_us = 0, coll_us = 0, ideal = 0;
  std::string taxonomy;  // from the model's isolated times
  std::string paper_taxonomy;
};
struct Fig9Row {
  wl::CollectiveOp op;
  std::int64_t bytes = 0;
  double cu_us = 0, dma_us = 0;
};
struct HeuristicRow {
  std::string scenario;
  std::string sp_choice;   // heuristic: "sp" or "base"
  std::string sp_best;     // simulated better of base/sp
  int rp_choice = 0;       // heuristic CUs for the collective
  int rp_best = 0;         // sweep's best
  double rp_loss_pct = 0;  // heuristic split vs the sweep's best
  int dma_rp_choice = 0;   // ConCCL rule: CUs taken from the GEMM
  int dma_rp_best = 0;
  double dma_rp_loss_pct = 0;
};

// The paper reports "% of ideal" from means: (mean speedup - 1) / (mean ideal speedup - 1), e.g.
// c3_base 1.13x of a 1.6x mean ideal = 21%. The mean of per-scenario percentages is kept too.
struct PolicySummary {
  double mean_speedup = 0;
  double mean_ideal_speedup = 0;
  double mean_percent_of_ideal = 0;
  double mean_percent_of_ideal_per_scenario = 0;
  int scenarios = 0;
};

struct PaperReport {
  std::string hardware;
  std::string hardware_file;        // the file the node was read from (a preset's repository path)
  bool hardware_is_preset = false;  // a built-in preset rather than a user's file
  std::vector<Fig5Gemm> fig5_gemm;
  std::vector<Fig5Coll> fig5_coll;
  std::vector<Fig6Row> fig6;
  std::vector<Fig7Row> fig7;
  double mean_ideal = 0;
  int taxonomy_matches = 0;
  std::vector<std::string> policies;  // in report order, incl. c3_best
  std::vector<C3Result> runs;         // every scenario x policy (c3_best is synthesized)
  std::map<std::string, PolicySummary> summary;
  std::map<std::string, std::map<std::string, PolicySummary>> by_collective;  // policy -> "all_gather" -> ...
  std::map<std::string, std::map<std::string, PolicySummary>> by_taxonomy;    // policy -> "G-long" -> ...
  std::vector<Fig9Row> fig9;
  std::vector<HeuristicRow> heuristics;
  int rp_heuristic_correct = 0;
  double rp_heuristic_max_loss_pct = 0;
  // The paper's published values (workloads/paper_values.yaml) beside the model's, in file order.
  std::vector<PaperComparison> paper_values;
  double seconds = 0;  // wall time to compute (CLI's own timing output)
};

struct PaperOptions {
  bool figures_isolated = true;  // Figures 5-7
  bool figures_c3 = true;        // Figures 8, 10 and heuristics
  bool figure9 = true;
};

// A selection of figures by name, as `c3sim paper --only` and the Python module's paper() take it:
// "all", "isolated" (Figures 5-7), "c3" (Figures 8, 10, heuristics) or "dma" (Figure 9). Throws
// InputError at `where` (key "only") for any other name.
PaperOptions paper_options(const std::string& only, const SourceLocation& where);
// Figures 8 and 10 compare CU partitions (rp_best, sp_rp_best): a GPU of one CU-mask step has none
// to compare. Throws InputError at `hardware` (key spec.compute.cu_mask_granularity) then.
void check_paper_runs(const hw::NodeSpec& spec, const PaperOptions& options, const SourceLocation& hardware);

PaperReport make_paper_report(const hw::NodeSpec& spec, const PaperOptions& options = {});
nlohmann::json to_json(const PaperReport& report);

}  // namespace c3sim::models
