// Program YAML: the happy path, a round trip, the pair shorthand, and each kind of bad input
// naming file, line and key.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "workloads/paper_catalog.h"
#include "workloads/program_io.h"

namespace c3sim::wl {
namespace {

constexpr const char* kTp = R"(program:
  name: tp_block
  gpus: 8
  launch_gap_us: 4
  streams:
    - {name: compute}
    - {name: comm, priority: 1, cus: 32}
  kernels:
    - {name: qkv, stream: compute, gemm: {m: 8192, n: 10240, k: 8192, dtype: bf16}}
    - {name: ar, stream: comm, after: [qkv], collective: {op: all_reduce, bytes: 128 MiB}}
    - {name: add, stream: compute, after: [ar], memory: {bytes: 256 MiB}, gap_us: 2}
    - {name: stage, stream: comm, dma_copy: {bytes: 64 MiB, to_peer: true}}
    - {name: up, stream: compute, gemm: cb1}
  policies: [base, "ficco:4"]
)";

std::vector<Program> load(const std::string& text) { return load_programs_string(text, "p.yaml"); }

InputError load_error(const std::string& text) {
  try {
    (void)load(text);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return InputError({}, "", "");
}

// `text` with the first occurrence of `from` replaced by `to`.
std::string edit(const std::string& from, const std::string& to) {
  std::string t = kTp;
  const auto at = t.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return t.replace(at, from.size(), to);
}

TEST(ProgramIo, ParsesEveryKernelKind) {
  const auto ps = load(kTp);
  ASSERT_EQ(ps.size(), 1U);
  const Program& p = ps[0];
  EXPECT_EQ(p.name, "tp_block");
  EXPECT_EQ(p.gpus, 8);
  EXPECT_DOUBLE_EQ(*p.launch_gap_us, 4.0);
  ASSERT_EQ(p.streams.size(), 2U);
  EXPECT_EQ(p.streams[1].priority, 1);
  EXPECT_EQ(p.streams[1].cus, 32);
  ASSERT_EQ(p.kernels.size(), 5U);
  EXPECT_EQ(p.kernels[0].kind, KernelKind::gemm);
  EXPECT_EQ(p.kernels[0].gemm.n, 10240);
  EXPECT_EQ(p.kernels[1].kind, KernelKind::collective);
  EXPECT_EQ(p.kernels[1].collective.op, CollectiveOp::all_reduce);
  EXPECT_EQ(p.kernels[1].collective.bytes, 128LL << 20);
  EXPECT_EQ(p.kernels[1].after, std::vector<std::string>{"qkv"});
  EXPECT_EQ(p.kernels[2].kind, KernelKind::memory);
  EXPECT_EQ(p.kernels[2].memory.bytes, 256LL << 20);
  EXPECT_DOUBLE_EQ(*p.kernels[2].gap_us, 2.0);
  EXPECT_EQ(p.kernels[3].kind, KernelKind::dma_copy);
  EXPECT_TRUE(p.kernels[3].dma.to_peer);
  EXPECT_EQ(p.kernels[4].gemm.tag, "cb1");  // Table I tag
  EXPECT_EQ(p.policies, (std::vector<std::string>{"base", "ficco:4"}));
  EXPECT_EQ(p.kernels[1].location.line, 10);
}

TEST(ProgramIo, RoundTripsThroughYaml) {
  const auto a = load(kTp);
  const auto b = load_programs_string(programs_to_yaml(a), "again.yaml");
  ASSERT_EQ(b.size(), 1U);
  EXPECT_EQ(programs_to_yaml(a), programs_to_yaml(b));
  EXPECT_EQ(b[0].kernels[4].gemm.m, a[0].kernels[4].gemm.m);
  EXPECT_EQ(b[0].kernels[1].after, a[0].kernels[1].after);
}

// A gather's access pattern survives the round trip; without `gather:` a memory kernel has none.
TEST(ProgramIo, GatherRoundTrips) {
  const auto a = load(edit("memory: {bytes: 256 MiB}",
                           "memory: {bytes: 256 MiB, gather: {rows_per_item: 8, "
                           "threads_per_cu: 1024}}"));
  ASSERT_TRUE(a[0].kernels[2].memory.gather.has_value());
  EXPECT_EQ(a[0].kernels[2].memory.gather->rows_per_item, 8);
  EXPECT_EQ(a[0].kernels[2].memory.gather->threads_per_cu, 1024);
  const auto b = load_programs_string(programs_to_yaml(a), "again.yaml");
  ASSERT_TRUE(b[0].kernels[2].memory.gather.has_value());
  EXPECT_EQ(b[0].kernels[2].memory.gather->rows_per_item, 8);
  EXPECT_EQ(b[0].kernels[2].memory.gather->threads_per_cu, 1024);
  EXPECT_FALSE(load(kTp)[0].kernels[2].memory.gather.has_value());
}

TEST(ProgramIo, DetectsProgramDocuments) {
  EXPECT_TRUE(is_program_document(load_yaml_string(kTp, "p.yaml")));
  EXPECT_FALSE(is_program_document(load_yaml_string("scenarios: []\n", "s.yaml")));
}

TEST(ProgramIo, PairShorthandIsATwoKernelProgram) {
  const Scenario s = *find_paper_scenario("mb1_896M_ag");
  const Program p = program_from_scenario(s);
  validate_program(p);
  ASSERT_EQ(p.kernels.size(), 2U);
  EXPECT_EQ(p.kernels[0].kind, KernelKind::gemm);
  EXPECT_EQ(p.kernels[0].gemm.m, s.gemm.m);
  EXPECT_EQ(p.kernels[1].collective.bytes, s.collective.bytes);
  EXPECT_NE(p.kernels[0].stream, p.kernels[1].stream);  // the two may overlap
  EXPECT_TRUE(p.kernels[1].after.empty());
}

TEST(ProgramIo, TopologicalOrderRespectsStreamsAndEvents) {
  const Program p = load(kTp)[0];
  const std::vector<int> order = topological_order(p);
  auto pos = [&](int k) { return std::find(order.begin(), order.end(), k) - order.begin(); };
  EXPECT_LT(pos(0), pos(1));  // ar after qkv (event)
  EXPECT_LT(pos(1), pos(2));  // add after ar (event)
  EXPECT_LT(pos(1), pos(3));  // stage after ar (stream order on comm)
  EXPECT_LT(pos(2), pos(4));  // up after add (stream order on compute)
}

TEST(ProgramIo, DependencyIndicesFollowAfterInOrder) {
  Program p = load(kTp)[0];
  p.kernels[4].after = {p.kernels[2].name, "no_such_kernel", p.kernels[0].name};
  const std::vector<std::vector<int>> deps = dependency_indices(p);
  ASSERT_EQ(deps.size(), p.kernels.size());
  for (size_t i = 0; i < 4; ++i) {  // each name resolves to the kernel kernel_at finds
    ASSERT_EQ(deps[i].size(), p.kernels[i].after.size());
    for (size_t j = 0; j < deps[i].size(); ++j)
      EXPECT_EQ(deps[i][j], static_cast<int>(p.kernel_at(p.kernels[i].after[j])));
  }
  EXPECT_EQ(deps[4], (std::vector<int>{2, -1, 0}));  // in the order named; unknown = -1
}

// A measured kernel's occupancy (blocks_per_cu) survives the round trip and needs its grid.
TEST(ProgramIo, MeasuredBlocksPerCuRoundTripsAndNeedsWorkgroups) {
  const std::string with =
      edit("memory: {bytes: 256 MiB}", "measured: {time_us: 50, workgroups: 88064, blocks_per_cu: 16}");
  const auto a = load(with);
  ASSERT_EQ(a[0].kernels[2].kind, KernelKind::measured);
  ASSERT_TRUE(a[0].kernels[2].measured.blocks_per_cu.has_value());
  EXPECT_EQ(*a[0].kernels[2].measured.blocks_per_cu, 16);
  const auto b = load_programs_string(programs_to_yaml(a), "again.yaml");
  EXPECT_EQ(*b[0].kernels[2].measured.blocks_per_cu, 16);
  EXPECT_EQ(programs_to_yaml(a), programs_to_yaml(b));
  const InputError no_grid =
      load_error(edit("memory: {bytes: 256 MiB}", "measured: {time_us: 50, blocks_per_cu: 16}"));
  EXPECT_EQ(no_grid.key(), "tp_block.kernels.add.measured.blocks_per_cu");
  EXPECT_NE(std::string(no_grid.what()).find("needs measured.workgroups"), std::string::npos)
      << no_grid.what();
  const InputError zero = load_error(
      edit("memory: {bytes: 256 MiB}", "measured: {time_us: 50, workgroups: 64, blocks_per_cu: 0}"));
  EXPECT_EQ(zero.key(), "program.kernels[2].measured.blocks_per_cu");
  EXPECT_GT(zero.where().line, 0);
}

TEST(ProgramIo, BadInputNamesFileLineAndKey) {
  struct Case {
    std::string text, key, words;
  };
  const std::vector<Case> cases = {
      {edit("dtype: bf16}}", "dtype: bf16, extra: 1}}"), "program.kernels[0].gemm.extra", "unknown"},
      {edit("stream: comm, after: [qkv]", "stream: nowhere, after: [qkv]"), "tp_block.kernels.ar.stream",
       "not declared"},
      {edit("after: [qkv]", "after: [ghost]"), "tp_block.kernels.ar.after", "not a kernel"},
      {edit("after: [qkv]", "after: [ar]"), "tp_block.kernels.ar.after", "itself"},
      // qkv waits for add, add (through ar) waits for qkv: a cycle.
      {edit("stream: compute, gemm: {m: 8192", "stream: compute, after: [add], gemm: {m: 8192"),
       "tp_block.kernels.qkv.after", "cycle"},
      {edit("bytes: 128 MiB", "bytes: 0"), "program.kernels[1].collective.bytes", "positive"},
      {edit("m: 8192, n: 10240", "m: -1, n: 10240"), "program.kernels[0].gemm.m", "positive"},
      {edit("gap_us: 2", "gap_us: -2"), "program.kernels[2].gap_us", ">= 0"},
      {edit("{name: up, stream: compute, gemm: cb1}", "{name: up, stream: compute, gemm: cb1, gemm: cb2}"),
       "program.kernels[4].gemm", "duplicate key"},
      {edit("{name: up,", "{name: qkv,"), "tp_block.kernels.qkv.name", "duplicate kernel"},
      {edit("memory: {bytes: 256 MiB}", "memory: {bytes: 256 MiB}, gemm: cb1"), "program.kernels[2].gemm",
       "exactly one"},
      {edit("memory: {bytes: 256 MiB}",
            "memory: {bytes: 256 MiB, gather: {rows_per_item: 0, threads_per_cu: 64}}"),
       "program.kernels[2].memory.gather.rows_per_item", "positive"},
      {edit("memory: {bytes: 256 MiB}", "memory: {bytes: 256 MiB, gather: {rows_per_item: 2}}"),
       "program.kernels[2].memory.gather.threads_per_cu", "missing"},
  };
  for (const Case& c : cases) {
    const InputError e = load_error(c.text);
    EXPECT_EQ(e.where().file, "p.yaml") << c.key;
    EXPECT_GT(e.where().line, 0) << c.key;
    EXPECT_EQ(e.key(), c.key) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.words), std::string::npos) << e.what();
  }
}

