#include "sim/report/validation_page.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "sim/base/errors.h"
#include "sim/report/html_text.h"
#include "sim/report/report_assets.h"

namespace c3sim::report {

namespace {

// Natural order of stream names: runs of digits compare as numbers, so "stream7" < "stream13".
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])) != 0) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])) != 0) ++ej;
      // Without leading zeros the shorter run is the smaller number.
      std::size_t si = i, sj = j;
      while (si + 1 < ei && a[si] == '0') ++si;
      while (sj + 1 < ej && b[sj] == '0') ++sj;
      if (ei - si != ej - sj) return ei - si < ej - sj;
      const int c = a.compare(si, ei - si, b, sj, ej - sj);
      if (c != 0) return c < 0;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // equal up to leading zeros: any fixed order
}

nlohmann::json program_page(const nlohmann::json& report) {
  nlohmann::json out = report;
  const nlohmann::json& rows = report.at("kernels");
  // (rank, stream) -> row indices in program order.
  std::vector<std::pair<std::pair<int, std::string>, std::vector<std::size_t>>> lanes;
  std::map<std::pair<int, std::string>, std::size_t> lane_of;
  std::map<std::pair<int, std::string>, std::size_t> row_of;  // (rank, kernel) -> row
  bool traced_starts = !rows.empty();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json& row = rows[i];
    std::pair<int, std::string> key{row.at("rank").get<int>(), row.at("stream").get<std::string>()};
    auto [it, added] = lane_of.emplace(key, lanes.size());
    if (added) lanes.push_back({key, {}});
    lanes[it->second].second.push_back(i);
    row_of[{key.first, row.at("kernel").get<std::string>()}] = i;
    if (!row.contains("traced_start_us")) traced_starts = false;
  }
  std::stable_sort(lanes.begin(), lanes.end(), [](const auto& a, const auto& b) {
    if (a.first.first != b.first.first) return a.first.first < b.first.first;
    return natural_less(a.first.second, b.first.second);
  });
  nlohmann::json lane_json = nlohmann::json::array();
  for (const auto& [key, kernels] : lanes)
    lane_json.push_back({{"rank", key.first}, {"stream", key.second}, {"kernels", kernels}});
  nlohmann::json worst_rows = nlohmann::json::array();
  for (const nlohmann::json& w : report.at("worst")) {
    const auto it = row_of.find({w.at("rank").get<int>(), w.at("kernel").get<std::string>()});
    if (it == row_of.end())
      throw ModelError("validation page: a worst kernel that is not a row: " + w.dump());
    worst_rows.push_back(it->second);
  }
  out["lanes"] = std::move(lane_json);
  out["worst_rows"] = std::move(worst_rows);
  out["traced_starts"] = traced_starts;
  return out;
}

std::string number(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }
std::string signed_number(double v, int digits) { return fmt::format("{:+.{}f}", v, digits); }

std::string kind_table(const nlohmann::json& p) {
  std::string out =
      "<table class=\"kinds\"><caption>Error per kind (duration, first workgroup to end)</caption>\n"
      "<tr><th>kind</th><th>kernels</th><th>MAE %</th><th>signed mean %</th><th>traced us</th>"
      "<th>predicted us</th></tr>\n";
  for (const nlohmann::json& k : p.at("kinds")) {
    const std::string kind = k.at("kind").get<std::string>();
    out += fmt::format(
        "<tr><td><span class=\"swatch kind-{}\"></span>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td></tr>\n",
        kind, kind, kind == "measured" ? " (traced time copied in)" : "", k.at("kernels").get<int>(),
        number(k.at("mean_abs_pct_error").get<double>(), 2),
        signed_number(k.at("mean_pct_error").get<double>(), 2), number(k.at("traced_us").get<double>(), 1),
        number(k.at("predicted_us").get<double>(), 1));
  }
  return out + "</table>\n";
}

