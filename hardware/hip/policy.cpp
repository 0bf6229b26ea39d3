#include "hardware/hip/policy.h"

#include <charconv>

namespace c3sim::bench {
namespace {

int parse_units(const std::string& name, std::size_t prefix, const SourceLocation& where, int units_per_gpu) {
  const std::string digits = name.substr(prefix);
  int n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || n < 1) {
    throw InputError(where, "policies",
                     "policy '" + name + "': expected a positive integer of SMs/CUs after ':'");
  }
  if (units_per_gpu > 0 && n >= units_per_gpu) {
    throw InputError(where, "policies",
                     "policy '" + name +
                         "': the collective's partition must leave units for the "
                         "GEMM (this GPU has " +
                         std::to_string(units_per_gpu) + ")");
  }
  return n;
}

}  // namespace

Policy parse_policy(const std::string& name, const SourceLocation& where, int units_per_gpu) {
  Policy p;
  p.name = name;
  if (name == "base") return p;
  if (name == "sp") {
    p.collective_first = true;
    return p;
  }
  if (name == "prio") {
    p.collective_high_priority = true;
    return p;
  }
  if (name.rfind("rp:", 0) == 0) {
    p.partition_units = parse_units(name, 3, where, units_per_gpu);
    return p;
  }
  if (name.rfind("sp_rp:", 0) == 0) {
    p.partition_units = parse_units(name, 6, where, units_per_gpu);
    p.collective_first = true;
    return p;
  }
  if (name == "dma" || name == "dma_sp") {
    p.impl = wl::CollectiveImpl::dma;
    p.collective_first = name == "dma_sp";
    return p;
  }
  if (name == "vendor_zero_cta" || name == "vendor_zero_cta_sp") {
    p.impl = wl::CollectiveImpl::vendor_zero_cta;
    p.collective_first = name == "vendor_zero_cta_sp";
    return p;
  }
  throw InputError(where, "policies",
                   "unknown policy '" + name +
                       "' (known: base, sp, prio, rp:<n>, sp_rp:<n>, dma, "
                       "dma_sp, vendor_zero_cta, vendor_zero_cta_sp, or all)");
}

std::vector<std::string> all_policy_names() {
  return {"base", "sp", "prio", "rp:16", "rp:32", "dma", "dma_sp", "vendor_zero_cta", "vendor_zero_cta_sp"};
}

}  // namespace c3sim::bench
