#pragma once
// The main paper's published values (workloads/paper_values.yaml): each number the paper states for
// a figure or table that `c3sim paper` reproduces, with the sentence it comes from, so the report can
// print the paper's value beside the model's.
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/errors.h"

namespace c3sim::wl {

// How a value was obtained from the paper.
enum class PaperValueRead { stated, read_off_figure };
std::string to_string(PaperValueRead read);

struct PaperValue {
  std::string id;       // one of paper_value_ids()
  std::string figure;   // "Fig. 8"
  std::string section;  // "IV-C"
  std::string quote;    // the sentence, caption or table cell, verbatim
  PaperValueRead read = PaperValueRead::stated;
  // A single value has low == high; a range printed as "24-46" has low 24, high 46.
  double low = 0;
  double high = 0;
  double precision = 0;  // half a unit of the last digit printed; 0 for exact counts
  std::string note;      // how the sentence is read, when it admits more than one reading
  SourceLocation where;  // the entry's `id:` line

  [[nodiscard]] bool is_range() const { return low != high; }
};

// The quantities the paper publishes that the report reproduces, in report order:
//   fig7.ideal_speedup.{mean,min,max}                     Fig. 7 over the 30 scenarios
//   fig8.percent_of_ideal.{base,sp,rp_best}[.<op>]        mean % of ideal, all or one collective
//   fig8.speedup.base                                     mean C3 speedup over serial
//   fig10.percent_of_ideal.{c3_best,dma,dma_rp_best}
//   fig10.speedup.{base,dma}.all_to_all, fig10.max_speedup.dma_rp_best
//   fig9.dma_over_cu.max_below_32MiB                      largest DMA/CU time ratio below 32 MiB
//   fig9.dma_over_cu.all_gather_from_128MiB               largest all-gather ratio from 128 MiB
//   fig5.default_cus.{all_gather,all_to_all}              the library's own CU count
//   fig6.llc_bw.all_gather_over_all_to_all                LLC bandwidth, all-gather / all-to-all
//   heuristics.rp_correct, heuristics.rp_max_loss_pct     RP heuristic against the CU sweep
// (<op> is all_gather or all_to_all.)
const std::vector<std::string>& paper_value_ids();

// Parses a paper-values document. Throws InputError naming file, line and key for malformed YAML,
// an unknown or duplicate key, an unknown or repeated id, a missing field, or a value that is not a
// finite number (a range's low above its high, a negative precision).
std::vector<PaperValue> load_paper_values_from_string(const std::string& text, const std::string& label);
std::vector<PaperValue> load_paper_values_file(const std::string& path);

// workloads/paper_values.yaml as built into the library.
std::vector<PaperValue> published_paper_values();

// Defined in the generated embedded_paper_values.cpp (build directory): the file's text, verbatim.
std::string_view embedded_paper_values_text();

}  // namespace c3sim::wl
