// The one output guard of every command (sim/cli/output.h): no output may be an input (by path,
// symlink or hard link, including a hardware file's `extends:` base), the same file as another
// output, or anything but a regular file or a new path; outputs are written together or not at
// all; a staged temp file is removed when c3sim is stopped by SIGTERM. Each case is a command a
// user could type; each must exit 2, name the option, and leave every input byte-identical.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProgram = R"(program:
  name: chain
  streams:
    - {name: compute}
    - {name: comm}
  kernels:
    - {name: ag, stream: comm, collective: {op: all_gather, bytes: 64 MiB}}
    - {name: gemm, stream: compute, after: [ag], gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}}
)";

class OutputGuard : public ScratchDir {
protected:
  CommandResult c3sim(const std::string& args) const {
    return run_command("cd " + dir_.string() + " && " + c3sim_binary() + " " + args + " 2>&1");
  }
  // Runs `args`, which must be refused: exit 2, `flag` named, `input` unchanged, `absent` not created.
  void expect_refused(const std::string& args, const std::string& flag, const std::string& input,
                      const std::string& absent = "") const {
    const std::string before = read_file(path(input));
    const CommandResult r = c3sim(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("'" + flag + "'"), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(read_file(path(input)), before) << args << ": " << input << " changed";
    if (!absent.empty()) {
      EXPECT_FALSE(fs::exists(path(absent))) << args << ": " << absent << " written";
    }
    for (const auto& e : fs::directory_iterator(dir_)) {
      EXPECT_EQ(e.path().filename().string().find(".c3sim-tmp."), std::string::npos) << e.path();
    }
  }
};

TEST_F(OutputGuard, ProgramRunNeverWritesOverItsProgram) {
  write("p.yaml", kProgram);
  expect_refused("run p.yaml -o p.yaml", "-o", "p.yaml");
  expect_refused("run p.yaml --format table -o ./p.yaml", "-o", "p.yaml");
}

TEST_F(OutputGuard, GeneratedProgramRunWithItselfAsOutputIsRefused) {
  ASSERT_EQ(c3sim("generate fsdp-layer -o p.yaml").exit_code, 0);
  expect_refused("run p.yaml -o p.yaml", "-o", "p.yaml");
}

TEST_F(OutputGuard, ProgramRunOutputThroughASymlinkOrHardLinkToTheProgram) {
  write("p.yaml", kProgram);
  fs::create_symlink("p.yaml", dir_ / "link.yaml");
  expect_refused("run p.yaml -o link.yaml", "-o", "p.yaml");
  fs::create_hard_link(dir_ / "p.yaml", dir_ / "hard.yaml");
  expect_refused("run p.yaml -o hard.yaml", "-o", "p.yaml");
  expect_refused("run p.yaml --trace hard.yaml", "--trace", "p.yaml", "out.jsonl");
}

TEST_F(OutputGuard, ProgramRunOutputIsTheHardwareFileOrItsBase) {
  write("p.yaml", kProgram);
  write("base.yaml", "extends: mi300x\n");
  write("hw.yaml", "extends: base.yaml\n");
  expect_refused("run p.yaml --hardware hw.yaml -o hw.yaml", "-o", "hw.yaml");
  expect_refused("run p.yaml --hardware hw.yaml -o base.yaml", "-o", "base.yaml");
  expect_refused("run p.yaml --hardware hw.yaml --trace base.yaml", "--trace", "base.yaml");
}

TEST_F(OutputGuard, ProgramRunTraceIsTheProgramOrTheOutput) {
  write("p.yaml", kProgram);
  expect_refused("run p.yaml -o out.jsonl --trace p.yaml", "--trace", "p.yaml", "out.jsonl");
  expect_refused("run p.yaml -o out.json --trace out.json", "--trace", "p.yaml", "out.json");
  expect_refused("run p.yaml -o out.json --trace ./out.json", "--trace", "p.yaml", "out.json");
}

TEST_F(OutputGuard, ProgramRunWithAnUnwritableTraceWritesNoOutputAndNamesTheTrace) {
  write("p.yaml", kProgram);
  expect_refused("run p.yaml -o out.jsonl --trace missing/t.json", "--trace", "p.yaml", "out.jsonl");
  fs::create_directory(dir_ / "folder");
  expect_refused("run p.yaml -o out.jsonl --trace folder", "--trace", "p.yaml", "out.jsonl");
}

TEST_F(OutputGuard, ProgramRunStillWritesBothOutputs) {
  write("p.yaml", kProgram);
  const CommandResult r = c3sim("run p.yaml -o out.jsonl --trace t.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_file(path("out.jsonl")).find("\"kind\":\"program\""), std::string::npos);
  EXPECT_NE(read_file(path("t.json")).find("traceEvents"), std::string::npos);
}

