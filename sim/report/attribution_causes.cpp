#include "sim/report/attribution_causes.h"

#include <algorithm>

namespace c3sim::report {

namespace {

double number_or_zero(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

}  // namespace

std::vector<std::string> fixed_causes() {
  return {"dispatch delay", "CUs unavailable", "cache", "memory latency"};
}

void add_causes(const nlohmann::json& attribution, std::map<std::string, double>& sum,
                std::vector<std::string>& causes) {
  sum["dispatch delay"] += number_or_zero(attribution, "dispatch_delay_us");
  sum["CUs unavailable"] += number_or_zero(attribution, "cus_unavailable_us");
  sum["cache"] += number_or_zero(attribution, "cache_us");
  sum["memory latency"] += number_or_zero(attribution, "memory_latency_us");
  const nlohmann::json bandwidth = attribution.value("bandwidth_us", nlohmann::json::object());
  for (const auto& [group, us] : bandwidth.items()) {  // items() must not outlive `bandwidth`
    if (!us.is_number()) continue;
    const std::string cause = group + " bandwidth";
    if (std::find(causes.begin(), causes.end(), cause) == causes.end()) causes.push_back(cause);
    sum[cause] += us.get<double>();
  }
}

}  // namespace c3sim::report
