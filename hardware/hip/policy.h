#pragma once
// The C3 policies c3bench can run, parsed from the names scenario files and --policy use:
//   base                 GEMM launched first, collective (library kernels) second
//   sp                   collective first (schedule prioritization by launch order)
//   prio                 GEMM first, collective on the highest-priority stream
//   rp:<n>               resource partitioning: the collective gets >= n SMs/CUs, the GEMM the rest
//   sp_rp:<n>            rp with the collective launched first
//   dma, dma_sp          the project's DMA collective (copy engines), GEMM first / collective first
//   vendor_zero_cta, vendor_zero_cta_sp   NCCL/RCCL's zero-CTA copy-engine collective
#include <optional>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "workloads/collective.h"

namespace c3sim::bench {

struct Policy {
  std::string name;
  wl::CollectiveImpl impl = wl::CollectiveImpl::cu;
  bool collective_first = false;
  bool collective_high_priority = false;
  int partition_units = 0;  // rp: units asked for the collective; 0 = no partition
};

// Throws InputError (at `where`, key "policies") for an unknown name, a bad rp size (needs
// 1 <= n < units_per_gpu when units_per_gpu > 0), or a policy this build's libraries cannot run
// (policy_unavailable), so that it fails before any GPU call.
Policy parse_policy(const std::string& name, const SourceLocation& where, int units_per_gpu);
// Why this build cannot run `policy` (the library API it lacks), or "" when it can.
std::string policy_unavailable(const Policy& policy);
// The list `all` expands to: every policy the issue names, with rp at 16 and 32 units, less those
// this build cannot run.
std::vector<std::string> all_policy_names();
// The policies and, for this build's platform, the mechanism behind each (c3bench --help).
std::string policy_help();

}  // namespace c3sim::bench
