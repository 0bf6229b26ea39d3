// Per-rank differences in program YAML (imbalance, rank_overrides): parsing, the round trip, what
// each rank runs, and bad input (rank out of range, length mismatch, a collective, unknown names).
#include <gtest/gtest.h>

#include "workloads/program_generators.h"
#include "workloads/program_io.h"

namespace c3sim::wl {
namespace {

constexpr const char* kMoe = R"(program:
  name: moe
  gpus: 4
  streams:
    - {name: compute}
    - {name: comm}
  kernels:
    - {name: dispatch, stream: comm, collective: {op: all_to_all, bytes: 64 MiB}}
    - {name: up, stream: compute, after: [dispatch], gemm: {m: 28672, n: 16384, k: 4096}}
    - {name: act, stream: compute, memory: {bytes: 1 GiB}}
    - {name: opt, stream: compute, measured: {time_us: 100}}
    - {name: combine, stream: comm, after: [opt], collective: {op: all_to_all, bytes: 64 MiB}}
  imbalance:
    - {kernels: [up, act, opt], dim: n, factors: [1, 1.5, 0.5, 1]}
  rank_overrides:
    - {rank: 3, kernel: up, k: 2048}
)";

constexpr int kNodeGpus = 8;
constexpr int kNodeCus = 304;

Program load_ranked_program(const std::string& text) { return load_programs_string(text, "r.yaml").at(0); }

std::string edit_ranked_yaml(const std::string& from, const std::string& to) {
  std::string t = kMoe;
  const auto at = t.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return t.replace(at, from.size(), to);
}

InputError fit_error(const std::string& text) {
  try {
    check_program_fits(load_ranked_program(text), kNodeGpus, kNodeCus);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return InputError({}, "", "");
}

TEST(ProgramRanks, EachRankRunsItsScaledKernels) {
  const Program p = load_ranked_program(kMoe);
  check_program_fits(p, kNodeGpus, kNodeCus);
  EXPECT_TRUE(p.asymmetric());
  // Rank 1: factor 1.5 on n (16384 -> 24576), the memory bytes (1 GiB -> 1.5 GiB) and the measured
  // time (100 -> 150 us); rank 3: factor 1 and k overridden to 2048; collectives untouched.
  const Program r1 = program_for_rank(p, 1);
  EXPECT_EQ(r1.kernels[1].gemm.n, 24576);
  EXPECT_EQ(r1.kernels[1].gemm.m, 28672);
  EXPECT_EQ(r1.kernels[2].memory.bytes, std::int64_t{3} << 29);
  EXPECT_DOUBLE_EQ(r1.kernels[3].measured.time_us, 150);
  EXPECT_EQ(r1.kernels[4].collective.bytes, std::int64_t{64} << 20);
  EXPECT_FALSE(r1.asymmetric());
  const Program r3 = program_for_rank(p, 3);
  EXPECT_EQ(r3.kernels[1].gemm.k, 2048);
  EXPECT_EQ(r3.kernels[1].gemm.n, 16384);
  EXPECT_EQ(program_for_rank(p, 2).kernels[1].gemm.n, 8192);
}

TEST(ProgramRanks, RoundTripsThroughYaml) {
  const Program a = load_ranked_program(kMoe);
  const std::string text = programs_to_yaml({a});
  EXPECT_EQ(programs_to_yaml(load_programs_string(text, "again.yaml")), text);
  EXPECT_NE(text.find("rank_overrides"), std::string::npos);
  const Program b = load_ranked_program(edit_ranked_yaml("  imbalance:", "  all_gpus: true\n  imbalance:"));
  EXPECT_TRUE(load_programs_string(programs_to_yaml({b}), "b.yaml").at(0).all_gpus);
}

TEST(ProgramRanks, BadRankDifferencesNameTheKey) {
  EXPECT_EQ(fit_error(edit_ranked_yaml("rank: 3,", "rank: 4,")).key(), "moe.rank_overrides[0].rank");
  EXPECT_EQ(fit_error(edit_ranked_yaml("factors: [1, 1.5, 0.5, 1]", "factors: [1, 1.5]")).key(),
            "moe.imbalance[0].factors");
  EXPECT_EQ(fit_error(edit_ranked_yaml("kernels: [up, act, opt]", "kernels: [up, dispatch]")).key(),
            "moe.imbalance[0].kernels");
  EXPECT_EQ(fit_error(edit_ranked_yaml("kernel: up, k: 2048", "kernel: nope, k: 2048")).key(),
            "moe.rank_overrides[0].kernel");
  EXPECT_EQ(fit_error(edit_ranked_yaml("kernel: up, k: 2048", "kernel: act, k: 2048")).key(),
            "moe.rank_overrides[0].kernel");
  // Parse-time errors.
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"dim: n", "dim: x"},
           {"factors: [1, 1.5, 0.5, 1]", "factors: [1, 0, 1, 1]"},
           {"kernel: up, k: 2048", "kernel: up"},
           {"k: 2048}", "k: 2048, extra: 1}"}}) {
    EXPECT_THROW((void)load_ranked_program(edit_ranked_yaml(from, to)), InputError) << to;
  }
}

