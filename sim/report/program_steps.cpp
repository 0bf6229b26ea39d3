#include "sim/report/program_steps.h"

#include <algorithm>
#include <set>
#include <string>

namespace c3sim::report {

namespace {

using nlohmann::json;

std::size_t index_of(std::vector<std::string>& v, const std::string& s) {
  const auto it = std::find(v.begin(), v.end(), s);
  if (it != v.end()) return static_cast<std::size_t>(it - v.begin());
  v.push_back(s);
  return v.size() - 1;
}

}  // namespace

json program_steps(const std::vector<const wl::ProgramRecord*>& runs) {
  if (runs.empty()) return nullptr;
  std::set<std::string> programs;
  for (const auto* r : runs) programs.insert(r->program);
  const bool several = programs.size() > 1;
  auto group_of = [several](const wl::ProgramRecord& r) {
    const auto it = r.extra.find("variant");
    if (it == r.extra.end()) return r.program;
    const std::string variant = it->value("name", "");
    return several ? r.program + " / " + variant : variant;
  };
  std::vector<std::string> groups, policies;
  for (const auto* r : runs) {
    index_of(groups, group_of(*r));
    index_of(policies, r->policy);
  }
  json step = json::object();
  for (const auto& p : policies) step[p] = json::array();
  for (const auto& p : policies) {
    for (std::size_t g = 0; g < groups.size(); ++g) step[p].push_back(nullptr);
  }
  json ideal = json::array();
  for (std::size_t g = 0; g < groups.size(); ++g) ideal.push_back(nullptr);
  for (const auto* r : runs) {
    const std::size_t g = index_of(groups, group_of(*r));
    step[r->policy][g] = r->step_us;
    // The ideal is the untransformed program's: the same for every policy of a group.
    if (r->ideal_us) ideal[g] = *r->ideal_us;
  }
  return json{{"groups", groups}, {"policies", policies}, {"step_us", step}, {"ideal_us", ideal}};
}

}  // namespace c3sim::report
