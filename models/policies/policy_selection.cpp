#include "models/policies/policy_selection.h"

#include <fmt/format.h>

#include "models/policies/policy.h"

namespace c3sim::models {

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
    if (names[i] == "all") {
      for (const auto& n : standard_policy_names(s.collective.op, spec)) out.push_back(n);
      continue;
    }
    check_policy_runs(names[i], s, spec, loc);
    if (names[i] == "rp_best" || names[i] == "sp_rp_best" || names[i] == "dma_rp_best") {
      out.push_back(names[i]);
      continue;
    }
    (void)make_policy(names[i], spec, loc);  // throws InputError naming file and line
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
    registry.check(names[i], spec, loc);
    if (names[i] == "all") {
      // Per program: the standard policies that can transform it.
      for (const auto& n : registry.standard_names()) {
        if (!registry.cannot_apply(n, p)) out.push_back(n);
      }
      continue;
    }
    if (const std::optional<std::string> why = registry.cannot_apply(names[i], p)) {
      throw InputError(loc, "policies",
                       fmt::format("policy '{}' does not apply to program '{}' ({}:{}): {}", names[i], p.name,
                                   p.location.file, p.location.line, *why));
    }
    out.push_back(names[i]);
  }
  return out;
}

}  // namespace c3sim::models
