#pragma once
// The validation page of a program imported from a trace (`c3sim validate PROGRAM.yaml --report
// page.html`): the predicted and the traced timeline one above the other on one shared time axis, a
// lane per rank and stream, kernels coloured by kind, the same kernel highlighted in both on hover;
// the per-kind error table, the step error and the worst kernels (a click zooms both timelines to
// the kernel). One self-contained HTML file like `c3sim report`'s page (report_css, no network);
// the timelines are drawn on a canvas by web/validation.js, so a step of thousands of kernels
// stays one element per timeline.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace c3sim::report {

// `reports`: models::to_json(TracedKernelReport) of each program, in order. Returns
// {"sources": [...], "programs": [report + {"lanes": [{"rank", "stream", "kernels": [row index in
// "kernels"...]}], "worst_rows": [row index per "worst" entry], "traced_starts": bool}]}: lanes by
// rank, then stream name in natural order ("stream7" before "stream13"); a lane's kernels in
// program order. "traced_starts" is false when any compared kernel has no traced_start_us (a
// program imported without it): the page then draws the predicted timeline only and says so.
nlohmann::json validation_page_data(const nlohmann::json& reports, const std::vector<std::string>& sources);

// The page for `data` as validation_page_data returns it. Same data, same bytes.
std::string render_validation_html(const nlohmann::json& data);

}  // namespace c3sim::report
