#pragma once
// How much queueing a kernel's memory requests see when a memory-side cache (the LLC) sits in
// front of HBM and other kernels load both.
//
// Mechanism (stated assumption; M/G/1-style first order): a request's wait at a memory level grows
// with the utilization u that other requesters put on that level, in proportion to the time the
// request spends there. A request the LLC serves spends its whole latency L at the LLC; one the
// LLC passes on spends L there and (r - 1) L more at the HBM channels, r being
// model.gemm.hbm_miss_latency_ratio (the same memory's latency ratio, whoever asks). With a share
// `llc_hit` of requests served by the LLC, the mean latency under load over the mean idle latency is
//   [hit L (1 + u_llc) + (1 - hit) (L (1 + u_llc) + (r - 1) L (1 + u_hbm))] / [hit L + (1 - hit) r L]
//   = 1 + (u_llc + (1 - hit)(r - 1) u_hbm) / (hit + (1 - hit) r),
// so the utilization the kernel effectively queues behind is the latency-weighted mean returned
// here. Before, only u_llc counted: a collective streaming buffers through HBM (4.2 TB/s achieved,
// [roofline]) loads HBM 1.5x more than the 6.42 TB/s cache ([mall]), and the GEMM's cache misses
// queue behind that.
#include <algorithm>

namespace c3sim::models {

[[nodiscard]] inline double queueing_utilization(double u_llc, double u_hbm, double llc_hit,
                                                 double hbm_latency_ratio) {
  const double hit = std::clamp(llc_hit, 0.0, 1.0);
  const double r = std::max(1.0, hbm_latency_ratio);
  return (u_llc + (1.0 - hit) * (r - 1.0) * u_hbm) / (hit + (1.0 - hit) * r);
}

}  // namespace c3sim::models
