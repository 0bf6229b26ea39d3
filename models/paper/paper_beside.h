#pragma once
// The paper's published value beside each figure the report reproduces: for every entry of
// workloads/paper_values.yaml, the model's value of the same quantity and the difference.
#include <optional>
#include <string>
#include <vector>

#include "workloads/paper_values.h"

namespace c3sim::models {

struct PaperReport;

struct PaperComparison {
  wl::PaperValue paper;
  std::string unit;             // "points" (% of ideal), "x" (speedup), "ratio", "CUs", "scenarios", "%"
  std::optional<double> model;  // absent when the report left that figure out (--only)
  // model - paper for a single value; for a range 0 inside it, else the signed distance to the nearer
  // end (negative below the range). Absent with the model's value.
  std::optional<double> difference;
  [[nodiscard]] bool inside() const { return paper.is_range() && difference && *difference == 0; }
};

// One comparison per paper value, in the values' order. Throws ModelError for an id the report has
// no quantity for (paper_value_ids() and this file's table disagree: a bug, not bad input).
std::vector<PaperComparison> compare_with_paper(const PaperReport& report,
                                                const std::vector<wl::PaperValue>& values);

// The unit of a paper value's id ("points" for fig8.percent_of_ideal.*); ModelError for an unknown id.
std::string paper_value_unit(const std::string& id);

// Signed difference of `model` from a paper value: model - value, or for a range 0 inside it and the
// distance to the nearer end outside.
double difference_from_paper(double model, const wl::PaperValue& paper);

}  // namespace c3sim::models
