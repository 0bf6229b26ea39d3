// `c3sim import --from torch-profiler` through the real binary: bad input exits 2 with no output
// file, and the headline check of issue 19: calibrate the H200 preset on the isolated records of
// the step's own kernels (iso_torch.jsonl), import the committed FSDP trace, and predict its
// measured step time with no policy change (the same commands as
// hardware/measurements/torch_traces/predict.sh).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

class TorchImportCli : public ScratchDir {};

TEST_F(TorchImportCli, NotAProfilerTraceExitsTwoWithNoOutput) {
  const std::string c3 = c3sim_binary();
  const std::string bad = write("not_a_trace.json", R"({"schema": "something else", "rows": [1, 2]})");
  const std::string out = path("out.yaml");
  const CommandResult r = run_command(c3 + " import --from torch-profiler " + bad + " -o " + out + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("not_a_trace.json"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(TorchImportCli, CalibratedPredictionOfTheFsdpStep) {
  const std::string c3 = c3sim_binary();
  const std::string src = C3SIM_SOURCE_DIR;
  const std::string hw = path("h200_torch.yaml");
  const std::string prog = path("fsdp.yaml");
  const std::string out = path("fsdp.jsonl");
  ASSERT_EQ(run_command(c3 + " calibrate " + src + "/hardware/measurements/torch_traces/iso_torch.jsonl " +
                        "--hardware h200-sxm -o " + hw + " 2>&1")
                .exit_code,
            0);
  const CommandResult imp =
      run_command(c3 + " import --from torch-profiler " + src +
                  "/hardware/measurements/torch_traces/fsdp_rank0.json -o " + prog + " 2>&1");
  ASSERT_EQ(imp.exit_code, 0) << imp.output;
  EXPECT_NE(imp.output.find("0 unmapped"), std::string::npos) << imp.output;
  const CommandResult run =
      run_command(c3 + " run " + prog + " --hardware " + hw + " --policy base,sp,dma -o " + out + " 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::map<std::string, double> step;
  double measured = 0;
  std::istringstream in(read_file(out));
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["kind"] != "program") continue;
    step[j["policy"].get<std::string>()] = j["step_us"].get<double>();
    measured = j["extra"]["measured_step_us"].get<double>();
  }
  // The trace's own step: first kernel start to last kernel end on rank 0.
  EXPECT_NEAR(measured, 48091.0, 1.0);
  ASSERT_EQ(step.size(), 3U);
  // Predicted: base +8.2%, sp +7.8%, dma +4.1% (docs/programs.md, "Import a PyTorch profiler
  // trace"). The issue asks for 10%.
  EXPECT_LE(std::abs(step["base"] / measured - 1), 0.10) << step["base"];
  EXPECT_LE(std::abs(step["sp"] / measured - 1), 0.10) << step["sp"];
  // dma moves the all-gathers to copy engines (the reduce-scatters stay on CUs), freeing CUs.
  EXPECT_LE(step["dma"], step["base"]);
}

}  // namespace
}  // namespace c3sim::testing
