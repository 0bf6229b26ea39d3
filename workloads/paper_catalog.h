#pragma once
// The main paper's workloads (seed 003, Section IV-A): Table I's seven GEMMs and Table II's
// fifteen C3 combinations, each run with all-gather and with all-to-all (30 scenarios).
// Shapes and tags are exactly as printed; byte sizes follow REFERENCE.md "Reading the main
// paper's Tables I and II" (full gathered array, binary units, 8-way FSDP, bf16).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/gemm.h"
#include "workloads/scenario.h"

namespace c3sim::wl {

inline constexpr int kPaperGpus = 8;  // one 8 x MI300X node (Section II-A)

// One row of Table II (the collective type is not part of the row; see paper_scenarios()).
struct C3Combination {
  std::string tag;                       // "mb1_896M": GEMM tag + printed collective size
  std::string gemm_tag;                  // "mb1"
  std::string size_label;                // "896M", as printed
  std::int64_t bytes = 0;                // full gathered array, per-GPU output bytes
  std::string source;                    // "LLaMA-70B", "LLaMA-405B" or "synthetic"
  Taxonomy taxonomy = Taxonomy::g_long;  // as printed
};

// Table I in printed order (cb1..cb5, mb1, mb2).
const std::vector<Gemm>& table1_gemms();
// Table II: the G-long block, then C-long, then GC-equal; each block read row by row, left entry
// before right (mb1_896M, mb2_3.25G, mb1_4G, ...).
const std::vector<C3Combination>& table2_combinations();
// All 30 catalog scenarios: the 15 combinations with all-gather ("<tag>_ag"), then the same 15
// with all-to-all ("<tag>_a2a"). gpus = 8, impl = cu, no policies.
const std::vector<Scenario>& paper_scenarios();

std::optional<Gemm> find_paper_gemm(std::string_view tag);                  // "cb1"
std::optional<C3Combination> find_paper_combination(std::string_view tag);  // "mb1_896M"
std::optional<Scenario> find_paper_scenario(std::string_view name);         // "mb1_896M_ag"

// A size the way Table II prints it: binary units, three significant digits, halves rounded up,
// no trailing zeros ("896M", "1.63G" for 1.625 GiB, "26.5G"). format_bytes_binary rounds halves
// to even ("1.62G"), so catalog and generator labels use this one.
std::string paper_size_label(std::int64_t bytes);

// The scenario for one combination under one collective, named "<tag>_<short_name(op)>".
Scenario make_paper_scenario(const C3Combination& combination, CollectiveOp op);

}  // namespace c3sim::wl