TEST_F(OutputGuard, ScenarioRunOutputIsTheHardwareFilesBase) {
  write("base.yaml", "extends: mi300x\n");
  write("hw.yaml", "extends: base.yaml\n");
  write("s.yaml", R"(scenarios:
  - name: small
    gpus: 8
    gemm: {m: 2048, n: 2048, k: 2048, dtype: bf16}
    collective: {op: all_gather, bytes: 16777216, impl: cu}
    policies: [base]
)");
  expect_refused("run s.yaml --hardware hw.yaml -o base.yaml", "-o", "base.yaml");
}

TEST_F(OutputGuard, CalibrateOutputIsTheBaseOfItsHardware) {
  write("base.yaml", "extends: h200-sxm-x4\n");
  write("hw.yaml", "extends: base.yaml\n");
  write(
      "m.jsonl",
      R"({"schema":"c3sim.measurement","version":1,"kind":"iso_coll","op":"all_gather","bytes":1048576,"impl":"cu","gpus":4,"time_us":40.5,"trials":3})"
      "\n");
  expect_refused("calibrate m.jsonl --hardware hw.yaml -o base.yaml", "-o", "base.yaml");
}

TEST_F(OutputGuard, GenerateRefusesAFolderOrDevice) {
  write("keep.txt", "x");
  fs::create_directory(dir_ / "folder");
  expect_refused("generate fsdp-layer -o folder", "-o", "keep.txt");
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  expect_refused("generate fsdp-layer -o fifo", "-o", "keep.txt");
}

TEST_F(OutputGuard, ImportAndSweepOutputsAreNotTheirInputs) {
  write("p.yaml", kProgram);
  write("s.yaml", "hardware: mi300x\nprograms:\n  - {file: p.yaml}\npolicies: [base]\n");
  fs::create_symlink("p.yaml", dir_ / "link.yaml");
  expect_refused("sweep s.yaml -q -o link.yaml", "-o", "p.yaml");
  expect_refused("sweep s.yaml -q -o s.yaml", "-o", "s.yaml");
  const std::string log = std::string(C3SIM_SOURCE_DIR) + "/tests/data/nccl_tests_all_gather_h200x4.log";
  fs::copy_file(log, dir_ / "nccl.log");
  fs::create_hard_link(dir_ / "nccl.log", dir_ / "hard.log");
  expect_refused("import nccl.log -o hard.log", "-o", "nccl.log");
}

// SIGTERM while a sweep is staging its output: the temp file beside the target is removed, the
// target never appears, and the process still dies of SIGTERM (the handler re-raises it).
TEST_F(OutputGuard, SigtermMidSweepLeavesNoTempFileAndNoOutput) {
  const std::string file = std::string(C3SIM_SOURCE_DIR) + "/tests/data/sweep_1e7_points.yaml";
  const std::string binary = c3sim_binary();
  const std::string out = path("out.csv");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl(binary.c_str(), binary.c_str(), "sweep", "-q", "--threads", "1", file.c_str(), "-o", out.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  auto temp_exists = [&] {
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.path().filename().string().starts_with("out.csv.c3sim-tmp.")) return true;
    }
    return false;
  };
  bool staged = false;
  for (int i = 0; i < 600 && !staged; ++i) {  // up to 60 s for the load checks of 10^7 points
    staged = temp_exists();
    if (!staged) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(staged) << "the sweep never staged its output";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  EXPECT_FALSE(temp_exists());
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace c3sim::testing
