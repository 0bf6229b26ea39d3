#include "models/policies/policy_selection.h"

#include <fmt/format.h>

#include "models/policies/policy.h"

namespace c3sim::models {

namespace {

// Whether every concrete policy `name` stands for keeps the program's collectives on CUs: a
// collective over several nodes is modelled on CUs only (docs/scale-out.md), so `all` leaves out
// the copy-engine policies for such a program. Deciding entries choose among CU plans.
bool keeps_cu_collectives(const TransformRegistry& registry, const std::string& name, const wl::Program& p,
                          const hw::NodeSpec& spec) {
  for (const PolicyName& c : registry.expand(registry.parse(name, p.location), spec)) {
    if (registry.decides(c)) continue;
    const wl::Program t = registry.apply(c, p, spec);
    for (const wl::ProgramKernel& k : t.kernels) {
      if (k.kind == wl::KernelKind::collective && k.collective.impl != wl::CollectiveImpl::cu) return false;
    }
  }
  return true;
}

}  // namespace

std::vector<std::string> scenario_policies(const wl::Scenario& s, const PolicyRequest& requested,
                                           const hw::NodeSpec& spec) {
  std::vector<std::string> names = requested.names;
  std::vector<SourceLocation> where(names.size(), requested.where);
  if (names.empty()) {
    names = s.policies;
    where = s.policy_locations;
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < names.size(); ++i) {
    const SourceLocation loc = i < where.size() ? where[i] : s.location;
    const PolicyName name = builtin_registry().parse(names[i], loc);
    if (name.is_all()) {
      for (const auto& n : standard_policy_names(s.collective.op, spec)) out.push_back(n);
      continue;
    }
    check_policy_runs(name, s, spec, loc);
    // A sweep's candidates are built from the hardware and valid by construction.
    if (name.is_concrete()) (void)make_policy(name.steps.front(), spec, loc);
    out.push_back(names[i]);
  }
  if (out.empty()) out = standard_policy_names(s.collective.op, spec);
  return out;
}

std::vector<std::string> program_policies(const wl::Program& p, const PolicyRequest& requested,
                                          const TransformRegistry& registry, const hw::NodeSpec& spec) {
  std::vector<std::string> names = requested.names.empty() ? p.policies : requested.names;
  std::vector<SourceLocation> where = requested.names.empty()
                                          ? p.policy_locations
                                          : std::vector<SourceLocation>(names.size(), requested.where);
  if (names.empty()) {
    names = {"all"};
    where = {p.location};
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < names.size(); ++i) {
    const SourceLocation loc = i < where.size() ? where[i] : p.location;
    const PolicyName name = registry.check(names[i], spec, loc);
    if (name.is_all()) {
      // Per program: the standard policies that can transform it.
      const bool across_nodes = p.nodes.value_or(spec.cluster.nodes) > 1;
      for (const auto& n : registry.standard_names()) {
        if (registry.cannot_apply(n, p)) continue;
        if (across_nodes && !keeps_cu_collectives(registry, n, p, spec)) continue;
        out.push_back(n);
      }
      continue;
    }
    if (const std::optional<std::string> why = registry.cannot_apply(name, p)) {
      throw InputError(loc, "policies",
                       fmt::format("policy '{}' does not apply to program '{}' ({}:{}): {}", names[i], p.name,
                                   p.location.file, p.location.line, *why));
    }
    out.push_back(names[i]);
  }
  return out;
}

}  // namespace c3sim::models
