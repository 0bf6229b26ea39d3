// c3sim report: a self-contained page, and every chart drawn when headless Chromium renders it
// (the page's script counts canvases with ink into <body data-charts-drawn>).
#include <string>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

// The value of `name="..."` in an HTML dump, or "" when absent. (Plain search, not <regex>: GCC 12's
// regex trips -Wmaybe-uninitialized in the sanitizer build.)
std::string attribute(const std::string& html, const std::string& name) {
  const std::string key = name + "=\"";
  const size_t at = html.find(key);
  if (at == std::string::npos) return "";
  const size_t from = at + key.size();
  const size_t to = html.find('"', from);
  return to == std::string::npos ? "" : html.substr(from, to - from);
}

class ReportCli : public ScratchDir {
protected:
  // Predicted records for a few scenarios with attribution, the isolated-figures paper JSON, and
  // "measured" records (the predictions themselves, standing in for c3bench output).
  std::string make_report() {
    const std::string scen = write("s.yaml",
                                   "scenarios:\n  - catalog: cb1_896M\n  - catalog: mb1_896M_ag\n"
                                   "    policies: [base, sp, dma]\n");
    auto r = run_command(c3sim_binary() + " run " + scen + " --policy base,sp,dma -o " + path("pred.jsonl") +
                         " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    r = run_command(c3sim_binary() + " paper --only isolated --format json -o " + path("paper.json") +
                    " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    r = run_command(c3sim_binary() + " report " + path("pred.jsonl") + " --paper " + path("paper.json") +
                    " --measured " + path("pred.jsonl") + " -o " + path("report.html") + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return read_file(path("report.html"));
  }

  // Writes `yaml` as NAME.yaml, sweeps it to NAME.jsonl and reports that as NAME.html; false (with
  // the failing command's output) when either command fails.
  [[nodiscard]] bool sweep_and_report(const std::string& name, const std::string& yaml) {
    const std::string sweep = write(name + ".yaml", yaml);
    auto r = run_command(c3sim_binary() + " sweep " + sweep + " -q -o " + path(name + ".jsonl") + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (r.exit_code != 0) return false;
    r = run_command(c3sim_binary() + " report " + path(name + ".jsonl") + " -o " + path(name + ".html") +
                    " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.exit_code == 0;
  }

  // The first headless-capable browser on PATH, or "" when there is none.
  static std::string chromium() {
    for (const char* b : {"chromium", "chromium-browser", "google-chrome"}) {
      if (have_tool(b)) return b;
    }
    return "";
  }

  // The page's DOM after its load event (charts drawn), as headless Chromium dumps it.
  std::string dump_dom(const std::string& browser, const std::string& page) {
    const auto r = run_command("timeout 120 " + browser +
                               " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                               "--disable-background-networking --disable-component-update --disable-sync "
                               "--user-data-dir=" +
                               path("profile") + " --dump-dom file://" + path(page) + " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << r.output.substr(0, 500);
    return r.output;
  }
};

TEST_F(ReportCli, PageIsSelfContained) {
  const std::string html = make_report();
  ASSERT_FALSE(html.empty());
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("sourceMappingURL"), std::string::npos);
  EXPECT_NE(html.find("Chart.js v4"), std::string::npos);  // the bundled library's banner
  // Scenario records only: the page explains its speedups and says nothing of program steps.
  EXPECT_NE(html.find("Speedups are over serial"), std::string::npos);
  EXPECT_EQ(html.find("Program step times"), std::string::npos);
}

TEST_F(ReportCli, EveryChartDrawsInHeadlessChromium) {
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "no chromium on PATH (Debian: chromium); CI installs it";
  make_report();
  const std::string dom = dump_dom(browser, "report.html");
  const std::string expected = attribute(dom, "data-charts-expected");
  ASSERT_FALSE(expected.empty()) << dom.substr(0, 2000);
  // Fig. 5 GEMM + collective, speedup, taxonomy, two attribution charts, predicted vs measured.
  EXPECT_EQ(expected, "7");
  EXPECT_EQ(attribute(dom, "data-charts-drawn"), expected);
}

// A sweep of more variants than get one bar each (5 engine counts x 5 sizes = 25) is drawn as
// the two heatmaps, variant x size, by the page's own canvas code.
TEST_F(ReportCli, ManyVariantSweepDrawsTheHeatmaps) {
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "no chromium on PATH (Debian: chromium); CI installs it";
  ASSERT_TRUE(sweep_and_report("sweep",
                               "hardware: mi300x\nscenarios: [cb1_896M_ag]\npolicies: [sp, dma]\n"
                               "grid:\n  spec.dma.engines: [7, 8, 10, 12, 14]\n"
                               "  workload.collective.bytes: [1 MiB, 4 MiB, 16 MiB, 64 MiB, 256 MiB]\n"));
  const std::string dom = dump_dom(browser, "sweep.html");
  EXPECT_EQ(attribute(dom, "data-charts-expected"), "2") << dom.substr(0, 2000);
  EXPECT_EQ(attribute(dom, "data-charts-drawn"), "2");
}

// A program-only sweep (the FSDP study's kind) writes no c3 records: the report draws the step
// time per variant and policy instead of failing with "nothing to plot".
TEST_F(ReportCli, ProgramSweepDrawsTheStepTimes) {
  ASSERT_TRUE(sweep_and_report("fsdp",
                               "hardware: mi300x\nprograms:\n  - {generate: fsdp-layer, model: llama-70b}\n"
                               "policies: [sp, dma]\nvariants:\n  - {name: host_preset}\n"
                               "  - {name: reduce_64, spec.dma.reduce_bandwidth: 64 GB/s}\n"));
  const std::string html = read_file(path("fsdp.html"));
  EXPECT_NE(html.find("id=\"program-steps\""), std::string::npos);
  // The page explains step times and their ideal, not the pair speedups it does not show.
  EXPECT_NE(html.find("Program step times"), std::string::npos);
  EXPECT_EQ(html.find("Speedups are over serial"), std::string::npos);
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "no chromium on PATH (Debian: chromium); CI installs it";
  const std::string dom = dump_dom(browser, "fsdp.html");
  EXPECT_EQ(attribute(dom, "data-charts-expected"), "1") << dom.substr(0, 2000);
  EXPECT_EQ(attribute(dom, "data-charts-drawn"), "1");
}

}  // namespace
}  // namespace c3sim::testing
