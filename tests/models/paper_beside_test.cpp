// The paper's value beside the right figure: each published value is compared with the report's
// quantity of the same name, and the difference reads as the paper states the value (a number, or
// a range with "inside" and the distance to the nearer end).
#include <gtest/gtest.h>

#include <map>

#include "hardware/hardware_loader.h"
#include "models/paper/paper_report.h"

namespace c3sim::models {
namespace {

constexpr std::int64_t kPaperMiB = std::int64_t{1} << 20;

PolicySummary summary(double percent, double speedup = 1.0) {
  PolicySummary s;
  s.mean_percent_of_ideal = percent;
  s.mean_speedup = speedup;
  return s;
}

C3Result run(const std::string& policy, double speedup) {
  C3Result r;
  r.policy = policy;
  r.iso_gemm_us = 60;
  r.iso_coll_us = 40;
  r.total_us = 100 / speedup;
  return r;
}

// Every quantity a distinct value, so a comparison that reads the wrong figure, policy or
// collective shows a wrong number.
PaperReport distinct_report() {
  PaperReport r;
  const std::map<std::string, double> percents = {{"base", 10},    {"sp", 20},         {"prio", 25},
                                                  {"rp_best", 30}, {"sp_rp_best", 35}, {"c3_best", 40},
                                                  {"dma", 50},     {"dma_rp_best", 60}};
  for (const auto& [p, v] : percents) r.summary[p] = summary(v, 1.0 + v / 1000);
  r.by_collective["base"]["all_gather"] = summary(11, 1.011);
  r.by_collective["base"]["all_to_all"] = summary(12, 1.012);
  r.by_collective["sp"]["all_gather"] = summary(40, 1.04);
  r.by_collective["sp"]["all_to_all"] = summary(52, 1.052);
  r.by_collective["dma"]["all_to_all"] = summary(55, 1.5);
  r.by_taxonomy["base"]["G-long"] = summary(99, 1.99);
  r.runs = {run("dma", 1.9), run("dma_rp_best", 1.6), run("dma_rp_best", 1.7), run("base", 1.8)};
  Fig7Row low, high;
  low.ideal = 1.2;
  high.ideal = 1.9;
  r.fig7 = {high, low};
  r.mean_ideal = 1.55;
  r.fig9 = {{wl::CollectiveOp::all_gather, 1 * kPaperMiB, 10, 30},      // 3.0
            {wl::CollectiveOp::all_to_all, 16 * kPaperMiB, 10, 35},     // 3.5: the largest below 32 MiB
            {wl::CollectiveOp::all_to_all, 64 * kPaperMiB, 10, 80},     // 8.0, but not below 32 MiB
            {wl::CollectiveOp::all_gather, 128 * kPaperMiB, 100, 105},  // 1.05: all-gather from 128 MiB
            {wl::CollectiveOp::all_to_all, 128 * kPaperMiB, 100, 200}};
  r.fig5_coll = {{wl::CollectiveOp::all_gather, 512 * kPaperMiB, 48, {}},
                 {wl::CollectiveOp::all_to_all, 512 * kPaperMiB, 40, {}}};
  r.fig6 = {{"cb1", 5, 0}, {"ag_512M", 80, 0}, {"a2a_512M", 100, 0}, {"ag_4G", 90, 0}, {"a2a_4G", 100, 0}};
  r.heuristics.resize(30);
  r.rp_heuristic_correct = 21;
  r.rp_heuristic_max_loss_pct = 3.5;
  return r;
}

TEST(PaperBeside, EachPaperValueSitsBesideItsOwnQuantity) {
  const std::map<std::string, double> expected = {
      {"fig5.default_cus.all_gather", 48},
      {"fig5.default_cus.all_to_all", 40},
      {"fig6.llc_bw.all_gather_over_all_to_all", (0.8 + 0.9) / 2},
      {"fig7.ideal_speedup.mean", 1.55},
      {"fig7.ideal_speedup.min", 1.2},
      {"fig7.ideal_speedup.max", 1.9},
      {"fig8.percent_of_ideal.base", 10},
      {"fig8.percent_of_ideal.base.all_gather", 11},
      {"fig8.percent_of_ideal.base.all_to_all", 12},
      {"fig8.percent_of_ideal.sp", 20},
      {"fig8.percent_of_ideal.sp.all_gather", 40},
      {"fig8.percent_of_ideal.sp.all_to_all", 52},
      {"fig8.percent_of_ideal.rp_best", 30},
      {"fig8.speedup.base", 1.010},
      {"fig10.percent_of_ideal.c3_best", 40},
      {"fig10.percent_of_ideal.dma", 50},
      {"fig10.percent_of_ideal.dma_rp_best", 60},
      {"fig10.speedup.base.all_to_all", 1.012},
      {"fig10.speedup.dma.all_to_all", 1.5},
      {"fig10.max_speedup.dma_rp_best", 1.7},
      {"fig9.dma_over_cu.max_below_32MiB", 3.5},
      {"fig9.dma_over_cu.all_gather_from_128MiB", 1.05},
      {"heuristics.rp_correct", 21},
      {"heuristics.rp_max_loss_pct", 3.5},
  };
  const std::vector<PaperComparison> cmp =
      compare_with_paper(distinct_report(), wl::published_paper_values());
  ASSERT_EQ(cmp.size(), expected.size());
  for (const PaperComparison& c : cmp) {
    ASSERT_TRUE(expected.count(c.paper.id)) << c.paper.id;
    ASSERT_TRUE(c.model.has_value()) << c.paper.id;
    EXPECT_NEAR(*c.model, expected.at(c.paper.id), 1e-9) << c.paper.id;
  }
}

TEST(PaperBeside, DifferenceIsPointsFromAValueAndDistanceFromARange) {
  const std::vector<PaperComparison> cmp =
      compare_with_paper(distinct_report(), wl::published_paper_values());
  auto at = [&](const std::string& id) {
    for (const auto& c : cmp)
      if (c.paper.id == id) return c;
    throw std::runtime_error(id);
  };
  EXPECT_EQ(at("fig8.percent_of_ideal.base").unit, "points");
  EXPECT_DOUBLE_EQ(*at("fig8.percent_of_ideal.base").difference, 10 - 21);             // paper 21
  EXPECT_DOUBLE_EQ(*at("fig10.percent_of_ideal.dma").difference, 50 - 66);             // paper 66
  EXPECT_DOUBLE_EQ(*at("fig8.percent_of_ideal.base.all_gather").difference, 11 - 24);  // below 24-46
  EXPECT_FALSE(at("fig8.percent_of_ideal.base.all_gather").inside());
  EXPECT_DOUBLE_EQ(*at("fig8.percent_of_ideal.sp.all_to_all").difference, 52 - 46);  // above 27-46
  EXPECT_DOUBLE_EQ(*at("fig8.percent_of_ideal.sp.all_gather").difference, 0);        // inside 38-67
  EXPECT_TRUE(at("fig8.percent_of_ideal.sp.all_gather").inside());
  EXPECT_FALSE(at("fig8.percent_of_ideal.sp").inside());  // a single value is never "inside"
  EXPECT_EQ(at("heuristics.rp_correct").unit, "scenarios");
  EXPECT_DOUBLE_EQ(*at("heuristics.rp_correct").difference, 21 - 24);
}

TEST(PaperBeside, FiguresLeftOutHaveNoModelValue) {
  PaperReport r = distinct_report();
  r.fig9.clear();
  r.heuristics.clear();
  for (const PaperComparison& c : compare_with_paper(r, wl::published_paper_values())) {
    const bool left_out = c.paper.id.rfind("fig9.", 0) == 0 || c.paper.id.rfind("heuristics.", 0) == 0;
    EXPECT_EQ(c.model.has_value(), !left_out) << c.paper.id;
    EXPECT_EQ(c.difference.has_value(), !left_out) << c.paper.id;
  }
}

TEST(PaperBeside, EveryIdHasAUnit) {
  for (const std::string& id : wl::paper_value_ids()) EXPECT_FALSE(paper_value_unit(id).empty()) << id;
  EXPECT_THROW((void)paper_value_unit("fig8.percent_of_ideal.prio"), ModelError);
}

TEST(PaperBeside, ReportNamesItsHardwareFileAndCarriesThePaperValues) {
  PaperOptions isolated;
  isolated.figures_c3 = false;
  isolated.figure9 = false;
  const PaperReport r = make_paper_report(hw::load_hardware("mi300x"), isolated);
  EXPECT_EQ(r.hardware_file, "hardware/presets/mi300x.yaml");
  EXPECT_TRUE(r.hardware_is_preset);
  EXPECT_EQ(r.paper_values.size(), wl::published_paper_values().size());
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j.at("hardware_file"), "hardware/presets/mi300x.yaml");
  EXPECT_EQ(j.at("hardware_source"), "preset");
  for (const auto& v : j.at("paper_values")) {
    const std::string id = v.at("id");
    const bool computed = id.rfind("fig5.", 0) == 0 || id.rfind("fig6.", 0) == 0 || id.rfind("fig7.", 0) == 0;
    EXPECT_EQ(v.at("model").is_number(), computed) << id;
    EXPECT_FALSE(v.at("figure").get<std::string>().empty()) << id;
    EXPECT_FALSE(v.at("quote").get<std::string>().empty()) << id;
  }
}

}  // namespace
}  // namespace c3sim::models
