#include "models/policies/region_best.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "models/policies/ficco_transform.h"
#include "models/policies/plan_transform.h"

namespace c3sim::models {

std::string RegionPlan::describe() const {
  // Regions grouped by their policy in first-use order, base left out: "ag,ag2=dma rs=rp:128".
  std::vector<std::pair<std::string, std::string>> groups;  // policy -> regions
  for (const auto& r : regions) {
    if (r.policy == "base") continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == r.policy; });
    if (it == groups.end()) it = groups.insert(groups.end(), {r.policy, ""});
    it->second += (it->second.empty() ? "" : ",") + r.region.name;
  }
  std::string out;
  for (const auto& [policy, names] : groups)
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", names, policy);
  if (out.empty()) out = "all base";
  if (!combined) out = fmt::format("{} only (faster alone than combined)", kept);
  return out;
}

namespace {

struct FiccoName {
  int chunks = 0;
  bool dma = false;
};

// A candidate's one step (candidates are concrete names from region_candidates).
PolicyStep step_of(const std::string& policy) { return builtin_registry().parse(policy, {}).steps.front(); }

// "ficco:<k>" / "ficco_dma:<k>" (names from the FiCCO entries' sweeps), else nullopt.
std::optional<FiccoName> ficco_name(const std::string& policy) {
  const PolicyStep step = step_of(policy);
  if (step.head != "ficco" && step.head != "ficco_dma") return std::nullopt;
  return FiccoName{step.arg.value_or(0), step.head == "ficco_dma"};
}

}  // namespace

std::vector<std::string> region_candidates(const OverlapRegion& region, const wl::Program& program,
                                           const hw::NodeSpec& spec) {
  std::vector<std::string> out{"base", "sp", "prio"};
  for (const auto& name : region.kernels) {
    if (offloadable(*program.kernel(name))) {
      out.emplace_back("dma");
      break;
    }
  }
  for (int c : rp_sweep_cus(spec)) out.push_back(fmt::format("rp:{}", c));
  if (region.chunk_pair.empty()) return out;
  // The registry's FiCCO sweeps, where this region's pair splits into that many chunks.
  for (const TransformEntry& e : {ficco_entry(), ficco_dma_entry()}) {
    for (const auto& name : e.sweep(spec)) {
      try {
        (void)apply_to_region(program, region, name, spec);
      } catch (const InputError&) {
        continue;  // too few GEMM rows or collective shards for that many chunks
      }
      out.push_back(name);
    }
  }
  return out;
}

wl::Program apply_to_region(const wl::Program& program, const OverlapRegion& region,
                            const std::string& policy, const hw::NodeSpec& spec) {
  if (const std::optional<FiccoName> f = ficco_name(policy)) {
    if (region.chunk_pair.empty()) {
      throw InputError(program.location, "policies",
                       fmt::format("policy '{}': region '{}' has no GEMM + collective pair to split", policy,
                                   region.name));
    }
    return ficco_chunk_subset(program, &region.chunk_pair, f->chunks, f->dma, spec);
  }
  const auto p = make_policy(step_of(policy), spec, program.location);
  const wl::Scenario pair = representative_pair(program).value_or(wl::Scenario{});
  return apply_plan_to_kernels(program, region.kernels, p->plan(PolicyContext{spec, pair, 0, 0}), policy);
}

namespace {

bool is_rp(const std::string& policy) { return step_of(policy).head == "rp"; }

}  // namespace

RegionPlan choose_per_region(ProgramSimulator& sim, const wl::Program& program) {
  RegionPlan plan;
  plan.base_us = sim.simulate(program).step_us;
  // Every region under every candidate, the others as written.
  std::vector<std::map<std::string, double>> trial;
  std::vector<std::vector<std::string>> candidates;
  for (const OverlapRegion& region : overlap_regions(sim, program)) {
    candidates.push_back(region_candidates(region, program, sim.spec()));
    auto& t = trial.emplace_back();
    for (const auto& cand : candidates.back()) {
      t[cand] = cand == "base" ? plan.base_us
                               : sim.simulate(apply_to_region(program, region, cand, sim.spec())).step_us;
    }
    plan.regions.push_back(RegionChoice{region, "base", plan.base_us});
  }
  // The best choice of region r when rp may only use `size` CUs (0: no rp), chunked schedules
  // included or not.
  const auto best_of = [&](size_t r, int size, bool chunked = true) {
    std::string best = "base";
    for (const auto& cand : candidates[r]) {
      if (is_rp(cand) && cand != fmt::format("rp:{}", size)) continue;
      if (!chunked && ficco_name(cand)) continue;
      if (trial[r].at(cand) < trial[r].at(best)) best = cand;
    }
    return best;
  };
  // One partition size for the program (the sum of the regions' trial steps decides).
  int size = 0;
  double size_sum = 0;
  for (int c : rp_sweep_cus(sim.spec())) {
    for (int s : {0, c}) {
      double sum = 0;
      for (size_t r = 0; r < trial.size(); ++r) sum += trial[r].at(best_of(r, s));
      if (size_sum == 0 || sum < size_sum) {
        size_sum = sum;
        size = s;
      }
    }
  }
  // Every region under its choice; then, when some chose a chunked schedule, the same with each
  // of those regions under its best unchunked candidate instead: a chunked region changes the
  // graph the others were tried beside, so chunked choices that each won alone can lose together.
  const auto combine = [&](bool chunked) {
    std::vector<RegionChoice> choices = plan.regions;
    wl::Program p = program;
    for (size_t r = 0; r < choices.size(); ++r) {
      choices[r].policy = best_of(r, size, chunked);
      choices[r].step_us = trial[r].at(choices[r].policy);
      p = apply_to_region(p, choices[r].region, choices[r].policy, sim.spec());
    }
    return std::pair{std::move(choices), std::move(p)};
  };
  std::tie(plan.regions, plan.program) = combine(true);
  plan.combined_us = sim.simulate(plan.program).step_us;
  const bool any_chunked = std::any_of(plan.regions.begin(), plan.regions.end(), [](const RegionChoice& c) {
    return ficco_name(c.policy).has_value();
  });
  if (any_chunked) {
    auto [choices, p] = combine(false);
    const double us = sim.simulate(p).step_us;
    if (us < plan.combined_us) {
      plan.regions = std::move(choices);
      plan.program = std::move(p);
      plan.combined_us = us;
    }
  }
  std::optional<size_t> best_single;
  for (size_t r = 0; r < plan.regions.size(); ++r) {
    if (plan.regions[r].step_us < (best_single ? plan.regions[*best_single].step_us : plan.base_us))
      best_single = r;
  }
  if (best_single && plan.regions[*best_single].step_us < plan.combined_us) {
    const RegionChoice& only = plan.regions[*best_single];
    plan.combined = false;
    plan.kept = only.region.name + "=" + only.policy;
    plan.program = apply_to_region(program, only.region, only.policy, sim.spec());
  }
  return plan;
}

TransformEntry per_region_entry() {
  TransformEntry e;
  e.name = "per_region";
  e.help =
      "the best of base, sp, prio, dma, rp:<cus> and FiCCO chunking (ficco:<k>, ficco_dma:<k>) per overlap "
      "region (each tried alone), combined";
  e.decide = [](const wl::Program& p, std::optional<int>, ProgramSimulator& sim) {
    RegionPlan plan = choose_per_region(sim, p);
    std::string chosen = plan.describe();
    return Decision{std::move(plan.program), std::move(chosen)};
  };
  return e;
}

}  // namespace c3sim::models
