// Scenario YAML: the happy paths, a round trip, and every error naming file, line and key.
#include <gtest/gtest.h>

#include <fstream>

#include "workloads/paper_catalog.h"
#include "workloads/scenario_io.h"

namespace c3sim::wl {
namespace {

constexpr const char* kCustom = R"(scenarios:
  - name: my_case
    tag: mine
    source: hand-written
    taxonomy: C-long
    gpus: 8
    gemm: {tag: cb1, m: 8192, n: 8192, k: 8192, dtype: bf16}
    collective: {op: all_gather, bytes: 896 MiB, impl: cu, max_workgroups: 64}
    policies: [base, sp, "rp:32", dma]
  - name: by_tag
    gemm: mb2
    collective:
      op: a2a
      bytes: 3.25 GiB
)";

std::vector<Scenario> load_scenarios_text(const std::string& text) {
  return load_scenarios_string(text, "test.yaml");
}

// Loads `text`, expects an InputError and returns it for inspection.
InputError scenario_load_error(const std::string& text) {
  try {
    (void)load_scenarios_text(text);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return InputError({}, "", "");
}

void expect_error(const std::string& text, const std::string& key, int line) {
  const InputError e = scenario_load_error(text);
  EXPECT_EQ(e.key(), key) << e.what();
  EXPECT_EQ(e.where().line, line) << e.what();
  EXPECT_EQ(e.where().file, "test.yaml") << e.what();
}

TEST(ScenarioIo, LoadsExplicitScenarios) {
  const auto s = load_scenarios_text(kCustom);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "my_case");
  EXPECT_EQ(s[0].tag, "mine");
  EXPECT_EQ(s[0].source, "hand-written");
  EXPECT_EQ(s[0].paper_taxonomy, Taxonomy::c_long);
  EXPECT_EQ(s[0].gpus, 8);
  EXPECT_EQ(s[0].gemm.tag, "cb1");
  EXPECT_EQ(s[0].gemm.shape_string(), "8192x8192x8192");
  EXPECT_EQ(s[0].collective.op, CollectiveOp::all_gather);
  EXPECT_EQ(s[0].collective.bytes, 896LL << 20);
  EXPECT_EQ(s[0].collective.max_workgroups, 64);
  EXPECT_EQ(s[0].policies, (std::vector<std::string>{"base", "sp", "rp:32", "dma"}));
  ASSERT_EQ(s[0].policy_locations.size(), 4u);
  EXPECT_EQ(s[0].policy_locations[2].line, 9);
  EXPECT_EQ(s[0].policy_locations[2].file, "test.yaml");
  EXPECT_EQ(s[0].location.line, 2);

  EXPECT_EQ(s[1].gemm.shape_string(), "16384x106496x8192");  // Table I mb2
  EXPECT_EQ(s[1].gemm.source, "LLaMA-405B");
  EXPECT_EQ(s[1].collective.op, CollectiveOp::all_to_all);
  EXPECT_EQ(s[1].collective.bytes, 13LL << 28);
  EXPECT_EQ(s[1].collective.impl, CollectiveImpl::cu);
  EXPECT_FALSE(s[1].gpus);
  EXPECT_FALSE(s[1].collective.max_workgroups);
  EXPECT_TRUE(s[1].policies.empty());
}

TEST(ScenarioIo, SingleScenarioDocumentAndPlainByteCounts) {
  const auto s = load_scenarios_text(
      "name: one\ngemm: {m: 128, n: 256, k: 64, dtype: fp8}\n"
      "collective: {op: all_reduce, bytes: 4096, impl: dma}\n");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].gemm.dtype, Dtype::fp8);
  EXPECT_EQ(s[0].collective.bytes, 4096);
  EXPECT_EQ(s[0].collective.impl, CollectiveImpl::dma);
}

TEST(ScenarioIo, CatalogReferences) {
  auto s = load_scenarios_text(
      "scenarios:\n  - catalog: mb1_896M_ag\n    policies: [base, \"rp:64\"]\n"
      "  - catalog: cb5_1.63G\n");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].name, "mb1_896M_ag");
  EXPECT_EQ(s[0].policies, (std::vector<std::string>{"base", "rp:64"}));
  EXPECT_EQ(s[0].policy_locations[1].line, 3);
  EXPECT_EQ(s[0].location.line, 2);
  EXPECT_EQ(s[1].name, "cb5_1.63G_ag");
  EXPECT_EQ(s[2].name, "cb5_1.63G_a2a");
  EXPECT_EQ(s[2].collective.bytes, 16384LL * 53248 * 2);

  s = load_scenarios_text("catalog: all\n");
  ASSERT_EQ(s.size(), 30u);
  EXPECT_EQ(s[29].name, paper_scenarios()[29].name);
}

