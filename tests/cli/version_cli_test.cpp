// The release version, written once in the top-level VERSION file: `c3sim --version` prints it and
// every measurement file c3sim writes names it in its env record.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "cli_test_util.h"
#include "sim/base/version.h"

namespace {

using c3sim::testing::run_command;

std::string version_file() {
  std::ifstream in(std::string(C3SIM_SOURCE_DIR) + "/VERSION");
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(Version, IsTheVersionFileAndSemantic) {
  const std::string v = version_file();
  EXPECT_EQ(c3sim::version(), v);
  // MAJOR.MINOR.PATCH, each a number.
  int major = -1, minor = -1, patch = -1;
  char tail = 0;
  EXPECT_EQ(std::sscanf(v.c_str(), "%d.%d.%d%c", &major, &minor, &patch, &tail), 3) << v;
  EXPECT_GE(major, 0);
  EXPECT_GE(minor, 0);
  EXPECT_GE(patch, 0);
}

TEST(Version, CliPrintsIt) {
  const auto r = run_command(c3sim::testing::c3sim_binary() + " --version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "c3sim " + version_file() + "\n");
}

TEST(Version, RunOutputNamesIt) {
  const auto r = run_command(c3sim::testing::c3sim_binary() + " run " + C3SIM_SOURCE_DIR +
                             "/examples/scenarios/dma_1mib_ag.yaml --no-attribution --format jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string env_line = r.output.substr(0, r.output.find('\n'));
  EXPECT_NE(env_line.find("\"kind\":\"env\""), std::string::npos) << env_line;
  EXPECT_NE(env_line.find("\"c3sim_version\":\"" + version_file() + "\""), std::string::npos) << env_line;
}

}  // namespace
