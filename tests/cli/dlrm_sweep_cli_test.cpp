// The DLRM sweeps: a sweep entry takes dlrm's options (one program per batch size), runs the
// policies of examples/dlrm_sweep.yaml with the numbers `c3sim run` gives, refuses bad options
// naming the sweep file's line and key, and examples/dlrm_table.py turns its output into the table
// docs/dlrm.md shows, the seed's figures beside.
#include <regex>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

class DlrmSweepCli : public ScratchDir {};

std::string step_of(const std::string& jsonl, const std::string& program, const std::string& policy) {
  const std::regex re(
      "\"policy\":\"" + policy + "\",\"program\":\"" + program +
      "\",\"schema\":\"c3sim.measurement\",\"serial_us\":[-0-9.e+]+,\"step_us\":([-0-9.e+]+)");
  std::smatch m;
  return std::regex_search(jsonl, m, re) ? m[1].str() : "";
}

TEST_F(DlrmSweepCli, OneProgramPerBatchSizeAsRunGivesIt) {
  const std::string c3 = c3sim_binary();
  const std::string sweep = write("s.yaml", R"(hardware: h200-sxm
programs:
  - {generate: dlrm, batch: 1024}
  - {generate: dlrm, batch: 2048, dtype: bf16}
policies: [base, dma, ficco_best]
)");
  const CommandResult r = run_command(c3 + " sweep " + sweep + " -q -o " + path("s.jsonl") + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string jsonl = read_file(path("s.jsonl"));
  ASSERT_EQ(run_command(c3 + " generate dlrm --batch 2048 --dtype bf16 -o " + path("p.yaml")).exit_code, 0);
  const CommandResult run =
      run_command(c3 + " run " + path("p.yaml") +
                  " --hardware h200-sxm --policy dma --no-attribution --format jsonl 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string swept = step_of(jsonl, "dlrm_dcnv2_8gpu_b2048", "dma");
  ASSERT_FALSE(swept.empty()) << jsonl.substr(0, 400);
  EXPECT_EQ(swept, step_of(run.output, "dlrm_dcnv2_8gpu_b2048", "dma"));
  EXPECT_FALSE(step_of(jsonl, "dlrm_dcnv2_8gpu_b1024", "ficco_best").empty());

  // The table: every policy's row and the seed's figures beside, read from the committed file.
  const CommandResult table = run_command("python3 " + std::string(C3SIM_SOURCE_DIR) +
                                          "/examples/dlrm_table.py " + path("s.jsonl") + " 2>&1");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("| | ficco_best="), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("| emb + a2a, inside a node, mean | 25% shorter |"), std::string::npos)
      << table.output;
  EXPECT_NE(table.output.find("| DLRM step, 128 nodes | ~10% shorter |"), std::string::npos) << table.output;
}

TEST_F(DlrmSweepCli, NodesSweepRunsAndTablesAcrossNodes) {
  // The shape of examples/dlrm_sweep_nodes.yaml, small: 1 and 2 nodes, base and fuse.
  const std::string c3 = c3sim_binary();
  const std::string sweep = write("n.yaml", R"(hardware: h200-sxm
programs:
  - {generate: dlrm, batch: 1024, sharding: column}
  - {generate: dlrm, batch: 1024, nodes: 2}
policies: [base, fuse]
)");
  const CommandResult r = run_command(c3 + " sweep " + sweep + " -q -o " + path("n.jsonl") + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string jsonl = read_file(path("n.jsonl"));
  for (const char* policy : {"base", "fuse"}) {
    EXPECT_FALSE(step_of(jsonl, "dlrm_dcnv2_8gpu_b1024_cw", policy).empty()) << policy;
    EXPECT_FALSE(step_of(jsonl, "dlrm_dcnv2_2x8gpu_b1024", policy).empty()) << policy;
  }
  // The 2-node step as `c3sim run` gives it from the generated file (its `nodes: 2`).
  ASSERT_EQ(run_command(c3 + " generate dlrm --batch 1024 --nodes 2 -o " + path("p.yaml")).exit_code, 0);
  const CommandResult run =
      run_command(c3 + " run " + path("p.yaml") +
                  " --hardware h200-sxm --policy fuse --no-attribution --format jsonl 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(step_of(jsonl, "dlrm_dcnv2_2x8gpu_b1024", "fuse"),
            step_of(run.output, "dlrm_dcnv2_2x8gpu_b1024", "fuse"));

  // The table has a row for the fused kernel and the across-nodes comparison filled in.
  const CommandResult table = run_command("python3 " + std::string(C3SIM_SOURCE_DIR) +
                                          "/examples/dlrm_table.py " + path("n.jsonl") + " 2>&1");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("| | fuse |"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("| emb + a2a, across nodes, mean | 31% shorter | "), std::string::npos)
      << table.output;
  EXPECT_EQ(table.output.find("| emb + a2a, across nodes, mean | 31% shorter | - "), std::string::npos)
      << table.output;
}

TEST_F(DlrmSweepCli, BadEntriesNameLineAndKey) {
  const std::string c3 = c3sim_binary();
  const std::vector<std::pair<std::string, std::string>> cases{
      {"programs:\n  - {generate: dlrm, batch: 0}\npolicies: [base]\n",
       "s.yaml:2:22: key 'programs[0].batch': 0 is outside"},
      {"programs:\n  - {generate: dlrm, pooling: \"1,2\"}\npolicies: [base]\n", "key 'programs[0].pooling'"},
      {"programs:\n  - {generate: tp-block, batch: 8}\npolicies: [base]\n",
       "key 'programs[0].batch': only dlrm takes `batch`"},
      {"programs:\n  - {generate: dlrm, layers: 3}\npolicies: [base]\n", "programs[0].layers"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string sweep = write("s.yaml", text);
    const CommandResult r = run_command(c3 + " sweep " + sweep + " -q -o " + path("o.csv") + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << text << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << text << r.output;
    EXPECT_FALSE(std::filesystem::exists(path("o.csv")));
  }
}

}  // namespace
}  // namespace c3sim::testing
