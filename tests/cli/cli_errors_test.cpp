// The CLI's bad-input contract: exit code 2, a message naming file, line and key, and no output
// file left behind. Runs the real c3sim binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_test_util.h"

namespace {

namespace fs = std::filesystem;
using c3sim::testing::CommandResult;

CommandResult run_c3sim(const std::string& args) {
  return c3sim::testing::run_command(c3sim::testing::c3sim_binary() + " " + args + " 2>&1");
}

class CliErrors : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() / fs::path("c3sim_cli_" + std::to_string(::getpid()) + "_" +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string out_file() const { return (dir_ / "out.jsonl").string(); }
  void expect_rejected(const std::string& args, const std::vector<std::string>& mentions) {
    const CommandResult r = run_c3sim(args + " -o " + out_file());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const auto& m : mentions)
      EXPECT_NE(r.output.find(m), std::string::npos) << "missing '" << m << "' in: " << r.output;
    EXPECT_FALSE(fs::exists(out_file())) << "partial output written";
  }
  fs::path dir_;
};

constexpr const char* kGood = R"(scenarios:
  - name: small
    gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}
    collective: {op: all_gather, bytes: 64 MiB}
    policies: [base, sp]
)";

TEST_F(CliErrors, GoodScenarioRuns) {
  const std::string f = write("good.yaml", kGood);
  const CommandResult r = run_c3sim("run " + f + " --no-attribution -o " + out_file());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out_file()));
}

TEST_F(CliErrors, MissingFile) {
  expect_rejected("run " + (dir_ / "nope.yaml").string(), {"nope.yaml", "cannot open"});
}

TEST_F(CliErrors, MalformedYaml) {
  const std::string f = write("bad.yaml", "scenarios:\n  - name: x\n    gemm: {m: 1, n: [\n");
  expect_rejected("run " + f, {"bad.yaml:", "malformed YAML"});
}

TEST_F(CliErrors, UnknownKey) {
  std::string text = kGood;
  text.replace(text.find("    policies"), 0, "    colective: 3\n");
  const std::string f = write("unknown.yaml", text);
  expect_rejected("run " + f, {"unknown.yaml:5", "colective", "unknown key"});
}

TEST_F(CliErrors, NegativeSize) {
  std::string text = kGood;
  text.replace(text.find("m: 4096"), 7, "m: -4096");
  const std::string f = write("negative.yaml", text);
  expect_rejected("run " + f, {"negative.yaml:3", "gemm.m"});
}

TEST_F(CliErrors, ImpossibleCuMask) {
  std::string text = kGood;
  text.replace(text.find("[base, sp]"), 10, "[base, \"rp:12\"]");
  const std::string f = write("mask.yaml", text);
  expect_rejected("run " + f, {"mask.yaml:5", "policies", "impossible CU mask", "multiple of 8"});
}

TEST_F(CliErrors, CuMaskLeavingNothingForTheGemm) {
  const std::string f = write("good.yaml", kGood);
  expect_rejected("run " + f + " --policy rp:304", {"rp:304", "impossible CU mask"});
}

TEST_F(CliErrors, BadHardwareFile) {
  const std::string hw = write("hw.yaml", "extends: mi300x\nspec:\n  memory:\n    hbm_bandwidth: 5 us\n");
  const std::string f = write("good.yaml", kGood);
  expect_rejected("run " + f + " --hardware " + hw, {"hw.yaml:4", "spec.memory.hbm_bandwidth"});
}

TEST_F(CliErrors, UnknownFormat) {
  const std::string f = write("good.yaml", kGood);
  expect_rejected("run " + f + " --format xml", {"--format", "xml"});
}

TEST_F(CliErrors, OutputIsByteIdenticalAcrossRuns) {
  const std::string f = write("good.yaml", kGood);
  const std::string a = (dir_ / "a.jsonl").string();
  const std::string b = (dir_ / "b.jsonl").string();
  ASSERT_EQ(run_c3sim("run " + f + " -o " + a).exit_code, 0);
  ASSERT_EQ(run_c3sim("run " + f + " -o " + b).exit_code, 0);
  std::ifstream ia(a), ib(b);
  const std::string sa((std::istreambuf_iterator<char>(ia)), {}),
      sb((std::istreambuf_iterator<char>(ib)), {});
  EXPECT_FALSE(sa.empty());
  EXPECT_EQ(sa, sb);
}

}  // namespace
