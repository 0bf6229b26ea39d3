#pragma once
// The report page: one HTML file with the data, Chart.js and the chart script inline, so it
// opens from disk, a mail attachment or a CI artifact with no network.
#include <string>

#include <nlohmann/json.hpp>

namespace c3sim::report {

// `data` as build_report_data returns it.
std::string render_html(const nlohmann::json& data);

}  // namespace c3sim::report