void expect_same(const Scenario& a, const Scenario& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.tag, b.tag);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.paper_taxonomy, b.paper_taxonomy);
  EXPECT_EQ(a.gpus, b.gpus);
  EXPECT_EQ(a.gemm.tag, b.gemm.tag);
  EXPECT_EQ(a.gemm.m, b.gemm.m);
  EXPECT_EQ(a.gemm.n, b.gemm.n);
  EXPECT_EQ(a.gemm.k, b.gemm.k);
  EXPECT_EQ(a.gemm.dtype, b.gemm.dtype);
  EXPECT_EQ(a.gemm.source, b.gemm.source);
  EXPECT_EQ(a.collective.op, b.collective.op);
  EXPECT_EQ(a.collective.bytes, b.collective.bytes);
  EXPECT_EQ(a.collective.impl, b.collective.impl);
  EXPECT_EQ(a.collective.max_workgroups, b.collective.max_workgroups);
  EXPECT_EQ(a.policies, b.policies);
}

TEST(ScenarioIo, RoundTripsThroughYaml) {
  std::vector<Scenario> original = load_scenarios_text(kCustom);
  for (const Scenario& s : paper_scenarios()) original.push_back(s);
  Scenario odd;  // strings YAML would otherwise read as other types, odd sizes
  odd.name = "yes";
  odd.tag = "null";
  odd.source = "a: b # c";
  odd.gemm = {"", 1, 2, 3, Dtype::fp32, ""};
  odd.collective.bytes = 1024 + 4;
  odd.collective.op = CollectiveOp::reduce_scatter;
  odd.collective.impl = CollectiveImpl::vendor_zero_cta;
  odd.policies = {"sp_rp:16", "dma_rp:8"};
  original.push_back(odd);

  const std::string text = to_yaml(original);
  const std::vector<Scenario> back = load_scenarios_text(text);
  ASSERT_EQ(back.size(), original.size());
  for (std::size_t i = 0; i < back.size(); ++i) expect_same(back[i], original[i]);
  EXPECT_EQ(to_yaml(back), text);  // and the text itself is stable
  EXPECT_NE(text.find("bytes: 1.625 GiB"), std::string::npos) << text;
  EXPECT_NE(text.find("bytes: 896 MiB"), std::string::npos) << text;
}

TEST(ScenarioIo, LoadsFromFileAndReportsMissingFile) {
  const std::string path = ::testing::TempDir() + "c3sim_scenario_io_test.yaml";
  {
    std::ofstream out(path);
    out << kCustom;
  }
  EXPECT_EQ(load_scenarios_file(path).size(), 2u);
  try {
    (void)load_scenarios_file(path + ".missing");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, path + ".missing");
  }
}

TEST(ScenarioIo, Errors) {
  const std::string gemm = "    gemm: {m: 8, n: 8, k: 8}\n";
  const std::string coll = "    collective: {op: ag, bytes: 1 MiB}\n";
  const std::string head = "scenarios:\n  - name: a\n" + gemm + coll + "  - name: b\n";

  // Unknown keys at each level.
  expect_error(head + gemm + coll + "    colour: red\n", "scenarios[1].colour", 8);
  expect_error(head + "    gemm: {m: 8, n: 8, k: 8, q: 1}\n" + coll, "scenarios[1].gemm.q", 6);
  expect_error(head + gemm + "    collective: {op: ag, bytes: 1 MiB, size: 2}\n",
               "scenarios[1].collective.size", 7);
  expect_error("scenarios: []\nextra: 1\n", "extra", 2);
  expect_error("catalog: all\npolicy: [base]\n", "policy", 2);
  // Missing keys.
  expect_error(head + coll, "scenarios[1].gemm", 5);
  expect_error(head + gemm, "scenarios[1].collective", 5);
  expect_error("scenarios:\n  - gemm: {m: 8, n: 8, k: 8}\n" + coll, "scenarios[0].name", 2);
  expect_error(head + "    gemm: {m: 8, n: 8}\n" + coll, "scenarios[1].gemm.k", 6);
  expect_error(head + gemm + "    collective: {op: ag}\n", "scenarios[1].collective.bytes", 7);
  expect_error(head + gemm + "    collective: {bytes: 1 MiB}\n", "scenarios[1].collective.op", 7);
  // Bad values.
  expect_error(head + "    gemm: {m: 0, n: 8, k: 8}\n" + coll, "scenarios[1].gemm.m", 6);
  expect_error(head + "    gemm: {m: 8, n: -8, k: 8}\n" + coll, "scenarios[1].gemm.n", 6);
  expect_error(head + "    gemm: {m: 8, n: 8, k: 8.5}\n" + coll, "scenarios[1].gemm.k", 6);
  expect_error(head + "    gemm: {m: 8, n: 8, k: 99999999999}\n" + coll, "scenarios[1].gemm.k", 6);
  expect_error(head + "    gemm: {m: 8, n: 8, k: 8, dtype: int4}\n" + coll, "scenarios[1].gemm.dtype", 6);
  expect_error(head + "    gemm: cb9\n" + coll, "scenarios[1].gemm", 6);
  expect_error(head + "    gemm: [8, 8, 8]\n" + coll, "scenarios[1].gemm", 6);
  expect_error(head + gemm + "    collective: {op: gather, bytes: 1 MiB}\n", "scenarios[1].collective.op", 7);
  expect_error(head + gemm + "    collective: {op: ag, bytes: 1 MiB, impl: nccl}\n",
               "scenarios[1].collective.impl", 7);
  expect_error(head + gemm + "    collective: {op: ag, bytes: 0 MiB}\n", "scenarios[1].collective.bytes", 7);
  expect_error(head + gemm + "    collective: {op: ag, bytes: -1 MiB}\n", "scenarios[1].collective.bytes", 7);
  expect_error(head + gemm + "    collective: {op: ag, bytes: 1 MB/s}\n", "scenarios[1].collective.bytes", 7);
  expect_error(head + gemm + "    collective: {op: ag, bytes: 1.5 B}\n", "scenarios[1].collective.bytes", 7);
  expect_error(head + gemm + "    collective: {op: ag, bytes: 2 PiB}\n", "scenarios[1].collective.bytes", 7);
  expect_error(head + gemm + "    collective: {op: ag, bytes: 99999999999999999999}\n",
               "scenarios[1].collective.bytes", 7);
  expect_error(head + gemm + "    collective: {op: ag, bytes: 1 MiB, max_workgroups: 0}\n",
               "scenarios[1].collective.max_workgroups", 7);
  expect_error(head + gemm + coll + "    gpus: 0\n", "scenarios[1].gpus", 8);
  expect_error(head + gemm + coll + "    taxonomy: long\n", "scenarios[1].taxonomy", 8);
}

