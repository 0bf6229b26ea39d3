// The validation page's data (sim/report/validation_page.h) from a hand-made validate report: lanes
// by rank then stream in natural order, a lane's kernels in program order, the worst kernels
// pointing at their rows, traced starts only when every row has one, and HTML-escaped text.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/report/validation_page.h"

namespace c3sim::report {
namespace {

using nlohmann::json;

json row(const std::string& kernel, int rank, const std::string& stream, bool start = true) {
  json r{{"kernel", kernel},     {"kind", "gemm"},    {"what", "<b>"},
         {"rank", rank},         {"stream", stream},  {"traced_us", 10.0},
         {"predicted_us", 11.0}, {"pct_error", 10.0}, {"predicted_start_us", 0.0}};
  if (start) r["traced_start_us"] = 0.0;
  return r;
}

json report(const json& rows, const json& worst) {
  return {{"program", "p"},
          {"hardware", "h200-sxm"},
          {"policy", "base"},
          {"traced_step_us", 100.0},
          {"predicted_step_us", 110.0},
          {"step_pct_error", 10.0},
          {"kinds", json::array()},
          {"worst", worst},
          {"kernels", rows},
          {"kernels_without_traced_us", 0}};
}

TEST(ValidationPageData, LanesByRankThenStreamInNaturalOrder) {
  const json rows = json::array({row("a", 0, "stream13"), row("b", 0, "stream7"), row("c", 1, "stream7"),
                                 row("d", 0, "stream13"), row("e", 0, "stream013x")});
  const json data =
      validation_page_data(json::array({report(rows, json::array({rows[3], rows[2]}))}), {"p.yaml"});
  const json& p = data["programs"][0];
  ASSERT_EQ(p["lanes"].size(), 4U);
  EXPECT_EQ(p["lanes"][0]["stream"], "stream7");  // 7 < 13, as numbers
  EXPECT_EQ(p["lanes"][1]["stream"], "stream13");
  EXPECT_EQ(p["lanes"][1]["kernels"], json::parse("[0, 3]"));
  EXPECT_EQ(p["lanes"][2]["stream"], "stream013x");  // 13 = 013, then "" < "x"
  EXPECT_EQ(p["lanes"][3]["rank"], 1);
  EXPECT_EQ(p["worst_rows"], json::parse("[3, 2]"));
  EXPECT_TRUE(p["traced_starts"].get<bool>());
  EXPECT_EQ(data["sources"], json::parse(R"(["p.yaml"])"));
}

TEST(ValidationPageData, OneRowWithoutATracedStartDrawsNoTracedTimeline) {
  const json rows = json::array({row("a", 0, "s"), row("b", 0, "s", false)});
  const json data = validation_page_data(json::array({report(rows, json::array())}), {});
  EXPECT_FALSE(data["programs"][0]["traced_starts"].get<bool>());
}

TEST(ValidationPageData, TextIsEscapedAndTheDataCannotCloseItsScript) {
  json rows = json::array({row("</script><b>", 0, "s")});
  const std::string html =
      render_validation_html(validation_page_data(json::array({report(rows, rows)}), {"a&b.yaml"}));
  EXPECT_EQ(html.find("</script><b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;b&gt;"), std::string::npos);  // the worst table's cell
  EXPECT_NE(html.find("From a&amp;b.yaml."), std::string::npos);
}

}  // namespace
}  // namespace c3sim::report
