#pragma once
// Why a kernel ran longer than alone, by cause: the result of counterfactual runs
// (models/program/counterfactuals.h).
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace c3sim::models {

struct Attribution {
  double slowdown_us = 0;        // concurrent time - isolated time
  double dispatch_delay_us = 0;  // arrival to first workgroup on a CU (or first DMA transfer)
  double cus_unavailable_us = 0;
  double cache_us = 0;           // hit-rate loss from the co-runners
  double memory_latency_us = 0;  // memory waits queueing behind the co-runners' traffic
  std::map<std::string, double>
      bandwidth_us;  // by resource group: hbm, llc, xcd_fabric, l2, link, dma_engine
};

// The record form: {"slowdown_us", "dispatch_delay_us", "cus_unavailable_us", "cache_us",
// "memory_latency_us", "bandwidth_us": {group: us}} (a c3 record's per-kernel entries, a program
// record kernel's "attribution").
nlohmann::json to_json(const Attribution& a);

}  // namespace c3sim::models
