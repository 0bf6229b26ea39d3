#include "sim/report/program_attribution.h"

#include <algorithm>
#include <map>
#include <string>

#include "sim/report/attribution_causes.h"

namespace c3sim::report {

namespace {

using nlohmann::json;

void append_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

}  // namespace

json program_attribution(const std::vector<const wl::ProgramRecord*>& runs) {
  std::vector<std::string> causes = fixed_causes();
  std::vector<std::string> policies;
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> sum;  // group, policy, cause
  std::map<std::string, int> count;
  for (const auto* r : runs) {
    const bool any = std::any_of(r->kernels.begin(), r->kernels.end(),
                                 [](const wl::ProgramKernelRecord& k) { return !k.attribution.empty(); });
    if (!any) continue;
    append_unique(policies, r->policy);
    ++count[r->policy];
    for (const auto& k : r->kernels) {
      if (k.attribution.empty()) continue;
      add_causes(k.attribution, sum[k.kind == "gemm" ? "gemm" : "collective"][r->policy], causes);
    }
  }
  if (policies.empty()) return nullptr;
  json out{
      {"policies", policies}, {"causes", causes}, {"gemm", json::object()}, {"collective", json::object()}};
  for (const auto& group : {"gemm", "collective"}) {
    for (const auto& cause : causes) {
      json row = json::array();
      for (const auto& p : policies) row.push_back(sum[group][p][cause] / count[p]);
      out[group][cause] = row;
    }
  }
  return out;
}

}  // namespace c3sim::report
