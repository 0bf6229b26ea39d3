#include "hardware/hip/policy.h"

#include <algorithm>

#include "hardware/hip/gpu_runtime.h"
#include "models/policies/policy.h"
#include "models/policies/transform_registry.h"

namespace c3sim::bench {
namespace {

// A name, parsed by c3sim's policy registry (the one parse of a policy name), as c3bench's pair
// runner launches it: the pair family's launch order, priority, collective implementation and
// partition (models/policies/policy.h pair_policy_families()).
Policy parse_known(const std::string& name, const SourceLocation& where, int units_per_gpu) {
  const models::PolicyName parsed = models::builtin_registry().parse(name, where);
  if (parsed.is_all()) throw InputError(where, "policies", "'all' is only valid alone in --policy");
  const models::PairPolicyFamily* f = parsed.is_concrete() && !parsed.composed()
                                          ? models::find_pair_policy(parsed.steps.front().head)
                                          : nullptr;
  // dma_rp (CUs taken from the GEMM beside the copy engines) and hybrid_ar have no pair runner
  // here; program files run them (and every other transformation) through the registry.
  if (f == nullptr || (f->takes_cus && !f->cus_to_comm) || f->impl == wl::CollectiveImpl::dma_hybrid) {
    throw InputError(where, "policies",
                     "policy '" + name +
                         "' is not one of c3bench's pair policies (base, sp, prio, rp:<n>, sp_rp:<n>, dma, "
                         "dma_sp, vendor_zero_cta, vendor_zero_cta_sp); program files take every "
                         "c3sim policy");
  }
  Policy p;
  p.name = name;
  p.impl = f->impl;
  p.collective_first = f->comm_first;
  p.collective_high_priority = f->comm_high_priority;
  if (const std::optional<int> n = parsed.steps.front().arg) {
    if (*n < 1) {
      throw InputError(where, "policies",
                       "policy '" + name + "': expected a positive integer of SMs/CUs after ':'");
    }
    if (units_per_gpu > 0 && *n >= units_per_gpu) {
      throw InputError(where, "policies",
                       "policy '" + name +
                           "': the collective's partition must leave units for the "
                           "GEMM (this GPU has " +
                           std::to_string(units_per_gpu) + ")");
    }
    p.partition_units = *n;
  }
  return p;
}

}  // namespace

Policy parse_policy(const std::string& name, const SourceLocation& where, int units_per_gpu) {
  Policy p = parse_known(name, where, units_per_gpu);
  if (const std::string why = policy_unavailable(p); !why.empty()) {
    throw InputError(where, "policies", "policy '" + name + "' is not available in this build: " + why);
  }
  return p;
}

std::string policy_unavailable(const Policy& policy) {
  if (policy.partition_units > 0 && C3BENCH_HAVE_COMM_CTA_LIMITS == 0) {
    return "the collective's CTA/channel cap needs ncclConfig_t.maxCTAs (NCCL/RCCL >= 2.17)";
  }
  if (policy.impl == wl::CollectiveImpl::vendor_zero_cta && C3BENCH_HAVE_ZERO_CTA == 0) {
    return "the library has no zero-CTA policy (NCCL_CTA_POLICY_ZERO, NCCL >= 2.28 API)";
  }
  return "";
}

std::vector<std::string> all_policy_names() {
  std::vector<std::string> out;
  for (const char* name :
       {"base", "sp", "prio", "rp:16", "rp:32", "dma", "dma_sp", "vendor_zero_cta", "vendor_zero_cta_sp"}) {
    if (policy_unavailable(parse_known(name, {}, 0)).empty()) out.emplace_back(name);
  }
  return out;
}

std::string policy_help() {
#if defined(C3BENCH_AMD)
  const std::string library = "RCCL";
  const std::string partition =
      "CU-masked streams (hipExtStreamCreateWithCUMask): the collective on the first n CUs, RCCL "
      "capped at n channels, the GEMM on the other CUs";
#if C3BENCH_HAVE_SDMA_ENGINE_COPY
  const std::string dma = std::string(
                              "own DMA collective: every copy pinned to an SDMA engine "
                              "(hsa_amd_memory_async_copy_on_engine), one engine per peer from ") +
                          (C3BENCH_HAVE_PREFERRED_COPY_ENGINE ? "hsa_amd_memory_get_preferred_copy_engine"
                                                              : "the idle engines of "
                                                                "hsa_amd_memory_copy_engine_status") +
                          " or C3BENCH_SDMA_ENGINE_MAP; HSA signals start and complete it";
#else
  const std::string dma =
      "own DMA collective: one hipMemcpyAsync per piece (no engine pinning in this HSA runtime)";
#endif
  const std::string prio_note = "prio with rp: not available (CU-masked streams take no priority)";
#else
  const std::string library = "NCCL";
  const std::string partition =
      "green contexts (cuDevSmResourceSplitByCount): the collective on >= n SMs, NCCL capped at n "
      "CTAs, the GEMM on the rest (the SM count target of its cuBLASLt plan)";
  const std::string dma = "own DMA collective: copy engines, one cudaMemcpyBatchAsync per GPU and queue";
  const std::string prio_note = "prio with rp: the partition group's high-priority stream";
#endif
  auto line = [](std::string name, const std::string& what, const std::string& why_not) {
    name = "  " + name;
    name.resize(std::max<std::size_t>(name.size() + 1, 22), ' ');
    return name + what + (why_not.empty() ? "" : " [not in this build: " + why_not + "]") + "\n";
  };
  std::string all;
  for (const std::string& n : all_policy_names()) all += (all.empty() ? "" : ",") + n;
  Policy rp;
  rp.partition_units = 1;
  Policy zero;
  zero.impl = wl::CollectiveImpl::vendor_zero_cta;
  return std::string("Policies (built for ") + kPlatform + "; --policy all = " + all + "):\n" +
         line("base", "GEMM launched first, collective (" + library + " kernels) second", "") +
         line("sp", "collective launched first", "") +
         line("prio", "GEMM first, collective on the highest-priority stream", "") +
         line("rp:<n>", "resource partitioning: " + partition, policy_unavailable(rp)) +
         line("sp_rp:<n>", "rp with the collective launched first", policy_unavailable(rp)) +
         line("dma, dma_sp", dma + "; GEMM first / collective first", "") +
         line("vendor_zero_cta(_sp)", library + "'s zero-CTA copy-engine collective (NCCL_CTA_POLICY_ZERO)",
              policy_unavailable(zero)) +
         "  " + prio_note + "\n";
}

}  // namespace c3sim::bench
