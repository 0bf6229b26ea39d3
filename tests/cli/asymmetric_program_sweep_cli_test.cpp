// A sweep runs a program as `c3sim run` does: an asymmetric program (imbalanced MoE routing)
// simulates every rank, so the sweep's step time is run's to the printed digit, and a policy the
// all-GPU mode cannot run (a deciding one) is refused at load with exit 2 naming the policy.
#include <regex>
#include <string>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

class AsymmetricProgramSweep : public ScratchDir {
protected:
  CommandResult c3sim(const std::string& args) const {
    return run_command("cd " + dir_.string() + " && " + c3sim_binary() + " " + args + " 2>&1");
  }
};

std::string step_us_of(const std::string& jsonl) {
  const std::regex step(R"re("kind":"program".*"step_us":([-0-9.eE+]+))re");
  std::smatch m;
  return std::regex_search(jsonl, m, step) ? m[1].str() : std::string("<none>");
}

TEST_F(AsymmetricProgramSweep, ImbalancedMoeStepIsRunsStep) {
  ASSERT_EQ(c3sim("generate moe-layer --imbalance 1,1.5 -o moe.yaml").exit_code, 0);
  write("s.yaml", "hardware: mi300x\nprograms:\n  - {file: moe.yaml}\npolicies: [base]\n");
  const CommandResult run = c3sim("run moe.yaml --policy base -o run.jsonl");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const CommandResult sweep = c3sim("sweep s.yaml -q -o sweep.jsonl");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  const std::string run_step = step_us_of(read_file(path("run.jsonl")));
  const std::string sweep_step = step_us_of(read_file(path("sweep.jsonl")));
  ASSERT_NE(run_step, "<none>");
  EXPECT_EQ(sweep_step, run_step);
  // The balanced program is faster: the imbalance reaches the sweep (one representative GPU would
  // give the balanced step).
  ASSERT_EQ(c3sim("generate moe-layer -o balanced.yaml").exit_code, 0);
  ASSERT_EQ(c3sim("run balanced.yaml --policy base -o balanced.jsonl").exit_code, 0);
  EXPECT_LT(std::stod(step_us_of(read_file(path("balanced.jsonl")))), std::stod(sweep_step));
}

TEST_F(AsymmetricProgramSweep, DecidingPolicyIsRefusedAtLoad) {
  ASSERT_EQ(c3sim("generate moe-layer --imbalance 1,1.5 -o moe.yaml").exit_code, 0);
  write("s.yaml", "hardware: mi300x\nprograms:\n  - {file: moe.yaml}\npolicies: [base, sp_heuristic]\n");
  const CommandResult r = c3sim("sweep s.yaml -q -o out.csv");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("s.yaml:4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sp_heuristic"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("out.csv")));
}

}  // namespace
}  // namespace c3sim::testing
