#include "models/policies/overlap_regions.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "models/program/kernel_relations.h"

namespace c3sim::models {

namespace {

// OverlapRegion::chunk_pair for every region; `members` are the regions' kernel indices. First
// the data-dependent pairs (FiCCO's case), then independent ones for regions still without.
void set_chunk_pairs(const wl::Program& p, const std::vector<std::vector<int>>& members,
                     std::vector<OverlapRegion>& regions) {
  std::set<size_t> taken;
  std::vector<std::optional<size_t>> partner(regions.size());
  for (size_t r = 0; r < regions.size(); ++r) {
    const wl::ProgramKernel& c = p.kernels[p.kernel_at(regions[r].name)];
    for (size_t g = 0; g < p.kernels.size() && !partner[r]; ++g) {
      const wl::ProgramKernel& k = p.kernels[g];
      const bool linked = waits_for(k, c.name) || waits_for(c, k.name);
      if (k.kind == wl::KernelKind::gemm && linked && !taken.contains(g)) partner[r] = g;
    }
    if (partner[r]) taken.insert(*partner[r]);
  }
  for (size_t r = 0; r < regions.size(); ++r) {
    const size_t c = p.kernel_at(regions[r].name);
    if (!partner[r] && members[r].size() == 2) {
      const auto other =
          static_cast<size_t>(members[r][0] == static_cast<int>(c) ? members[r][1] : members[r][0]);
      if (p.kernels[other].kind == wl::KernelKind::gemm && !taken.contains(other)) {
        partner[r] = other;
        taken.insert(other);
      }
    }
    if (partner[r]) {
      regions[r].chunk_pair = {p.kernels[std::min(c, *partner[r])].name,
                               p.kernels[std::max(c, *partner[r])].name};
    }
  }
}

}  // namespace

bool offloadable(const wl::ProgramKernel& k) {
  return is_collective(k) && !wl::op_traits(k.collective.op).reduces;
}

std::vector<IdealInterval> ideal_schedule(ProgramSimulator& sim, const wl::Program& p) {
  wl::validate_program(p);
  const std::vector<double> launch = sim.launch_times_us(p);
  const std::vector<int> prev = wl::stream_predecessors(p);
  std::vector<IdealInterval> out(p.kernels.size());
  for (int i : wl::topological_order(p)) {
    const auto u = static_cast<size_t>(i);
    double ready = launch[u];
    if (prev[u] >= 0) ready = std::max(ready, out[static_cast<size_t>(prev[u])].end_us);
    for (const auto& a : p.kernels[u].after) ready = std::max(ready, out[p.kernel_at(a)].end_us);
    out[u] = IdealInterval{ready, ready + sim.isolated_us(p, i)};
  }
  return out;
}

std::vector<OverlapRegion> overlap_regions(ProgramSimulator& sim, const wl::Program& p) {
  const std::vector<IdealInterval> t = ideal_schedule(sim, p);
  std::vector<OverlapRegion> regions;
  std::map<int, size_t> region_of_collective;
  for (size_t c = 0; c < p.kernels.size(); ++c) {
    if (!is_collective(p.kernels[c])) continue;
    region_of_collective[static_cast<int>(c)] = regions.size();
    regions.push_back(OverlapRegion{p.kernels[c].name, {}, {}});
  }
  std::vector<std::vector<int>> members(regions.size());
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    if (is_collective(p.kernels[k])) continue;
    int best = -1;
    double best_overlap = 0;
    for (const auto& [c, r] : region_of_collective) {
      const auto cu = static_cast<size_t>(c);
      if (p.kernels[cu].stream == p.kernels[k].stream) continue;
      const double overlap = std::min(t[k].end_us, t[cu].end_us) - std::max(t[k].start_us, t[cu].start_us);
      if (overlap > best_overlap) {
        best_overlap = overlap;
        best = c;
      }
    }
    if (best >= 0) members[region_of_collective[best]].push_back(static_cast<int>(k));
  }
  for (size_t r = 0; r < regions.size(); ++r) {
    members[r].push_back(p.kernel_index(regions[r].name));
    std::sort(members[r].begin(), members[r].end());
    for (int k : members[r]) regions[r].kernels.push_back(p.kernels[static_cast<size_t>(k)].name);
  }
  set_chunk_pairs(p, members, regions);
  return regions;
}

