#pragma once
// What `c3sim report` plots, extracted from measurement JSONL records (predicted: c3sim run or
// sweep output; measured: c3bench output) and optionally the paper JSON (`c3sim paper --format
// json`). The result is one JSON document the page's script turns into charts; a chart whose
// data is absent is left out, and the document lists the charts it expects to draw.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/measurement.h"

namespace c3sim::report {

struct ReportInputs {
  std::vector<wl::Record> predicted;
  std::vector<wl::Record> measured;
  std::optional<nlohmann::json> paper;  // c3sim.paper document
  std::vector<std::string> sources;     // file names, shown on the page
};

// Throws InputError when there is nothing to plot (no c3 or program records and no paper document).
nlohmann::json build_report_data(const ReportInputs& in);

}  // namespace c3sim::report
