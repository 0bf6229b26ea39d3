#include "hardware/hip/records.h"

#include <cmath>

namespace c3sim::bench {

void add_clocks(nlohmann::json& extra, const MeasuredTimes& t) {
  if (t.clocks.empty()) return;
  nlohmann::json before = nlohmann::json::array();
  nlohmann::json after = nlohmann::json::array();
  nlohmann::json power = nlohmann::json::array();
  nlohmann::json reasons = nlohmann::json::array();
  for (const TrialClocks& c : t.clocks) {
    before.push_back(c.before.sm_mhz);
    after.push_back(c.after.sm_mhz);
    power.push_back(std::round(c.after.power_w * 10) / 10);
    reasons.push_back(c.after.event_reasons);
  }
  extra["clocks"] = {{"sm_mhz_before", before},
                     {"sm_mhz_after", after},
                     {"power_w_after", power},
                     {"event_reasons_after", reasons}};
}

wl::IsoGemmRecord iso_gemm_record(const wl::Gemm& g, int units, const MeasuredTimes& t) {
  wl::IsoGemmRecord r;
  r.tag = g.tag;
  r.m = g.m;
  r.n = g.n;
  r.k = g.k;
  r.dtype = c3sim::to_string(g.dtype);
  r.cus = units;
  r.time_us = t.total.median;
  r.spread_us = t.total.spread();
  r.trials = t.trials;
  r.extra["tflops"] = g.flops() / (t.total.median * 1e-6) / 1e12;
  add_clocks(r.extra, t);
  return r;
}

wl::IsoCollRecord iso_coll_record(const CollShape& shape, const CollConfig& config, const MeasuredTimes& t,
                                  int gpus, std::uint64_t wrong_words) {
  wl::IsoCollRecord r;
  r.op = wl::to_string(shape.op);
  r.bytes = static_cast<std::int64_t>(shape.bytes);
  r.impl = wl::to_string(config.impl);
  r.gpus = gpus;
  if (config.impl == wl::CollectiveImpl::cu && config.max_ctas > 0) r.workgroups = config.max_ctas;
  if (config.impl == wl::CollectiveImpl::dma) r.engines = config.dma.engines;
  r.time_us = t.total.median;
  r.spread_us = t.total.spread();
  r.trials = t.trials;
  const double us = t.total.median;
  r.extra["algbw_gbps"] = us > 0 ? static_cast<double>(shape.bytes) / (us * 1e-6) / 1e9 : 0.0;
  r.extra["config"] = config.describe();
  r.extra["verified_wrong_words"] = wrong_words;
  add_clocks(r.extra, t);
  return r;
}

}  // namespace c3sim::bench
