#pragma once
// Helpers for tests that run the real binaries (c3sim, mpirun, chromium): run a shell command and
// capture its output, find a tool on PATH, and a per-test scratch directory.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace c3sim::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout (+ stderr when merged by the command)
};

inline CommandResult run_command(const std::string& cmd) {
  CommandResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string c3sim_binary() { return std::string(C3SIM_BINARY_DIR) + "/sim/cli/c3sim"; }

// True when `tool` is on PATH.
inline bool have_tool(const std::string& tool) {
  return run_command("command -v " + tool + " >/dev/null 2>&1").exit_code == 0;
}

// `c3sim sweep FILE --threads 1 -o OUT` on 2 MPI ranks, stderr folded into the output. Root in
// containers and 2 cores: OpenMPI needs both allowances to start 2 ranks. Under the sanitizer
// build, OpenMPI's runtime leaks by design at MPI_Finalize (its dlclosed plugins), so leak checking
// is off for the ranks only; the single-process sweep tests cover c3sim's own code.
inline CommandResult sweep_on_two_mpi_ranks(const std::string& file, const std::string& out) {
  return run_command(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 "
      "ASAN_OPTIONS=detect_leaks=0 mpirun -n 2 " +
      c3sim_binary() + " sweep " + file + " --threads 1 -o " + out + " 2>&1");
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ScratchDir : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("c3sim_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return path(name);
  }
  std::filesystem::path dir_;
};

}  // namespace c3sim::testing
