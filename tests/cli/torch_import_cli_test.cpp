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

// Bad traces exit 2 with file, line, event and field, and write nothing: ids beyond int64 (an
// uncaught std::out_of_range from stoll, exit 1, before), 10^5 nested brackets in a tid (SIGSEGV
// before), a syntax error (its line and column), and a group size that a cast truncated.
TEST_F(TorchImportCli, BadTracesExitTwoNamingTheEventAndField) {
  const std::string c3 = c3sim_binary();
  const std::string head = "{\"traceEvents\": [\n";
  const std::string launch =
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "tid": 1, "ts": 10, "args": {"correlation": 1}})";
  const struct {
    const char* name;
    std::string text;
    std::string expect;
  } cases[] = {
      {"corr",
       head + launch + ",\n" +
           R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 20, "args": {"correlation": "99999999999999999999"}})" +
           "\n]}",
       "corr.json:3: key 'traceEvents[1].args.correlation': '99999999999999999999' is beyond the 64-bit"},
      {"device",
       head +
           R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 20, "args": {"device": "18446744073709551617"}})" +
           "\n]}",
       "device.json:2: key 'traceEvents[0].args.device'"},
      {"nested",
       head + launch + ",\n" + R"({"ph": "X", "cat": "cuda_runtime", "tid": )" + std::string(100000, '[') +
           std::string(100000, ']') + "}\n]}",
       "nested.json:3:"},
      {"syntax", head + launch + ",\n{\"ph\": X}\n]}", "syntax.json:3:8: not valid JSON: syntax error"},
      {"group",
       head + launch + ",\n" +
           R"({"ph": "X", "cat": "cpu_op", "name": "c10d::allgather_", "tid": 1, "ts": 0, "dur": 50, "args": )" +
           R"({"In msg nelems": 8, "Out msg nelems": 16, "dtype": "Float", "Group size": 4294967298}})" +
           "\n]}",
       "group.json:3: key 'traceEvents[1].args.Group size': 4294967298 is outside 0..4096"},
  };
  for (const auto& c : cases) {
    const std::string in = write(std::string(c.name) + ".json", c.text);
    const std::string out = path(std::string(c.name) + ".yaml");
    std::string command = c3;
    command.append(" import --from torch-profiler ").append(in).append(" -o ").append(out).append(" 2>&1");
    const CommandResult r = run_command(command);
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.name << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.name;
  }
}

// What the importer writes, `run` reads: the small trace's program runs.
TEST_F(TorchImportCli, ImportedProgramRuns) {
  const std::string c3 = c3sim_binary();
  const std::string prog = path("small.yaml");
  ASSERT_EQ(run_command(c3 + " import --from torch-profiler " + std::string(C3SIM_SOURCE_DIR) +
                        "/tests/data/torch_trace_small.json -o " + prog + " 2>&1")
                .exit_code,
            0);
  const CommandResult run = run_command(c3 + " run " + prog + " --hardware h200-sxm --policy base -o " +
                                        path("small.jsonl") + " 2>&1");
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

// The trace names its GPU (deviceProperties: NVIDIA H200, 132 SMs): `run` without --hardware uses
// the H200 preset and says so; a --hardware of another GPU is a warning naming both.
TEST_F(TorchImportCli, TheTracedGpuPicksOrChecksTheHardware) {
  const std::string c3 = c3sim_binary();
  const std::string prog = path("fsdp.yaml");
  ASSERT_EQ(run_command(c3 + " import --from torch-profiler " + std::string(C3SIM_SOURCE_DIR) +
                        "/hardware/measurements/torch_traces/fsdp_rank0.json -o " + prog + " 2>&1")
                .exit_code,
            0);
  const CommandResult plain =
      run_command(c3 + " run " + prog + " --policy base --no-attribution -o " + path("a.jsonl") + " 2>&1");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find("traced on NVIDIA H200 (132 SMs/CUs): using the h200-sxm preset"),
            std::string::npos)
      << plain.output;
  EXPECT_NE(read_file(path("a.jsonl")).find("\"hardware\":\"h200-sxm\""), std::string::npos);
  const CommandResult other =
      run_command(c3 + " run " + prog + " --hardware mi300x --policy base --no-attribution -o " +
                  path("b.jsonl") + " 2>&1");
  ASSERT_EQ(other.exit_code, 0) << other.output;
  EXPECT_NE(other.output.find("warning: " + prog +
                              " was traced on NVIDIA H200 (132 SMs/CUs), but the hardware is mi300x"),
            std::string::npos)
      << other.output;
  const CommandResult same =
      run_command(c3 + " run " + prog + " --hardware h200-sxm-x4 --policy base --no-attribution -o " +
                  path("c.jsonl") + " 2>&1");
  EXPECT_EQ(same.output.find("warning"), std::string::npos) << same.output;
}

