// `c3sim generate dlrm` through the real binary: what it writes `c3sim run` reads and runs under
// every policy of the DLRM sweeps on both hardware presets, and bad options exit 2 naming the option
// with no output file.
#include <filesystem>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

class DlrmCli : public ScratchDir {};

TEST_F(DlrmCli, GeneratedStepRunsUnderEverySweepPolicy) {
  const std::string c3 = c3sim_binary();
  const std::string yaml = path("dlrm.yaml");
  ASSERT_EQ(run_command(c3 + " generate dlrm --batch 2048 -o " + yaml).exit_code, 0);
  const std::string text = read_file(yaml);
  EXPECT_EQ(text.rfind("# DLRM-DCNv2 training step", 0), 0U) << text.substr(0, 200);
  EXPECT_NE(text.find("mlcommons/training"), std::string::npos);
  // examples/dlrm_sweep.yaml's policies.
  const std::string policies = "base,sp,prio,rp_best,dma,dma_rp_best,ficco_best,ficco_dma_best";
  for (const char* hw : {"mi300x", "h200-sxm"}) {
    const CommandResult r = run_command(c3 + " run " + yaml + " --hardware " + hw + " --policy " + policies +
                                        " --no-attribution --format jsonl 2>&1");
    ASSERT_EQ(r.exit_code, 0) << hw << ": " << r.output;
    // One program record per policy, each with the step's 54 kernels of rank 0 (unchunked) or more.
    std::size_t records = 0;
    for (std::size_t at = r.output.find("\"kind\":\"program\""); at != std::string::npos;
         at = r.output.find("\"kind\":\"program\"", at + 1)) {
      ++records;
    }
    EXPECT_EQ(records, 8U) << hw;
  }
}

TEST_F(DlrmCli, BadOptionsExitTwoNamingTheOption) {
  const std::string c3 = c3sim_binary();
  const std::string out = path("out.yaml");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"dlrm --batch 0", "key '--batch'"},
      {"dlrm --tables 4 --rows 10 --pooling 1", "key '--tables'"},
      {"dlrm --pooling 1,2", "key '--pooling'"},
      {"dlrm --bottom-mlp 512,256", "key '--bottom-mlp'"},
      {"dlrm --dtype int4", "key '--dtype'"},
      {"dlrm --interaction cross", "key '--interaction'"},
      {"dlrm --model dlrm-v1", "key 'model'"},
      {"fsdp-layer --batch 8", "key '--batch'"},
      {"dlrm --layers 3", "--layers"},
      {"dlrm --nodes 0", "key '--nodes'"},
      {"dlrm --nodes 2 --sharding table", "key '--sharding'"},
  };
  for (const auto& [args, expected] : cases) {
    const CommandResult r = run_command(c3 + " generate " + args + " -o " + out + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << args << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << args;
  }
}

}  // namespace
}  // namespace c3sim::testing