// A factor or an override may not build, on any rank, what a scenario file could not name: the
// GEMM side, GEMM output and byte bounds of workloads/input_limits.h hold per rank.
TEST(ProgramRanks, RankSizesKeepTheFileBounds) {
  // The error points at the imbalance or override entry that set the size (line 14 holds the
  // imbalance, line 16 the override) and its message names the kernel field and rank it broke.
  // Rank 1's factor 1e300 on n: clamped before rounding (no overflow), then over 2^24 per side.
  InputError e = fit_error(edit_ranked_yaml("factors: [1, 1.5, 0.5, 1]", "factors: [1, 1e300, 0.5, 1]"));
  EXPECT_EQ(e.key(), "moe.imbalance[0].factors[1]");
  EXPECT_EQ(e.where().line, 14);
  EXPECT_NE(e.problem().find("moe.kernels.up.gemm[rank 1].n"), std::string::npos) << e.problem();
  // 28672 x 16777216 = 4.8e11 output elements > 2^36 = 6.9e10, each side within 2^24.
  e = fit_error(edit_ranked_yaml("kernel: up, k: 2048", "kernel: up, n: 16777216"));
  EXPECT_EQ(e.key(), "moe.rank_overrides[0]");
  EXPECT_EQ(e.where().line, 16);
  EXPECT_NE(e.problem().find("moe.kernels.up.gemm[rank 3].n"), std::string::npos) << e.problem();
  // 1 GiB x 2^21 = 2^51 bytes > 1 PiB = 2^50; the GEMM (listed first) breaks first.
  e = fit_error(edit_ranked_yaml("factors: [1, 1.5, 0.5, 1]", "factors: [1, 2097152, 0.5, 1]"));
  EXPECT_EQ(e.key(), "moe.imbalance[0].factors[1]");
  EXPECT_NE(e.problem().find("moe.kernels.up.gemm[rank 1].n"), std::string::npos) << e.problem();
  e = fit_error(edit_ranked_yaml("kernels: [up, act, opt], dim: n, factors: [1, 1.5, 0.5, 1]",
                                 "kernels: [act], dim: n, factors: [1, 2097152, 0.5, 1]"));
  EXPECT_EQ(e.key(), "moe.imbalance[0].factors[1]");
  EXPECT_NE(e.problem().find("moe.kernels.act.memory[rank 1].bytes"), std::string::npos) << e.problem();
  // The base shape too: a program GEMM over 2^36 output elements is refused at parse time.
  EXPECT_THROW((void)load_ranked_program(edit_ranked_yaml("m: 28672, n: 16384", "m: 16777216, n: 16384")),
               InputError);
}

TEST(ProgramRanks, GeneratorImbalanceRepeatsOverRanks) {
  const Program moe = generate_program("moe-layer", "", 8, {});
  const Program skew = with_moe_imbalance(moe, {1.0, 1.5}, {});
  check_program_fits(skew, 8, kNodeCus);
  ASSERT_EQ(skew.imbalance.size(), 1U);
  EXPECT_EQ(skew.imbalance[0].factors, (std::vector<double>{1, 1.5, 1, 1.5, 1, 1.5, 1, 1.5}));
  const auto up = moe.kernel_at("e0_gate_up");
  EXPECT_EQ(program_for_rank(skew, 3).kernels[up].gemm.n, moe.kernels[up].gemm.n * 3 / 2);
  EXPECT_THROW((void)with_moe_imbalance(moe, {1, 1.5, 2}, {}), InputError);
  EXPECT_THROW((void)with_moe_imbalance(moe, {1, -1}, {}), InputError);
}

}  // namespace
}  // namespace c3sim::wl