TEST(ScenarioIo, BytesMustSplitIntoWholeElementShards) {
  const std::string base = "name: a\ngemm: {m: 8, n: 8, k: 8}\n";
  // 8 GPUs x 2 B (bf16) = 16: 1000 is not a multiple.
  expect_error(base + "gpus: 8\ncollective: {op: ag, bytes: 1000}\n", "collective.bytes", 4);
  // Without gpus only the element size is checked here (the node's count later).
  EXPECT_NO_THROW(load_scenarios_text(base + "collective: {op: ag, bytes: 1000}\n"));
  expect_error(base + "collective: {op: ag, bytes: 1001}\n", "collective.bytes", 3);
  const auto s = load_scenarios_text(base + "collective: {op: ag, bytes: 1000}\n");
  try {
    check_scenario_fits(s[0], 8);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "a.collective.bytes");
    EXPECT_EQ(e.where().line, 1);
  }
  EXPECT_NO_THROW(check_scenario_fits(s[0], 4));  // 1000 = 4 x 2 x 125
  const auto eight = load_scenarios_text(base + "gpus: 8\ncollective: {op: ag, bytes: 1 MiB}\n");
  EXPECT_THROW(check_scenario_fits(eight[0], 4), InputError);  // asks for more GPUs than exist
  EXPECT_NO_THROW(check_scenario_fits(eight[0], 8));
  EXPECT_THROW(check_scenario_fits(eight[0], 0), ModelError);
}

TEST(ScenarioIo, StructuralErrors) {
  expect_error("", "", 0);
  expect_error("- a\n- b\n", "", 1);
  expect_error("scenarios: 3\n", "scenarios", 1);
  expect_error("scenarios: []\n", "scenarios", 1);
  expect_error("scenarios:\n  - 3\n", "scenarios[0]", 2);
  expect_error("scenarios: [\n", "", 2);  // malformed YAML
  expect_error("name: ''\ngemm: cb1\ncollective: {op: ag, bytes: 1 MiB}\n", "name", 1);
  expect_error("name: a\ngemm: cb1\ncollective: {op: ag, bytes: 1 MiB}\npolicies: base\n", "policies", 4);
  expect_error("name: a\ngemm: cb1\ncollective: {op: ag, bytes: 1 MiB}\npolicies: [base, [sp]]\n",
               "policies[1]", 4);
  expect_error("name: a\ngemm: cb1\ncollective: {op: ag, bytes: 1 MiB}\npolicies: [base, '']\n",
               "policies[1]", 4);
  expect_error("name: a\ngemm: cb1\ncollective: 3\n", "collective", 3);
  expect_error("catalog: nope\n", "catalog", 1);
  expect_error("scenarios:\n  - catalog: cb1_896M_ag\n  - catalog: cb1_896M\n", "scenarios[1].catalog", 3);
  const std::string item = "    gemm: {m: 8, n: 8, k: 8}\n    collective: {op: ag, bytes: 1 MiB}\n";
  expect_error("scenarios:\n  - name: x\n" + item + "  - name: x\n" + item, "scenarios[1].name", 5);
}

}  // namespace
}  // namespace c3sim::wl
