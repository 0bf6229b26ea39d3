// Policies as program transformations: the registry's names, errors, sweeps and composition;
// what sp, rp, dma and FiCCO chunking do to a program's structure; a chunked dependent pair
// overlaps where the unchunked one cannot.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.h"
#include "models/policies/ficco_transform.h"
#include "models/policies/policy.h"
#include "models/policies/transform_registry.h"
#include "models/run/program_runner.h"
#include "workloads/paper_catalog.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

const hw::NodeSpec& mi300x() {
  static const hw::NodeSpec spec = hw::load_hardware("mi300x");
  return spec;
}

InputError check_error(const TransformRegistry& r, const std::string& name) {
  try {
    r.check(name, mi300x(), SourceLocation{"cmd", 3, 1});
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for " << name;
  return InputError({}, "", "");
}

TEST(TransformRegistry, OneTableGivesNamesHelpSweepsAndErrors) {
  const TransformRegistry r = builtin_transforms();
  for (const auto& e : r.entries()) {
    EXPECT_FALSE(e.help.empty()) << e.name;
    EXPECT_NE(r.help_text().find(e.name), std::string::npos) << e.name;
    EXPECT_NE(r.known_names().find(e.name), std::string::npos) << e.name;
  }
  // The pair's `all` plus the two FiCCO sweeps.
  EXPECT_EQ(r.standard_names(),
            (std::vector<std::string>{"base", "sp", "prio", "rp_best", "sp_rp_best", "dma", "dma_rp_best",
                                      "ficco_best", "ficco_dma_best"}));
  // rp sweeps the pair's powers of two (MI300X: 8 .. 256 CUs, granularity 8); dma_rp adds plain dma.
  EXPECT_EQ(r.expand("rp_best", mi300x()).size(), rp_sweep_cus(mi300x()).size());
  EXPECT_EQ(r.expand("dma_rp_best", mi300x()).front(), "dma");
  EXPECT_EQ(r.expand("ficco_best", mi300x()), (std::vector<std::string>{"ficco:2", "ficco:4", "ficco:8"}));
  EXPECT_NO_THROW(r.check("ficco:4+prio", mi300x(), {}));

  for (const auto& [name, words] : std::vector<std::pair<std::string, std::string>>{
           {"nope", "unknown policy"},
           {"rp", "needs <cus>"},
           {"sp:3", "takes no argument"},
           {"rp:7", "multiple of"},  // MI300X masks CUs in groups of 8
           {"ficco:1", "2..64"},
           {"ficco:x", "whole number"},
           {"nope_best", "unknown policy"},
           {"ficco_best+prio", "cannot be composed"}}) {
    const InputError e = check_error(r, name);
    EXPECT_EQ(e.key(), "policies") << name;
    EXPECT_EQ(e.where().line, 3) << name;
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(TransformRegistry, PairPoliciesTransformTheProgram) {
  const TransformRegistry r = builtin_transforms();
  const wl::Program pair = wl::program_from_scenario(*wl::find_paper_scenario("cb1_896M_ag"));
  const wl::Program sp = r.apply("sp", pair, mi300x());
  EXPECT_EQ(sp.kernels[0].name, "coll");  // collective launched first
  EXPECT_EQ(sp.kernels[1].name, "gemm");
  const wl::Program rp = r.apply("sp_rp:32", pair, mi300x());
  EXPECT_EQ(rp.stream("comm_stream")->cus, 32);
  EXPECT_EQ(rp.stream("gemm_stream")->cus, 304 - 32);
  const wl::Program dma = r.apply("dma+prio", pair, mi300x());
  EXPECT_EQ(dma.kernels[1].collective.impl, wl::CollectiveImpl::dma);
  EXPECT_EQ(dma.stream("comm_stream")->priority, 1);
}

// `leaves_unchanged` lets a run simulate the program itself instead of a copy, so it must never
// claim a policy leaves a program alone when applying it changes something: where it says so,
// the applied program writes the same YAML; where the plan reorders, masks, raises a priority or
// moves the collective to the copy engines, it says "may change".
TEST(TransformRegistry, LeavesUnchangedOnlyWhereApplyingChangesNothing) {
  const TransformRegistry r = builtin_transforms();
  const wl::Program pair = wl::program_from_scenario(*wl::find_paper_scenario("cb1_896M_ag"));
  const SourceLocation here{"cmd", 1, 1};
  ASSERT_TRUE(r.leaves_unchanged(r.parse("base", here), pair, mi300x()));
  EXPECT_EQ(wl::programs_to_yaml({r.apply("base", pair, mi300x())}), wl::programs_to_yaml({pair}));
  for (const char* changing : {"sp", "prio", "rp:64", "dma", "base+sp"}) {
    EXPECT_FALSE(r.leaves_unchanged(r.parse(changing, here), pair, mi300x())) << changing;
    EXPECT_NE(wl::programs_to_yaml({r.apply(changing, pair, mi300x())}), wl::programs_to_yaml({pair}))
        << changing;
  }
  EXPECT_FALSE(r.leaves_unchanged(r.parse("rp_best", here), pair, mi300x()));  // a sweep, not one program
  // Runs through either path give the same step.
  ProgramSimulator sim(mi300x());
  EXPECT_DOUBLE_EQ(run_program_policy(sim, r, pair, "base").step_us,
                   sim.run(r.apply("base", pair, mi300x()), "base").step_us);
}

constexpr const char* kDependent = R"(program:
  name: dep
  streams: [{name: compute}, {name: comm}]
  kernels:
    - {name: ag, stream: comm, collective: {op: all_gather, bytes: 896 MiB}}
    - {name: g, stream: compute, after: [ag], gemm: {m: 16384, n: 8192, k: 8192}}
    - {name: rs, stream: comm, after: [g], collective: {op: reduce_scatter, bytes: 256 MiB}}
    - {name: add, stream: compute, after: [rs], memory: {bytes: 64 MiB}}
)";

TEST(FiccoTransform, ChunksFollowTheDataDependence) {
  const wl::Program p = wl::load_programs_string(kDependent, "dep.yaml")[0];
  const wl::Program c = ficco_chunk(p, 4, false, mi300x());
  // ag pairs with g (g consumes it); rs finds no GEMM left and stays whole: 4 + 4 + rs + add.
  ASSERT_EQ(c.kernels.size(), 10U);
  std::int64_t rows = 0, bytes = 0;
  for (int j = 1; j <= 4; ++j) {
    const wl::ProgramKernel* g = c.kernel("g#" + std::to_string(j));
    const wl::ProgramKernel* a = c.kernel("ag#" + std::to_string(j));
    ASSERT_NE(g, nullptr);
    ASSERT_NE(a, nullptr);
    EXPECT_NE(std::find(g->after.begin(), g->after.end(), a->name), g->after.end());  // g#j waits for ag#j
    rows += g->gemm.m;
    bytes += a->collective.bytes;
  }
  EXPECT_EQ(rows, 16384);
  EXPECT_EQ(bytes, 896LL << 20);
  EXPECT_EQ(c.kernel("rs")->after, std::vector<std::string>{"g#4"});  // waits for the last chunk
  // Producer direction: the reduce-scatter drains the GEMM (rs#j after g#j).
  wl::Program drain = p;
  drain.kernels.erase(drain.kernels.begin());
  drain.kernels[0].after.clear();
  const wl::Program d = ficco_chunk(drain, 2, true, mi300x());
  EXPECT_EQ(d.kernel("rs#2")->after, std::vector<std::string>{"g#2"});
  EXPECT_EQ(d.kernel("rs#1")->collective.impl, wl::CollectiveImpl::cu);  // engines cannot reduce
}

TEST(FiccoTransform, RejectsWhatCannotBeSplit) {
  wl::Program p = wl::load_programs_string(kDependent, "dep.yaml")[0];
  p.kernels[0].collective.bytes = 8 * 3;  // 3 bytes a shard: not 4 chunks of whole shards
  EXPECT_THROW((void)ficco_chunk(p, 4, false, mi300x()), InputError);
  wl::Program lonely = p;
  lonely.kernels = {p.kernels[3]};
  lonely.kernels[0].after.clear();
  EXPECT_THROW((void)ficco_chunk(lonely, 2, false, mi300x()), InputError);
}

// Unchunked, a GEMM that consumes an all-gather cannot overlap with it: the step is the sum of the
// two (the ideal of that chain). Chunked, chunk j+1 moves while chunk j computes, so the step
// must come in under that sum; and ficco_best picks the shortest of its sweep.
TEST(FiccoTransform, ChunkingOverlapsADependentPair) {
  const TransformRegistry r = builtin_transforms();
  ProgramSimulator sim(mi300x());
  wl::Program p = wl::load_programs_string(kDependent, "dep.yaml")[0];
  p.kernels.resize(2);  // ag -> g
  const ProgramResult base = run_program_policy(sim, r, p, "base");
  EXPECT_NEAR(base.step_us, base.ideal_us, 1e-6 * base.ideal_us);
  const ProgramResult chunked = run_program_policy(sim, r, p, "ficco_dma:4");
  EXPECT_LT(chunked.step_us, base.step_us);
  const ProgramResult best = run_program_policy(sim, r, p, "ficco_dma_best");
  for (const auto& name : r.expand("ficco_dma_best", mi300x())) {
    EXPECT_LE(best.step_us, run_program_policy(sim, r, p, name).step_us) << name;
  }
  EXPECT_FALSE(best.chosen.empty());
}

}  // namespace
}  // namespace c3sim::models
