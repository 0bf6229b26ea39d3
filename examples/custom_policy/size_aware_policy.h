#pragma once
// An example user policy written against c3sim's public Policy interface: offload the collective
// to DMA engines only when it is large enough that host launch/sync cost is amortized, otherwise
// launch it first on CUs with a small CU partition sized to the collective. Users test their own
// schedulers this way, on a CPU, with the simulator as the device.
#include <cstdint>
#include <string>

#include "models/policies/policy.h"

namespace example {

class SizeAwarePolicy final : public c3sim::models::Policy {
public:
  explicit SizeAwarePolicy(std::int64_t dma_threshold_bytes) : threshold_(dma_threshold_bytes) {}

  [[nodiscard]] std::string name() const override { return "size_aware"; }

  [[nodiscard]] c3sim::models::LaunchPlan plan(const c3sim::models::PolicyContext& ctx) const override {
    c3sim::models::LaunchPlan p;
    if (ctx.scenario.collective.bytes >= threshold_ &&
        !c3sim::wl::op_traits(ctx.scenario.collective.op).reduces) {
      p.comm_impl = c3sim::wl::CollectiveImpl::dma;  // every CU stays with the GEMM
      return p;
    }
    // Small collective: launch it first so it is not starved, on the smallest legal partition.
    p.comm_first = true;
    p.comm_cus = ctx.spec.compute.cu_mask_granularity;
    p.gemm_cus = ctx.spec.compute.total_cus() - *p.comm_cus;
    return p;
  }

private:
  std::int64_t threshold_;
};

}  // namespace example
