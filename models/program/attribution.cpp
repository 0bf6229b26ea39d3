#include "models/program/attribution.h"

namespace c3sim::models {

nlohmann::json to_json(const Attribution& a) {
  nlohmann::json bw = nlohmann::json::object();
  for (const auto& [k, v] : a.bandwidth_us) bw[k] = v;
  return {{"slowdown_us", a.slowdown_us},
          {"dispatch_delay_us", a.dispatch_delay_us},
          {"cus_unavailable_us", a.cus_unavailable_us},
          {"cache_us", a.cache_us},
          {"memory_latency_us", a.memory_latency_us},
          {"bandwidth_us", bw}};
}

}  // namespace c3sim::models
