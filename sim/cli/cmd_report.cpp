// c3sim report RESULTS.jsonl... -o report.html: paper-style charts from measurement records
// (c3sim run / sweep output), the paper JSON (`c3sim paper --format json`) and measured records.

#include "sim/base/input_file.h"
#include "sim/cli/commands.h"
#include "sim/cli/output.h"
#include "sim/report/html_report.h"
#include "sim/report/report_data.h"
#include "workloads/measurement.h"

namespace c3sim::cli {

namespace {

struct ReportArgs {
  std::vector<std::string> results;
  std::vector<std::string> measured;
  std::string paper;
  std::string output;
};

nlohmann::json read_paper(const std::string& path) {
  nlohmann::json j =
      nlohmann::json::parse(read_input_file(path, "--paper"), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw InputError(SourceLocation{path, 0, 0}, "--paper", "not valid JSON");
  if (!j.is_object() || j.value("schema", "") != "c3sim.paper") {
    throw InputError(SourceLocation{path, 1, 1}, "schema",
                     "not a c3sim paper document (c3sim paper --format json)");
  }
  return j;
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  auto* cmd =
      app.add_subcommand("report", "Write a self-contained HTML page of paper-style charts from results");
  cmd->add_option("results", a->results, "Measurement JSONL files (c3sim run or sweep output)");
  cmd->add_option("--measured", a->measured, "Measured JSONL files (c3bench) for predicted-vs-measured");
  cmd->add_option("--paper", a->paper, "Paper JSON (c3sim paper --format json) for Figure 5");
  cmd->add_option("-o,--output", a->output, "Write to FILE instead of stdout");
  cmd->callback([a] {
    std::vector<std::string> inputs = a->results;
    inputs.insert(inputs.end(), a->measured.begin(), a->measured.end());
    inputs.push_back(a->paper);
    check_outputs({{a->output, "-o"}}, inputs);
    report::ReportInputs in;
    for (const auto& f : a->results) {
      for (auto& r : wl::read_measurements(f)) in.predicted.push_back(std::move(r));
      in.sources.push_back(f);
    }
    if (!a->paper.empty()) {
      in.paper = read_paper(a->paper);
      in.sources.push_back(a->paper);
    }
    for (const auto& f : a->measured) {
      for (auto& r : wl::read_measurements(f)) in.measured.push_back(std::move(r));
      in.sources.push_back(f);
    }
    write_outputs({{{a->output, "-o"}, report::render_html(report::build_report_data(in))}}, inputs);
  });
}

}  // namespace c3sim::cli
