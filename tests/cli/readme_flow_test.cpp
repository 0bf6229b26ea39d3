// README's calibrate-and-validate flow, end to end on logs in the tools' own formats:
// c3sim import (nccl-tests all_gather on 4 x H200, rccl-tests alltoall under mpirun on
// 8 x MI300X) -> calibrate -> validate -> run -> report. Every step's input is the previous step's
// output, so a record one step writes and the next rejects (cus_per_gpu: 0 once) fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_test_util.h"

namespace c3sim::testing {
namespace {

class ReadmeFlow : public ScratchDir {
protected:
  static std::string data(const std::string& name) {
    return std::string(C3SIM_SOURCE_DIR) + "/tests/data/" + name;
  }
  void step(const std::string& args) {
    const CommandResult r = run_command(c3sim_binary() + " " + args + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << "c3sim " << args << "\n" << r.output;
  }
};

TEST_F(ReadmeFlow, NcclTestsLogCalibratesAndValidatesH200) {
  step("import " + data("nccl_tests_all_gather_h200x4.log") + " -o " + path("nccl.jsonl"));
  const std::string records = read_file(path("nccl.jsonl"));
  // 25 sizes 8 B..128 MiB; 8 B rounds down to 0 bytes on 4 GPUs x 4-byte floats (nothing to
  // fit), so an env record and 24 iso_coll records.
  std::size_t lines = 0;
  for (char c : records) lines += c == '\n';
  EXPECT_EQ(lines, 1u + 24u) << records;
  EXPECT_NE(records.find("\"gpus\":4"), std::string::npos);
  step("calibrate " + path("nccl.jsonl") + " --hardware h200-sxm-x4 -o " + path("my_node.yaml"));
  const std::string yaml = read_file(path("my_node.yaml"));
  EXPECT_NE(yaml.find("extends: h200-sxm-x4"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("collective"), std::string::npos) << yaml;
  step("validate " + std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/h200x4_table1.jsonl " +
       path("nccl.jsonl") + " --hardware " + path("my_node.yaml") + " -o " + path("validation.txt"));
  step("report " + path("nccl.jsonl") + " " + std::string(C3SIM_SOURCE_DIR) +
       "/hardware/measurements/h200x4_table1.jsonl -o " + path("report.html"));
}

TEST_F(ReadmeFlow, RcclTestsLogUnderMpirunCalibratesMi300x) {
  step("import " + data("rccl_tests_alltoall_mi300x.log") + " -o " + path("rccl.jsonl"));
  const std::string records = read_file(path("rccl.jsonl"));
  // mpirun -np 8 with one GPU per process: the 8 "Rank" lines, not "nGpus 1", give the GPU count.
  EXPECT_NE(records.find("\"gpus\":8"), std::string::npos) << records;
  EXPECT_NE(records.find("\"op\":\"all_to_all\""), std::string::npos) << records;
  step("calibrate " + path("rccl.jsonl") + " --hardware mi300x -o " + path("my_mi300x.yaml"));
  step("run " + std::string(C3SIM_SOURCE_DIR) +
       "/examples/scenarios/paper_catalog.yaml --no-attribution --policy base --hardware " +
       path("my_mi300x.yaml") + " -o " + path("run.jsonl"));
  step("validate " + path("run.jsonl") + " " + path("rccl.jsonl") + " --hardware " + path("my_mi300x.yaml") +
       " -o " + path("validation.txt"));
  step("report " + path("run.jsonl") + " " + path("rccl.jsonl") + " -o " + path("report.html"));
}

// An import-only file (env + iso_coll records) has nothing for validate to predict or report to
// chart: both refuse it as bad input (exit 2, the file named, what to do instead), writing nothing.
TEST_F(ReadmeFlow, ImportOnlyFileIsRefusedByValidateAndReport) {
  step("import " + data("nccl_tests_all_gather_h200x4.log") + " -o " + path("nccl.jsonl"));
  const std::string before = read_file(path("nccl.jsonl"));
  const struct {
    const char* command;
    const char* problem;
  } cases[] = {
      {"validate", "no c3 records to validate (the input holds 1 env, 24 iso_coll)"},
      {"report", "no c3 records and no --paper document: nothing to plot"},
  };
  for (const auto& c : cases) {
    const std::string out = path(std::string(c.command) + ".out");
    const CommandResult r =
        run_command(c3sim_binary() + " " + c.command + " " + path("nccl.jsonl") + " -o " + out + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << c.command << ": " << r.output;
    EXPECT_NE(r.output.find(path("nccl.jsonl") + ": key 'kind': " + c.problem), std::string::npos)
        << c.command << ": " << r.output;
    EXPECT_NE(r.output.find("c3sim calibrate"), std::string::npos) << c.command << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.command;
    EXPECT_EQ(read_file(path("nccl.jsonl")), before) << c.command;
  }
}

}  // namespace
}  // namespace c3sim::testing
