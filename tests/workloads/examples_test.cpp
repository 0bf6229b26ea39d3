// Every shipped scenario example must load.
#include <gtest/gtest.h>

#include <filesystem>

#include "workloads/scenario_io.h"

namespace c3sim::wl {
namespace {

TEST(ScenarioExamples, AllLoad) {
  const std::filesystem::path dir = std::filesystem::path(C3SIM_SOURCE_DIR) / "examples" / "scenarios";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    std::vector<Scenario> s;
    EXPECT_NO_THROW(s = load_scenarios_file(entry.path().string())) << entry.path();
    EXPECT_FALSE(s.empty()) << entry.path();
    for (const Scenario& x : s) EXPECT_NO_THROW(check_scenario_fits(x, 8)) << x.name;
  }
  EXPECT_GE(files, 2);
}

TEST(ScenarioExamples, CatalogExampleExpands) {
  const auto s =
      load_scenarios_file(std::string(C3SIM_SOURCE_DIR) + "/examples/scenarios/paper_catalog.yaml");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].name, "mb1_896M_ag");
  EXPECT_EQ(s[0].policies.size(), 7u);
  EXPECT_EQ(s[3].name, "cb5_13G_a2a");
  EXPECT_TRUE(s[3].policies.empty());
}

}  // namespace
}  // namespace c3sim::wl
