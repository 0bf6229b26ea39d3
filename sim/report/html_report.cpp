#include "sim/report/html_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/report/html_text.h"
#include "sim/report/report_assets.h"

namespace c3sim::report {

namespace {

struct ChartSlot {
  const char* id;
  const char* heading;
  int width;
  int height;
};

// Page order follows the paper: isolated behaviour, C3 speedups, why, then checks and what-ifs.
constexpr ChartSlot kSlots[] = {
    {"fig5-gemm", "Isolated GEMMs: fewer CUs", 640, 380},
    {"fig5-coll", "Isolated collectives: CUs assigned", 640, 380},
    {"speedup", "C3 speedup per scenario", 1300, 480},
    {"taxonomy", "Percent of ideal by taxonomy", 900, 380},
    {"attr-gemm", "Where the GEMM's slowdown comes from", 640, 400},
    {"attr-coll", "Where the collective's slowdown comes from", 640, 400},
    {"scatter", "Model check: predicted vs measured", 700, 560},
    {"sweep", "Design-space sweep: DMA offload", 1300, 520},
    // The heatmaps size their canvas to the grid.
    {"sweep-gain", "Design-space sweep: what each variant buys", 700, 400},
    {"sweep-offload", "Design-space sweep: where DMA offload beats the CUs", 700, 400},
    {"program-steps", "Programs: step time per variant and policy", 1300, 520},
    {"prog-attr-gemm", "Programs: where the GEMMs' slowdown comes from", 640, 400},
    {"prog-attr-other", "Programs: where the other kernels' slowdown comes from", 640, 400},
};

}  // namespace

std::string render_html(const nlohmann::json& data) {
  std::string sections;
  const auto& charts = data.at("charts");
  auto wanted = [&](const char* id) {
    for (const auto& c : charts) {
      if (c.get<std::string>() == id) return true;
    }
    return false;
  };
  for (const auto& s : kSlots) {
    if (!wanted(s.id)) continue;
    sections +=
        fmt::format("<section><h2>{}</h2><canvas id=\"{}\" width=\"{}\" height=\"{}\"></canvas></section>\n",
                    s.heading, s.id, s.width, s.height);
  }
  // Say what the numbers on the page are over: scenario charts show speedups over serial execution,
  // the program chart step times beside the no-interference critical path. A page holding only
  // programs must not explain speedups it does not show.
  const bool only_programs = std::all_of(charts.begin(), charts.end(), [](const nlohmann::json& c) {
    const std::string id = c.get<std::string>();
    return id == "program-steps" || id.rfind("prog-attr-", 0) == 0;
  });
  std::string meaning;
  if (!only_programs) {
    meaning +=
        " Speedups are over serial execution (isolated GEMM + isolated collective); ideal = serial / max of "
        "the "
        "isolated times.";
  }
  if (wanted("program-steps")) {
    meaning +=
        " Program step times are simulated per policy; ideal = the step's critical path with every kernel at "
        "its "
        "isolated time.";
  }
  const std::string sources = html_source_list(data);
  return fmt::format(
      R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>c3sim report{}</title>
<style>
{}</style>
</head>
<body>
<h1>c3sim report{}</h1>
<p class="meta">From {}.{}</p>
<p id="chart-status">charts not drawn (JavaScript disabled?)</p>
{}<script>
{}</script>
<script>window.C3SIM_DATA = {};</script>
<script>
{}</script>
</body>
</html>
)",
      data.value("hardware", "").empty() ? "" : " - " + html_escape(data.value("hardware", "")), report_css(),
      data.value("hardware", "").empty() ? "" : ": " + html_escape(data.value("hardware", "")),
      sources.empty() ? "the given records" : sources, meaning, sections, chart_js(),
      script_safe(data.dump()), report_js());
}

}  // namespace c3sim::report