TEST(ProgramIo, NodeChecksNameTheKey) {
  Program p = load(kTp)[0];
  EXPECT_NO_THROW(check_program_fits(p, 8, 304));
  try {
    check_program_fits(p, 4, 304);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "tp_block.gpus");
  }
  p.gpus = 3;  // 128 MiB does not split into 3 whole shards
  try {
    check_program_fits(p, 8, 304);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "tp_block.kernels.ar.collective.bytes");
  }
}

}  // namespace
}  // namespace c3sim::wl

namespace c3sim::wl {
namespace {

// A collective needs at least two GPUs: `gpus: 1` beside one is refused where `gpus` is written,
// and a 1-GPU node (no `gpus:`) at the collective, instead of failing inside the model.
TEST(ProgramIo, OneGpuProgramWithACollectiveIsRefused) {
  const InputError e = load_error(edit("gpus: 8", "gpus: 1"));
  EXPECT_EQ(e.where().file, "p.yaml");
  EXPECT_EQ(e.where().line, 3);
  EXPECT_EQ(e.key(), "program.gpus");
  EXPECT_NE(std::string(e.what()).find("at least 2 GPUs"), std::string::npos) << e.what();

  Program p = load(edit("  gpus: 8\n", ""))[0];
  try {
    check_program_fits(p, 1, 304);
    ADD_FAILURE() << "a collective on a 1-GPU node was accepted";
  } catch (const InputError& err) {
    EXPECT_EQ(err.where().line, 9);  // the all-reduce, one line up without `gpus:`
    EXPECT_EQ(err.key(), "tp_block.kernels.ar.collective");
  }
}

// A size that overflowed int64 upstream (a generator's or importer's arithmetic) reads as
// negative: the message says out of range and names the field, not "sizes must be positive".
TEST(ProgramIo, NegativeSizeFromOverflowNamesFieldAndRange) {
  Program p = load(kTp)[0];
  p.kernels[0].gemm.n = std::numeric_limits<std::int64_t>::min();
  try {
    validate_program(p);
    ADD_FAILURE() << "a negative GEMM side was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 9);
    EXPECT_EQ(e.key(), "tp_block.kernels.qkv.gemm.n");
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace c3sim::wl
