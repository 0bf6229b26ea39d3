#pragma once
// A slowdown attribution object (a c3 record's per-kernel entry, a program record kernel's
// "attribution": models/program/attribution.h) summed by cause, for the report's stacked charts.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace c3sim::report {

// The causes every chart starts with, in stacking order; "<group> bandwidth" ones follow as seen.
std::vector<std::string> fixed_causes();

// Adds `attribution`'s parts into `sum` by cause; a bandwidth group not yet in `causes` is
// appended. Absent or non-numeric fields count as 0.
void add_causes(const nlohmann::json& attribution, std::map<std::string, double>& sum,
                std::vector<std::string>& causes);

}  // namespace c3sim::report
