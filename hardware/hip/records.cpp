#include "hardware/hip/records.h"

namespace c3sim::bench {

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
  return r;
}

}  // namespace c3sim::bench
