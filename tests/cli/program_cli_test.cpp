// `c3sim generate` and `c3sim run` on program files, through the real binary: records, exit 2 with
// no output file on bad input, deterministic output.
#include <gtest/gtest.h>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

class ProgramCli : public ScratchDir {};

TEST_F(ProgramCli, GeneratedFsdpStepRunsUnderSeveralPolicies) {
  const std::string c3 = c3sim_binary();
  const std::string yaml = path("fsdp.yaml");
  ASSERT_EQ(run_command(c3 + " generate fsdp-layer --model llama-70b -o " + yaml).exit_code, 0);
  const std::string out = path("out.jsonl");
  const CommandResult r =
      run_command(c3 + " run " + yaml + " --policy base,dma,ficco_dma:2 -o " + out + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = read_file(out);
  // One env record, then one program record per policy, each listing all 28 kernels.
  std::size_t programs = 0;
  for (std::size_t at = text.find("\"kind\":\"program\""); at != std::string::npos;
       at = text.find("\"kind\":\"program\"", at + 1)) {
    ++programs;
  }
  EXPECT_EQ(programs, 3U);
  EXPECT_NE(text.find("\"name\":\"rs_gate_up\""), std::string::npos);
  // Same input, same bytes.
  const std::string again = path("again.jsonl");
  ASSERT_EQ(run_command(c3 + " run " + yaml + " --policy base,dma,ficco_dma:2 -o " + again).exit_code, 0);
  EXPECT_EQ(read_file(again), text);
}

// Attribution on programs: each kernel of each run carries its slowdown causes in the JSONL
// record and in the table's cause columns; --no-attribution drops both (and the counterfactuals).
TEST_F(ProgramCli, EveryKernelCarriesItsSlowdownCauses) {
  const std::string c3 = c3sim_binary();
  const std::string yaml = path("fsdp.yaml");
  ASSERT_EQ(run_command(c3 + " generate fsdp-layer -o " + yaml).exit_code, 0);
  const CommandResult jsonl =
      run_command(c3 + " run " + yaml + " --hardware h200-sxm --policy base,rp_best 2>&1");
  ASSERT_EQ(jsonl.exit_code, 0) << jsonl.output;
  std::size_t kernels = 0, attributed = 0;
  for (std::size_t at = jsonl.output.find("\"iso_us\""); at != std::string::npos;
       at = jsonl.output.find("\"iso_us\"", at + 1)) {
    ++kernels;
  }
  for (std::size_t at = jsonl.output.find("\"cus_unavailable_us\""); at != std::string::npos;
       at = jsonl.output.find("\"cus_unavailable_us\"", at + 1)) {
    ++attributed;
  }
  EXPECT_EQ(kernels, 2U * 28U);  // two runs (base, the rp sweep's winner) x 28 kernels
  EXPECT_EQ(attributed, kernels);
  const CommandResult table =
      run_command(c3 + " run " + yaml + " --hardware h200-sxm --policy base --format table 2>&1");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  for (const char* column :
       {"dispatch us", "CUs us", "cache us", "latency us", "bandwidth us", "top resource"})
    EXPECT_NE(table.output.find(column), std::string::npos) << column;
  const CommandResult off = run_command(c3 + " run " + yaml + " --policy base --no-attribution 2>&1");
  ASSERT_EQ(off.exit_code, 0) << off.output;
  EXPECT_EQ(off.output.find("attribution"), std::string::npos);
}

// An imported PyTorch step (no GEMM + collective pair for FiCCO to split) runs with no --policy
// and with --policy all: each expands to the standard policies that apply to the program. A
// requested policy that cannot apply is an error naming the policy and the program.
TEST_F(ProgramCli, ImportedTraceRunsEveryPolicyThatApplies) {
  const std::string c3 = c3sim_binary();
  const std::string yaml = path("step.yaml");
  const CommandResult imported =
      run_command(c3 + " import --from torch-profiler " + std::string(C3SIM_SOURCE_DIR) +
                  "/hardware/measurements/torch_traces/fsdp_rank0.json -o " + yaml + " 2>&1");
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  for (const std::string flags : {"", " --policy all"}) {
    const CommandResult r =
        run_command(c3 + " run " + yaml + flags + " --hardware h200-sxm --no-attribution --format csv 2>&1");
    ASSERT_EQ(r.exit_code, 0) << flags << "\n" << r.output;
    for (const char* policy : {"torch_trace,base,", "torch_trace,sp,", "torch_trace,prio,",
                               "torch_trace,dma,", "torch_trace,rp_best=", "torch_trace,dma_rp_best="}) {
      EXPECT_NE(r.output.find(policy), std::string::npos) << flags << " " << policy;
    }
    EXPECT_EQ(r.output.find("ficco"), std::string::npos) << flags;
  }
  const std::string out = path("out.jsonl");
  const CommandResult ficco = run_command(c3 + " run " + yaml + " --policy base,ficco:2 -o " + out + " 2>&1");
  EXPECT_EQ(ficco.exit_code, 2) << ficco.output;
  EXPECT_NE(ficco.output.find("policy 'ficco:2' does not apply to program 'torch_trace'"), std::string::npos)
      << ficco.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(ProgramCli, BadProgramExitsTwoWithNoOutputFile) {
  const std::string c3 = c3sim_binary();
  const std::string bad = write("bad.yaml", R"(program:
  name: cyc
  streams: [{name: a}, {name: b}]
  kernels:
    - {name: x, stream: a, after: [y], gemm: cb1}
    - {name: y, stream: b, after: [x], collective: {op: all_gather, bytes: 64 MiB}}
)");
  const std::string out = path("out.jsonl");
  const CommandResult r = run_command(c3 + " run " + bad + " -o " + out + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.yaml:5"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cyc.kernels.x.after"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  const std::string good = write("good.yaml", R"(program:
  name: ok
  streams: [{name: a}]
  kernels: [{name: x, stream: a, gemm: cb1}]
)");
  const CommandResult p = run_command(c3 + " run " + good + " --policy ficco:4 -o " + out + " 2>&1");
  EXPECT_EQ(p.exit_code, 2) << p.output;  // one GEMM: nothing to chunk
  EXPECT_NE(p.output.find("policy 'ficco:4' does not apply to program 'ok'"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("needs a GEMM + collective pair"), std::string::npos) << p.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// Whatever `generate` writes, `run` reads: an imbalance factor whose scaled sizes no program file
// could hold (1e300 scaled the expert GEMMs past every bound, and `run` refused the file) is exit
// 2 naming --imbalance, with no output file.
TEST_F(ProgramCli, GenerateRefusesWhatRunWouldRefuse) {
  const std::string c3 = c3sim_binary();
  const std::string out = path("moe.yaml");
  const CommandResult r = run_command(c3 + " generate moe-layer --imbalance 1,1e300 -o " + out + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("key 'imbalance'"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  ASSERT_EQ(run_command(c3 + " generate moe-layer --imbalance 1,1.5 -o " + out + " 2>&1").exit_code, 0);
  const CommandResult ok =
      run_command(c3 + " run " + out + " --policy base -o " + path("moe.jsonl") + " 2>&1");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

// A program over one GPU cannot hold a collective (an internal error, exit 1, before); a gap or a
// measured time beyond the engine's picosecond clock is the file's error too.
TEST_F(ProgramCli, ProgramsRunCannotRepresentExitTwo) {
  const std::string c3 = c3sim_binary();
  const struct {
    const char* name;
    const char* kernels;
    const char* gpus;
    const char* expect;
  } cases[] = {
      {"one_gpu", "[{name: x, stream: a, collective: {op: all_gather, bytes: 64 MiB}}]", "1",
       "needs at least 2 GPUs"},
      {"gap", "[{name: x, stream: a, gemm: cb1}, {name: y, stream: a, gemm: cb1, gap_us: 1e300}]", "2",
       "gap_us"},
      {"time", "[{name: x, stream: a, measured: {time_us: 1e300}}]", "2", "time_us"},
  };
  for (const auto& c : cases) {
    const std::string in =
        write(std::string(c.name) + ".yaml", std::string("program:\n  name: p\n  gpus: ") + c.gpus +
                                                 "\n  streams: [{name: a}]\n  kernels: " + c.kernels + "\n");
    const std::string out = path(std::string(c.name) + ".jsonl");
    const CommandResult r = run_command(c3 + " run " + in + " --policy base -o " + out + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.name << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.name;
  }
}

}  // namespace
}  // namespace c3sim::testing