// `validate` on the imported program: every GEMM and collective against its traced duration, per
// kind, as a table and as JSON.
TEST_F(TorchImportCli, ValidateComparesEachKernelWithTheTrace) {
  const std::string c3 = c3sim_binary();
  const std::string prog = path("fsdp.yaml");
  ASSERT_EQ(run_command(c3 + " import --from torch-profiler " + std::string(C3SIM_SOURCE_DIR) +
                        "/hardware/measurements/torch_traces/fsdp_rank0.json -o " + prog + " 2>&1")
                .exit_code,
            0);
  const CommandResult table = run_command(c3 + " validate " + prog + " 2>&1");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("worst kernels:"), std::string::npos) << table.output;
  const CommandResult js =
      run_command(c3 + " validate " + prog + " --format json -o " + path("v.json") + " 2>&1");
  ASSERT_EQ(js.exit_code, 0) << js.output;
  const auto j = nlohmann::json::parse(read_file(path("v.json")));
  ASSERT_EQ(j.size(), 1U);
  EXPECT_EQ(j[0]["hardware"], "h200-sxm");
  std::map<std::string, int> kernels;
  for (const auto& k : j[0]["kinds"]) kernels[k["kind"].get<std::string>()] = k["kernels"].get<int>();
  EXPECT_EQ(kernels["gemm"], 48);
  EXPECT_EQ(kernels["collective"], 12);
  EXPECT_EQ(kernels["measured"], 372);
  EXPECT_EQ(j[0]["worst"].size(), 10U);
  EXPECT_NEAR(j[0]["traced_step_us"].get<double>(), 48091.0, 1.0);
}

TEST_F(TorchImportCli, CalibratedPredictionOfTheFsdpStep) {
  const std::string c3 = c3sim_binary();
  const std::string src = C3SIM_SOURCE_DIR;
  const std::string hw = path("h200_torch.yaml");
  const std::string prog = path("fsdp.yaml");
  const std::string out = path("fsdp.jsonl");
  // The 2 x H200 node the records came from (NCCL's 24 channels there, which the import reads from
  // each collective's kernel grid).
  ASSERT_EQ(run_command(c3 + " calibrate " + src + "/hardware/measurements/torch_traces/iso_torch.jsonl " +
                        "--hardware " + src + "/hardware/measurements/h200-sxm-x2.yaml -o " + hw + " 2>&1")
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
  // Predicted: base +8.3%, sp +8.3%, dma +4.5% (docs/programs.md, "Import a PyTorch profiler
  // trace"). The issue asks for 10%.
  EXPECT_LE(std::abs(step["base"] / measured - 1), 0.10) << step["base"];
  EXPECT_LE(std::abs(step["sp"] / measured - 1), 0.10) << step["sp"];
  // dma moves the all-gathers to copy engines (the reduce-scatters stay on CUs), freeing CUs.
  EXPECT_LE(step["dma"], step["base"]);
}

}  // namespace
}  // namespace c3sim::testing
