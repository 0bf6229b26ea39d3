#pragma once
// The paper's published values as `c3sim paper` prints them beside each figure: a table of the
// comparisons whose ids start with one of a figure's prefixes, and the cells for one id.
#include <string>
#include <vector>

#include "models/paper/paper_beside.h"

namespace c3sim::cli {

// "Paper beside <title>" and a table (quantity, model, paper, difference, source) of the comparisons
// whose id starts with one of `prefixes` ("fig8."); empty when none does.
std::string paper_beside_table(const std::vector<models::PaperComparison>& comparisons,
                               const std::vector<std::string>& prefixes, const std::string& title);

// The paper's value ("21%", "24-46%", "1.13x") and the difference ("+17.1 points", "inside") for one
// id, or "-" and "-" when no comparison has it.
struct PaperCells {
  std::string paper = "-";
  std::string difference = "-";
};
PaperCells paper_cells(const std::vector<models::PaperComparison>& comparisons, const std::string& id);

}  // namespace c3sim::cli