std::string worst_table(const nlohmann::json& p, bool ranks) {
  std::string out = fmt::format(
      "<table class=\"worst\"><caption>The {} worst modelled kernels (click one: both timelines zoom to "
      "it)</caption>\n<tr><th>kernel</th><th>kind</th><th>what</th><th>traced us</th><th>predicted us</th>"
      "<th>error %</th></tr>\n",
      p.at("worst").size());
  const nlohmann::json& rows = p.at("worst_rows");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json& w = p.at("worst")[i];
    const std::string name = (ranks ? fmt::format("r{}:", w.at("rank").get<int>()) : std::string()) +
                             w.at("kernel").get<std::string>();
    out += fmt::format(
        "<tr data-row=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        rows[i].get<std::size_t>(), html_escape(name), html_escape(w.at("kind").get<std::string>()),
        html_escape(w.at("what").get<std::string>()), number(w.at("traced_us").get<double>(), 1),
        number(w.at("predicted_us").get<double>(), 1), signed_number(w.at("pct_error").get<double>(), 2));
  }
  return out + "</table>\n";
}

std::string program_section(const nlohmann::json& p, std::size_t index) {
  const nlohmann::json& rows = p.at("kernels");
  const bool ranks =
      std::any_of(rows.begin(), rows.end(), [](const nlohmann::json& r) { return r.at("rank") != 0; });
  const bool starts = p.at("traced_starts").get<bool>();
  const std::string note =
      starts
          ? ""
          : "<p class=\"note\">This program has no traced start times (<code>traced_start_us</code>; import "
            "the trace again to get them): only the predicted timeline is drawn, and the traced durations "
            "are compared in the tables.</p>\n";
  const int without = p.value("kernels_without_traced_us", 0);
  return fmt::format(
      "<section class=\"validation\" id=\"program-{}\">\n<h2>{} on {} ({})</h2>\n"
      "<p class=\"step\">Step: traced {} us, predicted {} us, error {}%. {} kernels compared{}.</p>\n{}"
      "<p class=\"meta\">{}Each rank's times are from the start of its first kernel. Mouse wheel: zoom; "
      "drag: pan; double-click: whole step.</p>\n"
      "<div class=\"timeline\"><canvas id=\"timeline-{}\" width=\"1300\" height=\"200\"></canvas>"
      "<div class=\"tip\" hidden></div></div>\n<div class=\"pair\">\n{}{}</div>\n</section>\n",
      index, html_escape(p.at("program").get<std::string>()),
      html_escape(p.at("hardware").get<std::string>()), html_escape(p.at("policy").get<std::string>()),
      number(p.at("traced_step_us").get<double>(), 1), number(p.at("predicted_step_us").get<double>(), 1),
      signed_number(p.at("step_pct_error").get<double>(), 2), rows.size(),
      without > 0 ? fmt::format(" ({} without traced_us left out)", without) : "", note,
      starts ? "Above: predicted; below: traced. " : "", index, kind_table(p),
      p.at("worst").empty() ? "" : worst_table(p, ranks));
}

}  // namespace

nlohmann::json validation_page_data(const nlohmann::json& reports, const std::vector<std::string>& sources) {
  nlohmann::json programs = nlohmann::json::array();
  for (const nlohmann::json& r : reports) programs.push_back(program_page(r));
  return {{"sources", sources}, {"programs", std::move(programs)}};
}

std::string render_validation_html(const nlohmann::json& data) {
  std::string sections;
  const nlohmann::json& programs = data.at("programs");
  for (std::size_t i = 0; i < programs.size(); ++i) sections += program_section(programs[i], i);
  const std::string sources = html_source_list(data);
  return fmt::format(
      R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>c3sim validation: predicted and traced timelines</title>
<style>
{}</style>
</head>
<body>
<h1>c3sim validation: predicted and traced timelines</h1>
<p class="meta">From {}.</p>
<p id="chart-status">timelines not drawn (JavaScript disabled?)</p>
{}<script>window.C3SIM_VALIDATION = {};</script>
<script>
{}</script>
</body>
</html>
)",
      report_css(), sources, sections, script_safe(data.dump()), validation_js());
}

}  // namespace c3sim::report
