// c3sim calibrate / validate from the command line: warnings on stderr, a chained calibration's
// name and `extends:` path (relative to the output file's folder, so the pair can move together),
// and --cross.
#include <filesystem>

#include <gtest/gtest.h>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

namespace fs = std::filesystem;

class CalibrateCli : public ScratchDir {};

const std::string kMeas = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/";

std::string calibrate_cmd(const std::string& base, const std::string& out) {
  return c3sim_binary() + " calibrate " + kMeas + "h200x4_table1.jsonl " + kMeas +
         "h200x4_sweep_gemm.jsonl " + kMeas + "h200x4_sweep_ctas.jsonl " + kMeas +
         "h200x4_sweep_dma.jsonl --hardware " + base + " -o " + out;
}

TEST_F(CalibrateCli, ChainedCalibrationKeepsItsNameAndMovesWithItsBase) {
  fs::create_directories(dir_ / "a" / "sub");
  const CommandResult first = run_command(calibrate_cmd("h200-sxm-x4", path("a/base.yaml")) + " 2>&1");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  // Unused records are counted on stderr, not only in the file's comments.
  EXPECT_NE(first.output.find("warning: stage 'dma': "), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("c3 records not used"), std::string::npos) << first.output;
  const CommandResult second = run_command(calibrate_cmd(path("a/base.yaml"), path("a/sub/chained.yaml")));
  ASSERT_EQ(second.exit_code, 0) << second.output;
  const std::string text = read_file(dir_ / "a" / "sub" / "chained.yaml");
  EXPECT_NE(text.find("\nextends: ../base.yaml\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nname: h200-sxm-x4-calibrated\n"), std::string::npos) << text;
  // Move the folder: the chained file still loads (from another working directory, too).
  fs::rename(dir_ / "a", dir_ / "moved");
  const CommandResult v =
      run_command("cd / && " + c3sim_binary() + " validate " + kMeas + "h200x4_table1.jsonl --hardware " +
                  path("moved/sub/chained.yaml") + " --format json 2>&1");
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_NE(v.output.find("\"mean_abs_pct_error\""), std::string::npos);
}

// The isolated GEMM records on all SMs become library data (gemm_library:) unless switched off.
TEST_F(CalibrateCli, GemmLibraryDataIsWrittenUnlessSwitchedOff) {
  const CommandResult with = run_command(calibrate_cmd("h200-sxm-x4", path("with.yaml")));
  ASSERT_EQ(with.exit_code, 0) << with.output;
  const std::string text = read_file(dir_ / "with.yaml");
  EXPECT_NE(text.find("\ngemm_library:\n  - {shape: 8192x8192x8192, dtype: bf16, efficiency: "),
            std::string::npos)
      << text;
  const CommandResult without =
      run_command(calibrate_cmd("h200-sxm-x4", path("without.yaml")) + " --no-gemm-library");
  ASSERT_EQ(without.exit_code, 0) << without.output;
  EXPECT_EQ(read_file(dir_ / "without.yaml").find("gemm_library"), std::string::npos);
}

TEST_F(CalibrateCli, ValidateWarnsWhenTheRecordsNodeSizeDiffers) {
  const std::string cmd =
      c3sim_binary() + " validate " + kMeas + "h200x2_table1.jsonl --hardware h200-sxm-x4";
  const CommandResult plain = run_command(cmd + " 2>&1 >/dev/null");
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_NE(plain.output.find("records use 2 GPUs, 'h200-sxm-x4' describes 4"), std::string::npos)
      << plain.output;
  const CommandResult cross = run_command(cmd + " --cross 2>&1");
  EXPECT_EQ(cross.exit_code, 0);
  EXPECT_NE(cross.output.find("(cross-node validation)"), std::string::npos);
  EXPECT_NE(cross.output.find("warning: cross-node validation"), std::string::npos);
}

}  // namespace
}  // namespace c3sim::testing
