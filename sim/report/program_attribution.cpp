#include "sim/report/program_attribution.h"

#include <algorithm>
#include <map>
#include <string>

namespace c3sim::report {

namespace {

using nlohmann::json;

double number_or_zero(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

}  // namespace

json program_attribution(const std::vector<const wl::ProgramRecord*>& runs) {
  std::vector<std::string> causes{"dispatch delay", "CUs unavailable", "cache", "memory latency"};
  std::vector<std::string> policies;
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> sum;  // group, policy, cause
  std::map<std::string, int> count;
  for (const auto* r : runs) {
    const bool any = std::any_of(r->kernels.begin(), r->kernels.end(),
                                 [](const wl::ProgramKernelRecord& k) { return !k.attribution.empty(); });
    if (!any) continue;
    add_unique(policies, r->policy);
    ++count[r->policy];
    for (const auto& k : r->kernels) {
      if (k.attribution.empty()) continue;
      auto& m = sum[k.kind == "gemm" ? "gemm" : "collective"][r->policy];
      const json& a = k.attribution;
      m["dispatch delay"] += number_or_zero(a, "dispatch_delay_us");
      m["CUs unavailable"] += number_or_zero(a, "cus_unavailable_us");
      m["cache"] += number_or_zero(a, "cache_us");
      m["memory latency"] += number_or_zero(a, "memory_latency_us");
      const json bandwidth = a.value("bandwidth_us", json::object());  // items() must not outlive it
      for (const auto& [group, us] : bandwidth.items()) {
        if (!us.is_number()) continue;
        const std::string cause = group + " bandwidth";
        add_unique(causes, cause);
        m[cause] += us.get<double>();
      }
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
