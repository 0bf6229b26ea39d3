// `c3sim import --from torch-profiler ... --nccl-log LOG`: the committed DDP step (2 ranks, 9
// all-reduce buckets) with a synthetic NCCL tuning log built from its own collectives: every
// collective takes the logged algorithm, protocol and channels, the counts reach stderr and the
// header, and the program runs; bad logs exit 2 with no output.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>
#include <vector>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

class NcclLogImportCli : public ScratchDir {};

const std::string kStep = std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/torch_steps/ddp_b25/";

// The all-reduce sizes of rank 0's list, in launch order, from the program file ("25 MiB", "8192").
std::vector<long long> all_reduce_bytes(const std::string& yaml) {
  std::vector<long long> out;
  const std::string rank0 = yaml.substr(0, yaml.find("- rank: 1"));
  const std::regex re(R"(op: all_reduce, bytes: ([0-9.]+)( ?([KMG])iB)?)");
  for (auto it = std::sregex_iterator(rank0.begin(), rank0.end(), re); it != std::sregex_iterator(); ++it) {
    double b = std::stod((*it)[1]);
    const std::string unit = (*it)[3];
    if (unit == "K") b *= 1024;
    if (unit == "M") b *= 1024.0 * 1024;
    if (unit == "G") b *= 1024.0 * 1024 * 1024;
    out.push_back(std::llround(b));
  }
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(NcclLogImportCli, EveryCollectiveTakesItsLoggedChoice) {
  const std::string c3 = c3sim_binary();
  const std::string traces = kStep + "rank0.json " + kStep + "rank1.json";
  const CommandResult plain =
      run_command(c3 + " import --from torch-profiler " + traces + " -o " + path("plain.yaml") + " 2>&1");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const std::vector<long long> sizes = all_reduce_bytes(read_file(path("plain.yaml")));
  ASSERT_EQ(sizes.size(), 9U);

  // A barrier's 4-byte all-reduce first (no collective of the trace), then one line per bucket:
  // the first LL on one channel, the rest simple on 24, amid other INFO lines.
  std::ostringstream log;
  log << "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0\n";
  log << "h:1:1 [0] NCCL INFO AllReduce: 4 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    log << "h:1:1 [0] NCCL INFO AllReduce: " << sizes[i] << " Bytes -> Algo RING proto "
        << (i == 0 ? "LL channel{Lo..Hi}={0..0}" : "SIMPLE channel{Lo..Hi}={0..23}") << "\n";
  }
  const std::string nccl = write("nccl_rank0.log", log.str());
  const std::string out = path("step.yaml");
  const CommandResult r = run_command(c3 + " import --from torch-profiler " + traces + " --nccl-log " + nccl +
                                      " -o " + out + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(count(r.output, "NCCL tuning log: 9 of 9 collectives matched"), 2U) << r.output;  // each rank
  const std::string yaml = read_file(out);
  EXPECT_EQ(count(yaml, "# rank 0: NCCL tuning log: 9 of 9 collectives matched"), 1U);
  EXPECT_NE(yaml.find("0 unmatched"), std::string::npos);
  EXPECT_NE(yaml.find("10 tuning lines"), std::string::npos);     // the barrier's and the nine
  EXPECT_EQ(count(yaml, "protocol: ll, channels: 1"), 2U);        // the first bucket of each rank
  EXPECT_EQ(count(yaml, "protocol: simple, channels: 24"), 16U);  // the other eight of each
  EXPECT_EQ(count(yaml, "algorithm: ring"), 18U);

  const CommandResult run = run_command(c3 + " run " + out + " --hardware h200-sxm --policy base -o " +
                                        path("out.jsonl") + " 2>&1");
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

TEST_F(NcclLogImportCli, BadLogsExitTwoWithNoOutput) {
  const std::string c3 = c3sim_binary();
  const std::string bad = write(
      "bad.log", "h:1:1 [0] NCCL INFO ok\nh:1:1 [0] NCCL INFO AllReduce: 4 Bytes -> Algo RING proto LL2 x\n");
  const std::string out = path("out.yaml");
  const CommandResult r = run_command(c3 + " import --from torch-profiler " + kStep +
                                      "rank0.json --nccl-log " + bad + " -o " + out + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.log:2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("proto"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  // The log describes a traced step: with nccl-tests output it is a mistake.
  const std::string tests_log = write("nccl_tests.txt", "# nThread 1 nGpus 2\n");
  const CommandResult t =
      run_command(c3 + " import " + tests_log + " --nccl-log " + bad + " -o " + out + " 2>&1");
  EXPECT_EQ(t.exit_code, 2) << t.output;
  EXPECT_NE(t.output.find("--from torch-profiler"), std::string::npos) << t.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace c3sim::testing
