// c3sim run --trace: the Chrome/Perfetto trace of cb1_896M_ag under base and dma shows what a
// reader must see (base: the collective queued behind the GEMM's workgroups; dma: the transfer
// on the SDMA engines while the GEMM holds the CUs), with the counter tracks and within the
// trace-event rules Perfetto's importer enforces.
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

using nlohmann::json;

class TraceCli : public ScratchDir {};

TEST_F(TraceCli, Cb1AllGatherBaseVersusDma) {
  const std::string scen =
      write("s.yaml", "scenarios:\n  - catalog: cb1_896M_ag\n    policies: [base, dma]\n");
  const auto r = run_command(c3sim_binary() + " run " + scen + " -o " + path("r.jsonl") + " --trace " +
                             path("t.json") + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(read_file(path("t.json")));

  std::map<int, std::string> process;                 // pid -> name
  std::map<std::pair<int, int>, std::string> thread;  // (pid, tid) -> name
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "M") continue;
    if (e["name"] == "process_name") process[e["pid"]] = e["args"]["name"];
    if (e["name"] == "thread_name") thread[{e["pid"], e["tid"]}] = e["args"]["name"];
  }
  int base = 0, dma = 0;
  for (const auto& [pid, name] : process) {
    if (name == "cb1_896M_ag / base / gpu0") base = pid;
    if (name == "cb1_896M_ag / dma / gpu0") dma = pid;
  }
  ASSERT_NE(base, 0);
  ASSERT_NE(dma, 0);

  double base_wait_us = 0, dma_engine_us = 0;
  std::set<std::string> base_tracks, dma_tracks, counters;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "C") {
      counters.insert(e["name"].get<std::string>().substr(0, e["name"].get<std::string>().find(' ')));
      continue;
    }
    if (e["ph"] != "X") continue;
    const int pid = e["pid"];
    const std::string& track = thread[{pid, e["tid"]}];
    const double ts = e["ts"], dur = e["dur"];
    slices[{pid, e["tid"]}].emplace_back(ts, ts + dur);
    (pid == base ? base_tracks : dma_tracks).insert(track);
    if (pid == base && e["name"] == "waiting for CUs" && track == "comm_stream") base_wait_us = dur;
    if (pid == dma && track.rfind("sdma", 0) == 0) dma_engine_us += dur;
  }
  // base: the all-gather waits for CUs the GEMM's earlier-launched workgroups hold (a wave or more).
  EXPECT_GT(base_wait_us, 300.0);
  EXPECT_TRUE(base_tracks.contains("comm_stream"));
  // dma: no collective kernel at all; transfers run on the engines.
  EXPECT_FALSE(dma_tracks.contains("comm_stream"));
  EXPECT_GT(dma_engine_us, 1000.0);
  EXPECT_TRUE(dma_tracks.contains("host"));
  EXPECT_TRUE(dma_tracks.contains("xcd0"));
  for (const char* c : {"HBM", "LLC", "L2", "link", "DMA"}) EXPECT_TRUE(counters.contains(c)) << c;

  // Perfetto's JSON importer: slices on one thread are disjoint or properly nested. It keeps
  // whole nanoseconds, so ts + dur may miss the next slice's ts by a rounding error (1e-6 us).
  constexpr double kRounding = 1e-6;
  for (auto& [key, v] : slices) {
    std::sort(v.begin(), v.end(),
              [](auto a, auto b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
    std::vector<double> open;
    for (const auto& [b, e] : v) {
      while (!open.empty() && open.back() <= b + kRounding) open.pop_back();
      ASSERT_TRUE(open.empty() || e <= open.back() + kRounding)
          << "overlapping slices on pid " << key.first << " tid " << key.second;
      open.push_back(e);
    }
  }
}

}  // namespace
}  // namespace c3sim::testing