wl::Program apply_plan_to_kernels(const wl::Program& program, const std::vector<std::string>& kernels,
                                  const LaunchPlan& plan, const std::string& tag) {
  wl::Program p = program;
  std::set<std::string> in_subset;
  for (const auto& k : kernels) in_subset.insert(k);
  const auto member = [&](const wl::ProgramKernel& k) { return in_subset.contains(k.name); };

  if (plan.comm_impl != wl::CollectiveImpl::cu) {
    for (auto& k : p.kernels) {
      if (member(k) && offloadable(k)) k.collective.impl = plan.comm_impl;
    }
  }
  const bool masks = plan.comm_priority != 0 || plan.gemm_priority != 0 || plan.comm_cus || plan.gemm_cus;
  if (masks) {
    // Which original streams hold GEMMs and collectives (the plan's stream roles, as in
    // apply_launch_plan), decided on the whole program.
    std::map<std::string, std::pair<bool, bool>> role;  // stream -> (gemm, collective)
    for (const auto& k : program.kernels) {
      auto& r = role[k.stream];
      r.first = r.first || k.kind == wl::KernelKind::gemm;
      r.second = r.second || is_collective(k);
    }
    const std::vector<int> prev = wl::stream_predecessors(program);
    // The roles of each stream's part in the subset: a part holding a GEMM gets the GEMM side of
    // the plan, one holding a CU collective the collective side, any other part stays.
    std::map<std::string, std::pair<bool, bool>> part;  // stream -> (gemm, CU collective)
    for (const auto& k : program.kernels) {
      if (!member(k)) continue;
      auto& r = part[k.stream];
      r.first = r.first || k.kind == wl::KernelKind::gemm;
      r.second = r.second || (is_collective(k) && k.collective.impl == wl::CollectiveImpl::cu);
    }
    for (auto& k : p.kernels) {
      if (!member(k)) continue;
      const std::string original = k.stream;
      const auto [gemm, coll] = role[original];
      const auto [part_gemm, part_coll] = part[original];
      if (gemm == coll || !(coll ? part_coll : part_gemm)) continue;  // mixed stream, or nothing to mask
      const std::string copy = fmt::format("{}@{}", original, tag);
      if (p.stream(copy) == nullptr) {
        wl::ProgramStream s = *p.stream(original);
        s.name = copy;
        if (coll) {
          s.priority = std::max(s.priority, plan.comm_priority);
          if (plan.comm_cus) s.cus = plan.comm_cus;
        } else {
          s.priority = std::max(s.priority, plan.gemm_priority);
          if (plan.gemm_cus) s.cus = plan.gemm_cus;
        }
        p.streams.push_back(std::move(s));
      }
      k.stream = copy;
    }
    // Keep each original stream's order where consecutive kernels were split apart.
    for (size_t i = 0; i < p.kernels.size(); ++i) {
      if (prev[i] < 0) continue;
      const auto& before = p.kernels[static_cast<size_t>(prev[i])];
      if (before.stream != p.kernels[i].stream && !waits_for(p.kernels[i], before.name)) {
        p.kernels[i].after.push_back(before.name);
      }
    }
  }
  if (plan.comm_first) {
    // As apply_launch_plan, for the subset's collectives only: one slot earlier, gaps stay.
    for (size_t i = 1; i < p.kernels.size(); ++i) {
      wl::ProgramKernel& before = p.kernels[i - 1];
      wl::ProgramKernel& here = p.kernels[i];
      if (!member(here) || !is_collective(here) || is_collective(before) || before.stream == here.stream ||
          waits_for(here, before.name)) {
        continue;
      }
      std::swap(before, here);
      std::swap(before.gap_us, here.gap_us);
      ++i;
    }
  }
  return p;
}

}  // namespace c3sim::models
