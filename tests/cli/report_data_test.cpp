// c3sim report's chart data for sweep and program output: a few variants keep one bar group each; many are
// aggregated into the variant x grid-value heatmaps (sim/report/sweep_heatmaps.h). Records are
// built by hand so every expected cell is derived below.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/base/errors.h"
#include "sim/report/report_data.h"

namespace c3sim::report {
namespace {

using nlohmann::json;

// Sweep records laid out as a sweep file writes them: variant index = row x columns + column.
class SweepRecords {
public:
  // time_us doubles as the speedup (serial 100 us) for the bar chart's path.
  void add(int index, const std::string& name, const json& settings, const std::string& scenario,
           const std::string& policy, const std::string& impl, double time_us) {
    wl::C3Record c;
    c.scenario = scenario;
    c.policy = policy;
    c.impl = impl;
    c.time_us = time_us;
    c.speedup = 100.0 / time_us;
    c.extra["variant"] = {{"index", index}, {"name", name}, {"settings", settings}};
    records_.emplace_back(c);
  }
  // Both scenarios under sp and dma at the same time: offload ratio 1, no wins.
  void add_even(int index, const std::string& name, const json& settings) {
    for (const char* s : {"s1", "s2"}) {
      add(index, name, settings, s, "sp", "cu", 100);
      add(index, name, settings, s, "dma", "dma", 100);
    }
  }
  [[nodiscard]] json report() const {
    ReportInputs in;
    in.predicted = records_;
    in.sources = {"sweep.jsonl"};
    return build_report_data(in);
  }

private:
  std::vector<wl::Record> records_;
};

json sizes(const std::string& bytes) { return {{"workload.collective.bytes", bytes}}; }

// 13 named rows x 2 sizes = 26 variants, more than the 24 that still get bars.
SweepRecords large_sweep() {
  SweepRecords r;
  const std::vector<std::string> columns{"1 MiB", "2 MiB"};
  for (int row = 0; row < 13; ++row) {
    const std::string name = fmt::format("r{}", row);
    for (int col = 0; col < 2; ++col) {
      const int index = row * 2 + col;
      json settings = sizes(columns[col]);
      if (row > 0) settings["model.dma.prelaunched"] = std::to_string(row);
      if (row == 0 && col == 0) {
        r.add(index, name, settings, "s1", "sp", "cu", 100);
        r.add(index, name, settings, "s1", "dma", "dma", 50);
        r.add(index, name, settings, "s2", "sp", "cu", 100);
        r.add(index, name, settings, "s2", "dma", "dma", 200);
      } else if (row == 1 && col == 0) {
        r.add(index, name, settings, "s1", "sp", "cu", 100);
        r.add(index, name, settings, "s1", "base", "cu", 120);  // the best CU policy is sp
        r.add(index, name, settings, "s1", "dma", "dma", 25);
        r.add(index, name, settings, "s2", "sp", "cu", 100);
        r.add(index, name, settings, "s2", "dma", "dma", 400);
        r.add(index, name, settings, "s2", "hybrid_ar", "dma_hybrid", 100);  // the best engine policy
      } else if (row == 12 && col == 1) {
        r.add(index, name, settings, "s1", "sp", "cu", 100);  // no engine policy ran
      } else {
        r.add_even(index, name, settings);
      }
    }
  }
  return r;
}

TEST(ReportSweepData, ManyVariantsAggregateIntoVariantBySizeHeatmaps) {
  const json d = large_sweep().report();
  EXPECT_FALSE(d.contains("sweep"));
  EXPECT_EQ(d["charts"], json({"sweep-gain", "sweep-offload"}));
  const json& h = d["sweep_heatmaps"];
  ASSERT_EQ(h["rows"].size(), 13U);
  EXPECT_EQ(h["rows"][0], "r0");
  EXPECT_EQ(h["rows"][12], "r12");
  EXPECT_EQ(h["columns"], json({"1 MiB", "2 MiB"}));
  // The only key every variant sets is the size; the rows' prelaunched differs but r0 lacks it.
  EXPECT_EQ(h["column_title"], "workload.collective.bytes");
  EXPECT_EQ(h["baseline"], "r0");
  const json& o = h["offload"];
  // r0 at 1 MiB: s1 100/50 = 2, s2 100/200 = 0.5: geomean sqrt(2 x 0.5) = 1; dma wins s1 only.
  EXPECT_NEAR(o["ratio"][0][0].get<double>(), 1.0, 1e-12);
  EXPECT_EQ(o["wins"][0][0], 1);
  EXPECT_EQ(o["scenarios"][0][0], 2);
  // r1 at 1 MiB: best CU 100 (sp beats base's 120); best engine s1 25, s2 100 (hybrid_ar beats
  // dma's 400): ratios 4 and 1, geomean 2; s2 is a tie, not a win.
  EXPECT_NEAR(o["ratio"][1][0].get<double>(), 2.0, 1e-12);
  EXPECT_EQ(o["wins"][1][0], 1);
  // Even cells: ratio 1, no wins, both scenarios counted.
  EXPECT_NEAR(o["ratio"][5][1].get<double>(), 1.0, 1e-12);
  EXPECT_EQ(o["wins"][5][1], 0);
  EXPECT_EQ(o["scenarios"][5][1], 2);
  // r12 at 2 MiB ran no engine policy: nothing to compare.
  EXPECT_TRUE(o["ratio"][12][1].is_null());
  EXPECT_TRUE(o["wins"][12][1].is_null());
  EXPECT_EQ(o["scenarios"][12][1], 0);
  const json& g = h["gain"];
  // Against r0's engine times at the same size (50, 200): r1 gives 50/25 = 2 and 200/100 = 2.
  EXPECT_NEAR(g["ratio"][1][0].get<double>(), 2.0, 1e-12);
  EXPECT_EQ(g["scenarios"][1][0], 2);
  EXPECT_NEAR(g["ratio"][0][0].get<double>(), 1.0, 1e-12);
  // r2 at 1 MiB runs 100 and 100: 50/100 = 0.5 and 200/100 = 2, geomean 1.
  EXPECT_NEAR(g["ratio"][2][0].get<double>(), 1.0, 1e-12);
  // r3 at 2 MiB against r0 at 2 MiB (both even): 1.
  EXPECT_NEAR(g["ratio"][3][1].get<double>(), 1.0, 1e-12);
  EXPECT_TRUE(g["ratio"][12][1].is_null());
}

TEST(ReportSweepData, FewVariantsKeepOneBarGroupEach) {
  SweepRecords r;
  for (int v = 0; v < 6; ++v) r.add_even(v, fmt::format("v{}", v), sizes(fmt::format("{} MiB", v + 1)));
  const json d = r.report();
  EXPECT_FALSE(d.contains("sweep_heatmaps"));
  EXPECT_EQ(d["charts"], json({"sweep"}));
  ASSERT_EQ(d["sweep"]["variants"].size(), 6U);
  EXPECT_EQ(d["sweep"]["variants"][0], "bytes=1 MiB");
  EXPECT_EQ(d["sweep"]["wins"][0], 0);
  EXPECT_EQ(d["sweep"]["losses"][0], 2);
}

TEST(ReportSweepData, UnnamedTwoKeyGridPutsTheFirstKeyOnTheRows) {
  // A grid of engines x bytes, 5 x 5 = 25 variants, none named: the sweep calls them v<index>, and
  // both keys are set everywhere, so the first (in key order) becomes the rows.
  SweepRecords r;
  for (int e = 0; e < 5; ++e) {
    for (int b = 0; b < 5; ++b) {
      const int index = e * 5 + b;
      json settings = sizes(fmt::format("{} MiB", b + 1));
      settings["spec.dma.engines"] = std::to_string(e + 1);
      r.add_even(index, fmt::format("v{}", index), settings);
    }
  }
  const json h = r.report()["sweep_heatmaps"];
  EXPECT_EQ(h["rows"], json({"engines=1", "engines=2", "engines=3", "engines=4", "engines=5"}));
  EXPECT_EQ(h["columns"], json({"1 MiB", "2 MiB", "3 MiB", "4 MiB", "5 MiB"}));
  EXPECT_EQ(h["column_title"], "workload.collective.bytes");
}

TEST(ReportSweepData, TwoColumnKeysLabelColumnsByValuesInTitleOrder) {
  // engine_bandwidth x submit_latency x engines, 3 x 3 x 3 = 27 variants (heatmaps start past 24),
  // none named: the first key takes the rows, the other two the columns, whose labels are the
  // values in the title's key order.
  SweepRecords r;
  int index = 0;
  for (const char* bw : {"20 GB/s", "40 GB/s", "60 GB/s"}) {
    for (const char* lat : {"1 us", "5 us", "20 us"}) {
      for (const char* engines : {"2", "4", "7"}) {
        json settings{{"model.dma.engine_bandwidth", bw},
                      {"model.dma.submit_latency", lat},
                      {"spec.dma.engines", engines}};
        r.add_even(index, fmt::format("v{}", index), settings);
        ++index;
      }
    }
  }
  const json h = r.report()["sweep_heatmaps"];
  EXPECT_EQ(h["rows"],
            json({"engine_bandwidth=20 GB/s", "engine_bandwidth=40 GB/s", "engine_bandwidth=60 GB/s"}));
  EXPECT_EQ(h["columns"], json({"1 us, 2", "1 us, 4", "1 us, 7", "5 us, 2", "5 us, 4", "5 us, 7", "20 us, 2",
                                "20 us, 4", "20 us, 7"}));
  EXPECT_EQ(h["column_title"], "model.dma.submit_latency, spec.dma.engines");
}

// A program sweep (examples/dma_architecture_fsdp.yaml) writes program records only: the report
// plots their step times, one group per variant and one bar per policy, in the sweep's order.
wl::ProgramRecord program_run(const std::string& program, const std::string& variant, int index,
                              const std::string& policy, double step_us, double ideal_us) {
  wl::ProgramRecord p;
  p.program = program;
  p.policy = policy;
  p.step_us = step_us;
  p.ideal_us = ideal_us;
  p.extra["variant"] = {{"index", index}, {"name", variant}, {"settings", json::object()}};
  return p;
}

TEST(ReportProgramData, ProgramSweepPlotsStepTimePerVariantAndPolicy) {
  ReportInputs in;
  in.sources = {"fsdp.jsonl"};
  in.predicted = {program_run("fsdp", "host_preset", 0, "sp", 90.0, 80.0),
                  program_run("fsdp", "host_preset", 0, "dma", 88.0, 80.0),
                  program_run("fsdp", "reduce_64", 1, "dma", 87.0, 79.0)};  // sp did not run here
  const json d = build_report_data(in);
  EXPECT_EQ(d["charts"], json({"program-steps"}));  // no c3 records: no scenario charts
  const json& p = d["program_steps"];
  EXPECT_EQ(p["groups"], json({"host_preset", "reduce_64"}));
  EXPECT_EQ(p["policies"], json({"sp", "dma"}));
  EXPECT_EQ(p["step_us"]["sp"], json({90.0, nullptr}));
  EXPECT_EQ(p["step_us"]["dma"], json({88.0, 87.0}));
  EXPECT_EQ(p["ideal_us"], json({80.0, 79.0}));
}

TEST(ReportProgramData, SeveralProgramsNameTheProgramInEachGroup) {
  ReportInputs in;
  in.sources = {"two.jsonl"};
  wl::ProgramRecord plain;  // a plain run (no variant): the group is the program
  plain.program = "b";
  plain.policy = "base";
  plain.step_us = 5.0;
  in.predicted = {program_run("a", "v0", 0, "base", 10.0, 9.0), plain};
  const json p = build_report_data(in)["program_steps"];
  EXPECT_EQ(p["groups"], json({"a / v0", "b"}));
  EXPECT_EQ(p["step_us"]["base"], json({10.0, 5.0}));
  EXPECT_EQ(p["ideal_us"], json({9.0, nullptr}));
}

TEST(ReportProgramData, NoPlottableRecordIsAnInputError) {
  ReportInputs in;
  in.sources = {"env_only.jsonl"};
  in.predicted = {wl::EnvRecord{}};
  EXPECT_THROW(build_report_data(in), InputError);
}

}  // namespace
}  // namespace c3sim::report
