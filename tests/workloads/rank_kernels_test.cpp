// One kernel list per rank in program YAML (`ranks:`, wl::RankKernels): parsing, the round trip,
// what each rank runs, and bad input (unknown keys, duplicate or missing ranks, a rank beyond
// `gpus`, collective sequences that differ between ranks, per-rank lists beside imbalance).
#include <gtest/gtest.h>

#include "workloads/program_io.h"

namespace c3sim::wl {
namespace {

// Rank 1 runs a longer first kernel and an extra one, and starts 1 ms after rank 0; both have the
// same collectives in the same order.
constexpr const char* kTwoRanks = R"(program:
  name: step
  streams:
    - {name: compute}
    - {name: comm}
  ranks:
    - rank: 0
      start_us: 0
      kernels:
        - {name: w, stream: compute, measured: {time_us: 500}}
        - {name: ag, stream: comm, after: [w], collective: {op: all_gather, bytes: 256 MiB}}
        - {name: rs, stream: comm, collective: {op: reduce_scatter, bytes: 64 MiB}}
    - rank: 1
      start_us: 1000
      kernels:
        - {name: w1, stream: compute, measured: {time_us: 600}}
        - {name: extra, stream: compute, measured: {time_us: 10}}
        - {name: ag1, stream: comm, after: [w1], collective: {op: all_gather, bytes: 256 MiB}}
        - {name: rs1, stream: comm, collective: {op: reduce_scatter, bytes: 64 MiB}}
)";

Program load(const std::string& text) { return load_programs_string(text, "ranks.yaml").at(0); }

std::string edit(const std::string& from, const std::string& to) {
  std::string t = kTwoRanks;
  const auto at = t.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return t.replace(at, from.size(), to);
}

InputError load_error(const std::string& text) {
  try {
    load(text);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return InputError({}, "", "");
}

TEST(RankKernels, EachRankRunsItsOwnListFromItsOwnStart) {
  const Program p = load(kTwoRanks);
  EXPECT_TRUE(p.asymmetric());
  ASSERT_TRUE(p.gpus.has_value());
  EXPECT_EQ(*p.gpus, 2);  // one GPU per listed rank
  ASSERT_EQ(p.rank_kernels.size(), 2U);
  ASSERT_EQ(p.kernels.size(), 3U);  // rank 0's list, for code that looks at one GPU
  EXPECT_EQ(p.kernels[0].name, "w");
  const Program r1 = program_for_rank(p, 1);
  EXPECT_TRUE(r1.rank_kernels.empty());
  ASSERT_EQ(r1.kernels.size(), 4U);
  EXPECT_EQ(r1.kernels[0].name, "w1");
  EXPECT_DOUBLE_EQ(r1.kernels[0].measured.time_us, 600);
  EXPECT_DOUBLE_EQ(r1.start_us, 1000);
  EXPECT_DOUBLE_EQ(program_for_rank(p, 0).start_us, 0);
}

TEST(RankKernels, RoundTripKeepsEveryRank) {
  const Program p = load(kTwoRanks);
  const std::string once = program_to_yaml(p);
  const Program back = load_programs_string(once, "back.yaml").at(0);
  EXPECT_EQ(program_to_yaml(back), once);
  ASSERT_EQ(back.rank_kernels.size(), 2U);
  EXPECT_DOUBLE_EQ(back.rank_kernels[1].start_us, 1000);
  EXPECT_EQ(back.rank_kernels[1].kernels.size(), 4U);
}

TEST(RankKernels, BadInputNamesTheRankEntry) {
  const struct {
    std::string text;
    std::string key;
    int line;
    std::string problem;
  } cases[] = {
      {edit("      start_us: 1000\n", "      start_us: 1000\n      speed: 2\n"), "ranks[1].speed", 15,
       "unknown"},
      {edit("    - rank: 1\n", "    - rank: 0\n"), "step.ranks[1].rank", 13, "duplicate rank 0"},
      {edit("  name: step\n", "  name: step\n  gpus: 3\n"), "step.ranks", 2, "rank 2 has no kernel list"},
      {edit("    - rank: 1\n", "    - rank: 5\n"), "step.ranks[1].rank", 13, "beyond the program's 2 GPUs"},
      {edit("{op: all_gather, bytes: 256 MiB}}\n        - {name: rs1",
            "{op: all_gather, bytes: 128 MiB}}\n        - {name: rs1"),
       "step.ranks[1].kernels.ag1.collective", 18, "collective sequences differ"},
      {edit("        - {name: rs1, stream: comm, collective: {op: reduce_scatter, bytes: 64 MiB}}\n", ""),
       "step.ranks[1].kernels", 13, "rank 1 has 1 collectives, rank 0 has 2"},
      {edit("        - {name: ag1, stream: comm, after: [w1]",
            "        - {name: ag1, stream: comm, after: [w]"),
       "step.ranks[1].kernels.ag1.after", 18, "'w' is not a kernel"},
      {edit("  ranks:\n", "  kernels: []\n  ranks:\n"), "kernels", 6, "not both"},
      {std::string(kTwoRanks) + "  imbalance:\n    - {kernels: [w], dim: m, factors: [1, 2]}\n", "step.ranks",
       7, "no imbalance or rank_overrides"},
  };
  for (const auto& c : cases) {
    const InputError e = load_error(c.text);
    EXPECT_NE(e.key().find(c.key), std::string::npos) << e.what() << "\nwant key " << c.key;
    EXPECT_EQ(e.where().line, c.line) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.problem), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace c3sim::wl
