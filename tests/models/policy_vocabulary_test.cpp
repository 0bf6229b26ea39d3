// One policy vocabulary: the registry's parse is the only reader of a name, and every consumer
// (the pair's launch plans, a scenario's and a program's policy selection, the pair simulator)
// accepts exactly the registry's names, refusing the rest with the policy, the scenario or program
// and the file line in the message.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hardware/hardware_loader.h"
#include "models/policies/policy.h"
#include "models/policies/policy_selection.h"
#include "models/policies/transform_registry.h"
#include "models/run/c3_simulator.h"
#include "workloads/program_io.h"
#include "workloads/scenario_io.h"

namespace c3sim::models {
namespace {

const hw::NodeSpec& mi300x() {
  static const hw::NodeSpec spec = hw::load_hardware("mi300x");
  return spec;
}

// A concrete name for an entry: its head, or with an argument valid on MI300X (8-CU mask steps,
// 2..64 chunks).
std::string concrete_name(const TransformEntry& e) { return e.argument.empty() ? e.name : e.name + ":32"; }

// `policies: [<name>]` on line 6 of a one-scenario file (an all-gather pair).
wl::Scenario scenario_with(const std::string& name) {
  const std::string text =
      "scenarios:\n"
      "  - name: pair_ag\n"
      "    gpus: 8\n"
      "    gemm: {m: 8192, n: 8192, k: 8192, dtype: bf16}\n"
      "    collective: {op: all_gather, bytes: 64 MiB}\n"
      "    policies: [\"" +
      name + "\"]\n";
  return wl::load_scenarios_string(text, "pair.yaml").front();
}

// `policies: [<name>]` on line 7 of a one-program file: a GEMM beside an all-gather it does not
// consume, then an all-reduce.
wl::Program program_with(const std::string& name) {
  const std::string text =
      "program:\n"
      "  name: prog\n"
      "  streams: [{name: compute}, {name: comm}]\n"
      "  kernels:\n"
      "    - {name: ag, stream: comm, collective: {op: all_gather, bytes: 64 MiB}}\n"
      "    - {name: g, stream: compute, gemm: {m: 8192, n: 8192, k: 8192}}\n"
      "  policies: [\"" +
      name + "\"]\n";
  return wl::load_programs_string(text, "prog.yaml").front();
}

InputError error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError";
  return InputError({}, "", "");
}

TEST(PolicyVocabulary, ParseMakesTheTypedNameOfEveryForm) {
  const TransformRegistry& r = builtin_registry();
  const PolicyName rp = r.parse("rp:32", {});
  ASSERT_TRUE(rp.is_concrete());
  EXPECT_EQ(rp.steps, (std::vector<PolicyStep>{{"rp", 32}}));
  const PolicyName composed = r.parse("ficco:4+prio", {});
  EXPECT_TRUE(composed.composed());
  EXPECT_EQ(composed.steps, (std::vector<PolicyStep>{{"ficco", 4}, {"prio", std::nullopt}}));
  const PolicyName sweep = r.parse("dma_rp_best", {});
  EXPECT_TRUE(sweep.is_sweep());
  EXPECT_EQ(sweep.steps, (std::vector<PolicyStep>{{"dma_rp", std::nullopt}}));
  EXPECT_TRUE(r.parse("all", {}).is_all());
  EXPECT_EQ(composed.text, "ficco:4+prio");
  // A sweep's candidates are typed names too; dma_rp's starts at the offload alone.
  const std::vector<PolicyName> candidates = r.expand(sweep, mi300x());
  ASSERT_EQ(candidates.size(), rp_sweep_cus(mi300x()).size() + 1);
  EXPECT_EQ(candidates.front().steps.front().head, "dma");
  EXPECT_EQ(candidates.back().steps.front(), (PolicyStep{"dma_rp", rp_sweep_cus(mi300x()).back()}));
}

TEST(PolicyVocabulary, ThePairFamiliesAreRegistryEntriesAndPairAllIsTheRegistrysAll) {
  const TransformRegistry& r = builtin_registry();
  for (const PairPolicyFamily& f : pair_policy_families()) {
    const TransformEntry* e = r.find(f.name);
    ASSERT_NE(e, nullptr) << f.name;
    EXPECT_EQ(e->argument.empty(), !f.takes_cus) << f.name;
    EXPECT_EQ(e->in_all, f.in_all) << f.name;
  }
  // The pair's `all` is the registry's, less the program-only entries, in table order.
  std::vector<std::string> pair_all;
  for (const std::string& n : r.standard_names()) {
    if (find_pair_policy(r.parse(n, {}).steps.front().head) != nullptr) pair_all.push_back(n);
  }
  EXPECT_EQ(standard_policy_names(), pair_all);
  EXPECT_EQ(standard_policy_names(),
            (std::vector<std::string>{"base", "sp", "prio", "rp_best", "sp_rp_best", "dma", "dma_rp_best"}));
}

TEST(PolicyVocabulary, ScenariosAcceptThePairEntriesAndRefuseTheRestAtTheirLine) {
  const TransformRegistry& r = builtin_registry();
  for (const TransformEntry& e : r.entries()) {
    std::vector<std::string> names{concrete_name(e)};
    if (e.sweep) names.push_back(e.name + "_best");
    for (const std::string& name : names) {
      const wl::Scenario s = scenario_with(name);
      const bool pair = find_pair_policy(e.name) != nullptr && e.name != "hybrid_ar";  // an all-gather
      if (pair) {
        EXPECT_EQ(scenario_policies(s, {}, mi300x()), std::vector<std::string>{name});
        continue;
      }
      const InputError err = error_of([&] { (void)scenario_policies(s, {}, mi300x()); });
      EXPECT_EQ(err.where().file, "pair.yaml") << name;
      EXPECT_EQ(err.where().line, 6) << name;
      EXPECT_EQ(err.key(), "policies") << name;
      const std::string what = err.what();
      EXPECT_NE(what.find("'" + name + "'"), std::string::npos) << what;
      EXPECT_NE(what.find("pair_ag"), std::string::npos) << what;
    }
  }
}

TEST(PolicyVocabulary, ProgramsAcceptEveryEntryThatApplies) {
  const TransformRegistry& r = builtin_registry();
  for (const TransformEntry& e : r.entries()) {
    const std::string name = e.name == "ficco" || e.name == "ficco_dma" ? e.name + ":4" : concrete_name(e);
    const wl::Program p = program_with(name);
    if (!r.cannot_apply(r.parse(name, {}), p)) {
      EXPECT_EQ(program_policies(p, {}, r, mi300x()), std::vector<std::string>{name});
      continue;
    }
    // Inapplicable here: hybrid_ar (no all-reduce) and FiCCO (the collective feeds no GEMM).
    const InputError err = error_of([&] { (void)program_policies(p, {}, r, mi300x()); });
    EXPECT_EQ(err.where().line, 7) << name;
    const std::string what = err.what();
    EXPECT_NE(what.find("'" + name + "'"), std::string::npos) << what;
    EXPECT_NE(what.find("program 'prog' (prog.yaml:"), std::string::npos) << what;
  }
  // `all` keeps, per program, the standard names that apply.
  for (const std::string& n : program_policies(program_with("all"), {}, r, mi300x()))
    EXPECT_FALSE(r.cannot_apply(n, program_with("all")).has_value()) << n;
}

TEST(PolicyVocabulary, UnknownAndMalformedNamesNameThePolicyAndTheLine) {
  for (const auto& [name, words] :
       std::vector<std::pair<std::string, std::string>>{{"nope", "unknown policy 'nope'"},
                                                        {"rp:x", "'x' is not a whole number"},
                                                        {"rp", "needs <cus>"},
                                                        {"sp:3", "takes no argument"},
                                                        {"rp:12", "not a multiple of 8"},
                                                        {"nope_best", "unknown policy 'nope_best'"},
                                                        {"rp_best+sp", "cannot be composed"}}) {
    for (const bool program : {false, true}) {
      const InputError err = error_of([&, name = name] {
        if (program) {
          (void)program_policies(program_with(name), {}, builtin_registry(), mi300x());
        } else {
          (void)scenario_policies(scenario_with(name), {}, mi300x());
        }
      });
      EXPECT_EQ(err.where().line, program ? 7 : 6) << name;
      EXPECT_EQ(err.key(), "policies") << name;
      EXPECT_NE(std::string(err.what()).find(words), std::string::npos) << err.what();
    }
  }
  // A policy asked for on the command line is located there.
  const InputError cli = error_of([] {
    (void)scenario_policies(scenario_with("base"), {{"ficco:4"}, {"<command line>", 0, 0}}, mi300x());
  });
  EXPECT_EQ(cli.where().file, "<command line>");
  EXPECT_NE(std::string(cli.what()).find("program transformation"), std::string::npos) << cli.what();
}

TEST(PolicyVocabulary, ThePairSimulatorRunsTheTypedNameItWasGiven) {
  C3Simulator sim(mi300x(), SimOptions{1 << 30, false});
  const wl::Scenario s = scenario_with("base");
  const TransformRegistry& r = builtin_registry();
  const C3Result swept = sim.run_named(s, r.parse("rp_best", {}));
  EXPECT_EQ(swept.policy, "rp_best");
  // The winner is one of the sweep's candidates, and running it alone gives the same time.
  const PolicyName winner = r.parse(swept.chosen, {});
  EXPECT_EQ(winner.steps.front().head, "rp");
  EXPECT_EQ(sim.run_named(s, winner).total_us, swept.total_us);
  EXPECT_THROW((void)sim.run_named(s, r.parse("ficco:4", {})), InputError);
}

}  // namespace
}  // namespace c3sim::models
