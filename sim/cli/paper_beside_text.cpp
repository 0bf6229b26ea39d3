#include "sim/cli/paper_beside_text.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/cli/output.h"

namespace c3sim::cli {

namespace {

// Printed after a number of this unit; "points" and "%" values print as percent.
std::string suffix(const std::string& unit) {
  if (unit == "points" || unit == "%") return "%";
  if (unit == "x") return "x";
  return "";
}

std::string model_cell(const models::PaperComparison& c) {
  if (!c.model) return "-";
  if (c.unit == "CUs" || c.unit == "scenarios") return fmt::format("{:.0f}", *c.model);
  if (c.unit == "x") return fmt::format("{:.3f}x", *c.model);
  if (c.unit == "ratio") return fmt::format("{:.2f}", *c.model);
  return fmt::format("{:.1f}%", *c.model);
}

std::string paper_cell(const models::PaperComparison& c) {
  const std::string s = suffix(c.unit);
  if (c.paper.is_range()) return fmt::format("{:g}-{:g}{}", c.paper.low, c.paper.high, s);
  return fmt::format("{:g}{}", c.paper.low, s);
}

// The difference in the paper's unit: points of % of ideal, speedup, ratio, CUs, scenarios.
std::string difference_cell(const models::PaperComparison& c) {
  if (!c.difference) return "not computed";
  if (c.inside()) return "inside";
  const double d = *c.difference;
  std::string out;
  if (c.unit == "points" || c.unit == "%")
    out = fmt::format("{:+.1f} points", d);
  else if (c.unit == "x")
    out = fmt::format("{:+.3f}x", d);
  else if (c.unit == "ratio")
    out = fmt::format("{:+.2f}", d);
  else
    out = fmt::format("{:+.0f} {}", d, c.unit);
  if (c.paper.is_range()) out += d < 0 ? " below" : " above";
  return out;
}

std::string source_cell(const models::PaperComparison& c) {
  // "Section V-C" already names its section; "Fig. 8" gets ", IV-C".
  const std::string where = c.paper.figure.find(c.paper.section) != std::string::npos
                                ? c.paper.figure
                                : fmt::format("{}, {}", c.paper.figure, c.paper.section);
  return c.paper.read == wl::PaperValueRead::stated ? where : where + " (read off the figure)";
}

bool starts_with_any(const std::string& id, const std::vector<std::string>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return id.rfind(p, 0) == 0; });
}

}  // namespace

std::string paper_beside_table(const std::vector<models::PaperComparison>& comparisons,
                               const std::vector<std::string>& prefixes, const std::string& title) {
  TextTable t({"quantity", "model", "paper", "difference", "paper's source"});
  bool any = false;
  for (const auto& c : comparisons) {
    if (!starts_with_any(c.paper.id, prefixes)) continue;
    t.add({c.paper.id, model_cell(c), paper_cell(c), difference_cell(c), source_cell(c)});
    any = true;
  }
  return any ? fmt::format("The paper beside {}\n{}", title, t.render()) : std::string();
}

PaperCells paper_cells(const std::vector<models::PaperComparison>& comparisons, const std::string& id) {
  for (const auto& c : comparisons) {
    if (c.paper.id == id) return PaperCells{paper_cell(c), difference_cell(c)};
  }
  return {};
}

}  // namespace c3sim::cli
