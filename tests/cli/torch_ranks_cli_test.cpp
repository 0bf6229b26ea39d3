// `c3sim import --from torch-profiler RANK0.json RANK1.json` through the real binary: every rank's
// trace of one step as one program with a kernel list per rank; `run` runs every rank, `--rank R`
// one alone; a rank that starts later holds the collectives and the step moves with it; bad input
// exits 2 with no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

class TorchRanksCli : public ScratchDir {};

const std::string kTraces = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/torch_traces/";

// The program record of a one-policy run: its step, and each rank's when it ran every rank.
struct Step {
  double us = 0;
  std::vector<double> ranks;
};

Step step_of(const std::string& jsonl) {
  Step s;
  std::istringstream in(jsonl);
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["kind"] != "program") continue;
    s.us = j["step_us"].get<double>();
    if (j["extra"].contains("rank_step_us")) s.ranks = j["extra"]["rank_step_us"].get<std::vector<double>>();
  }
  return s;
}

// The start_us of rank entry `rank` in an imported program's text.
double start_of(const std::string& yaml, int rank) {
  const auto at = yaml.find("- rank: " + std::to_string(rank) + "\n");
  EXPECT_NE(at, std::string::npos);
  const auto s = yaml.find("start_us: ", at);
  return std::stod(yaml.substr(s + 10));
}

std::string with_start(std::string yaml, int rank, double start_us) {
  const auto at = yaml.find("- rank: " + std::to_string(rank) + "\n");
  const auto s = yaml.find("start_us: ", at) + 10;
  const auto e = yaml.find('\n', s);
  return yaml.replace(s, e - s, fmt::format("{}", start_us));
}

