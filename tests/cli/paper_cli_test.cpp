// c3sim paper prints the paper's published value beside each figure it reproduces, and names the
// hardware file it ran.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

// The line of `text` that starts with `start` (after leading blanks), at or after `from`; "" if none.
std::string line_starting(const std::string& text, const std::string& start, size_t from = 0) {
  size_t at = from;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    const size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, start.size(), start) == 0) return line;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

class PaperCli : public ScratchDir {};

TEST_F(PaperCli, PaperValuesStandBesideTheirFigures) {
  const auto r = run_command(c3sim_binary() + " paper 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string& out = r.output;
  EXPECT_NE(out.find("hardware file: hardware/presets/mi300x.yaml (built-in preset)"), std::string::npos);
  // Each figure's block of paper values comes after that figure's table and before the next one.
  const size_t fig7 = out.find("Figure 7:");
  const size_t fig8 = out.find("Figures 8 and 10:");
  const size_t beside8 = out.find("The paper beside Figures 8 and 10");
  const size_t fig9 = out.find("Figure 9:");
  const size_t beside9 = out.find("The paper beside Figure 9");
  const size_t heur = out.find("Heuristics (");
  const size_t beside_heur = out.find("The paper beside the heuristics");
  ASSERT_NE(beside8, std::string::npos);
  EXPECT_LT(fig7, fig8);
  EXPECT_LT(fig8, beside8);
  EXPECT_LT(beside8, fig9);
  EXPECT_LT(fig9, beside9);
  EXPECT_LT(beside9, heur);
  EXPECT_LT(heur, beside_heur);
  // The headline table carries the paper's % of ideal on each policy's own row.
  const std::string base = line_starting(out, "base ", fig8);
  const std::string dma = line_starting(out, "dma ", fig8);
  EXPECT_NE(base.find(" 21% "), std::string::npos) << base;
  EXPECT_NE(dma.find(" 66% "), std::string::npos) << dma;
  EXPECT_NE(line_starting(out, "dma_rp_best ", fig8).find(" 72% "), std::string::npos);
  // A range shows as a range, in its figure's block.
  const std::string ag = line_starting(out, "fig8.percent_of_ideal.base.all_gather", beside8);
  EXPECT_NE(ag.find("24-46%"), std::string::npos) << ag;
  EXPECT_NE(ag.find("Fig. 8, IV-C"), std::string::npos) << ag;
  EXPECT_NE(line_starting(out, "fig9.dma_over_cu.max_below_32MiB", beside9).find(" 4 "), std::string::npos);
}

TEST_F(PaperCli, JsonCarriesPaperValueDifferenceAndSource) {
  const std::string file = write("node.yaml", "extends: mi300x\n");
  const auto r =
      run_command(c3sim_binary() + " paper --only dma --format json --hardware " + file + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j.at("hardware_file"), file);
  EXPECT_EQ(j.at("hardware_source"), "file");
  bool saw = false;
  for (const auto& v : j.at("paper_values")) {
    if (v.at("id") != "fig9.dma_over_cu.max_below_32MiB") continue;
    saw = true;
    EXPECT_EQ(v.at("figure"), "Fig. 9");
    EXPECT_EQ(v.at("paper_low"), 4);
    EXPECT_EQ(v.at("read"), "stated");
    EXPECT_NEAR(v.at("difference").get<double>(), v.at("model").get<double>() - 4, 1e-12);
  }
  EXPECT_TRUE(saw);
}

}  // namespace
}  // namespace c3sim::testing