TEST_F(TorchRanksCli, FsdpBothRanksRunTogetherAndTheStepMovesBySkew) {
  const std::string c3 = c3sim_binary();
  const std::string prog = path("fsdp2.yaml");
  const CommandResult imp = run_command(c3 + " import --from torch-profiler " + kTraces + "fsdp_rank0.json " +
                                        kTraces + "fsdp_rank1.json -o " + prog + " 2>&1");
  ASSERT_EQ(imp.exit_code, 0) << imp.output;
  EXPECT_NE(imp.output.find("rank 1, start"), std::string::npos) << imp.output;
  const std::string yaml = read_file(prog);
  // The earliest rank starts at 0; the other within a step of it.
  const double s0 = start_of(yaml, 0), s1 = start_of(yaml, 1);
  EXPECT_EQ(std::min(s0, s1), 0.0);
  EXPECT_LT(std::max(s0, s1), 10000.0);

  const auto run = [&](const std::string& file, const std::string& flags) {
    const CommandResult r = run_command(c3 + " run " + file + " --hardware h200-sxm --policy base " + flags +
                                        " -o " + path("out.jsonl") + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return step_of(read_file(path("out.jsonl")));
  };
  const Step all = run(prog, "--all-gpus");
  ASSERT_EQ(all.ranks.size(), 2U);
  const Step alone = run(prog, "--rank 0");
  EXPECT_TRUE(alone.ranks.empty());
  // Every rank's run waits at collectives for the other, so it is no shorter than one rank alone;
  // FSDP's two ranks run alike, so not much longer either: in the traces both ranks' step is 1.084x
  // rank 0's own (52127 against 48091 us), the early rank's first all-gather spinning 4.8 ms on its
  // SMs while its other kernels run on the rest.
  EXPECT_GE(all.us, 0.99 * alone.us);
  EXPECT_LE(all.us, 1.15 * alone.us);

  // The later rank starts 1 ms later still: every collective waits for it, so the step grows by
  // the added skew, less at most the slack the later rank had before (its own step ends no
  // later than the step). It may grow a little more: the delayed collectives now overlap other
  // kernels than before and interfere with them. That depends on which kernels they land on, not
  // on the skew's size (beyond the skew: +9, +55, +58 and +56 us at 0.5, 1.5, 2 and 4 ms, +316 us
  // at 1 ms), so it is bounded by a share of the step (1%, 539 us), well below a second skew.
  const int late = s1 >= s0 ? 1 : 0;
  const double skew = 1000;
  const std::string shifted = write("shifted.yaml", with_start(yaml, late, std::max(s0, s1) + skew));
  const Step moved = run(shifted, "");
  EXPECT_LE(moved.us - all.us, skew + 0.01 * all.us) << moved.us << " vs " << all.us;
  EXPECT_GE(moved.us - all.us, skew * 0.9) << moved.us << " vs " << all.us;
}

// The nine committed two-rank steps import with both ranks and run every rank: each rank's list
// holds the step's collectives in the same order, and the all-rank step is no shorter than the
// later-starting rank's own part.
TEST_F(TorchRanksCli, CommittedStepsRunWithEveryRank) {
  const std::string c3 = c3sim_binary();
  const std::string steps = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/torch_steps/";
  for (const char* step :
       {"ddp_b100", "ddp_b25", "fsdp_w4k", "fsdp_w4k_noreshard", "fsdp_w8k", "moe", "sp", "tp", "tp_fp16"}) {
    const std::string prog = path(fmt::format("{}.yaml", step));
    const CommandResult imp =
        run_command(fmt::format("{} import --from torch-profiler {}{}/rank0.json {}{}/rank1.json -o {} 2>&1",
                                c3, steps, step, steps, step, prog));
    ASSERT_EQ(imp.exit_code, 0) << step << ": " << imp.output;
    const CommandResult r = run_command(fmt::format(
        "{} run {} --hardware h200-sxm --policy base --all-gpus -o {} 2>&1", c3, prog, path("out.jsonl")));
    ASSERT_EQ(r.exit_code, 0) << step << ": " << r.output;
    const Step s = step_of(read_file(path("out.jsonl")));
    ASSERT_EQ(s.ranks.size(), 2U) << step;
    EXPECT_GE(s.us, std::max(s.ranks[0], s.ranks[1])) << step;
  }
}

TEST_F(TorchRanksCli, BadRankSetsExitTwoWithNoOutput) {
  const std::string c3 = c3sim_binary();
  const std::string out = path("out.yaml");
  const struct {
    std::string args;
    std::string expect;
  } cases[] = {
      {kTraces + "fsdp_rank0.json " + kTraces + "fsdp_rank0.json", "rank 0 is imported from two traces"},
      {kTraces + "fsdp_rank0.json " + kTraces + "tp_rank1.json", "collective sequences differ"},
      {kTraces + "fsdp_rank0.json " + kTraces + "fsdp_rank1.json --rank 0", "--rank"},
  };
  for (const auto& c : cases) {
    const CommandResult r =
        run_command(fmt::format("{} import --from torch-profiler {} -o {} 2>&1", c3, c.args, out));
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.args << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.args;
  }
  // `run --rank` beyond the program's GPUs, and beside --all-gpus.
  const std::string prog = write("two.yaml", R"(program:
  name: two
  streams: [{name: s}]
  ranks:
    - {rank: 0, kernels: [{name: a, stream: s, measured: {time_us: 5}}]}
    - {rank: 1, start_us: 3, kernels: [{name: b, stream: s, measured: {time_us: 7}}]}
)");
  for (const char* flags : {"--rank 2", "--rank 1 --all-gpus"}) {
    const CommandResult r = run_command(
        fmt::format("{} run {} --hardware h200-sxm {} -o {} 2>&1", c3, prog, flags, path("o.jsonl")));
    EXPECT_EQ(r.exit_code, 2) << flags << ": " << r.output;
    EXPECT_NE(r.output.find("--rank"), std::string::npos) << flags << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(path("o.jsonl"))) << flags;
  }
}

}  // namespace
}  // namespace c3sim::testing
