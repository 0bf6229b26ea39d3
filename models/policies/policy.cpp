#include "models/policies/policy.h"

#include <fmt/format.h>

namespace c3sim::models {

namespace {

// One configurable class covers the paper's policy family; custom policies subclass Policy.
class BuiltinPolicy final : public Policy {
public:
  BuiltinPolicy(std::string name, LaunchPlan plan) : name_(std::move(name)), plan_(plan) {}
  [[nodiscard]] std::string name() const override { return name_; }
  [[nodiscard]] LaunchPlan plan(const PolicyContext&) const override { return plan_; }

private:
  std::string name_;
  LaunchPlan plan_;
};

int parse_cus(const std::string& text, const std::string& full, const hw::NodeSpec& spec,
              const SourceLocation& where) {
  size_t pos = 0;
  int cus = 0;
  try {
    cus = std::stoi(text, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos == 0 || pos != text.size()) {
    throw InputError(where, "policies", fmt::format("policy '{}': '{}' is not a CU count", full, text));
  }
  validate_cu_count(cus, spec, where, fmt::format("policy '{}'", full));
  return cus;
}

}  // namespace

void validate_cu_count(int cus, const hw::NodeSpec& spec, const SourceLocation& where,
                       const std::string& what) {
  const int total = spec.compute.total_cus();
  const int gran = spec.compute.cu_mask_granularity;
  if (cus <= 0)
    throw InputError(where, "policies", fmt::format("{}: CU count must be positive, got {}", what, cus));
  if (cus % gran != 0) {
    throw InputError(
        where, "policies",
        fmt::format("{}: impossible CU mask: {} CUs is not a multiple of {} (the smallest allocation "
                    "on {})",
                    what, cus, gran, spec.name));
  }
  if (cus >= total) {
    throw InputError(
        where, "policies",
        fmt::format("{}: impossible CU mask: {} CUs leaves none of the {} CUs of {} for the other kernel",
                    what, cus, total, spec.name));
  }
}

std::unique_ptr<Policy> make_policy(const std::string& name, const hw::NodeSpec& spec,
                                    const SourceLocation& where) {
  const int high = spec.compute.stream_priority_levels > 1 ? 1 : 0;
  LaunchPlan p;
  const auto colon = name.find(':');
  const std::string head = name.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : name.substr(colon + 1);
  const bool has_arg = colon != std::string::npos;
  auto need_arg = [&](bool want) {
    if (want != has_arg) {
      throw InputError(where, "policies",
                       want ? fmt::format("policy '{}' needs a CU count, e.g. '{}:32'", name, head)
                            : fmt::format("policy '{}' takes no argument", head));
    }
  };
  if (head == "base") {
    need_arg(false);
  } else if (head == "sp") {
    need_arg(false);
    p.comm_first = true;
  } else if (head == "prio") {
    need_arg(false);
    if (high == 0)
      throw InputError(where, "policies", fmt::format("'{}' has one stream priority level", spec.name));
    p.comm_priority = high;
  } else if (head == "rp" || head == "sp_rp") {
    need_arg(true);
    const int cus = parse_cus(arg, name, spec, where);
    p.comm_first = head == "sp_rp";
    p.comm_cus = cus;
    p.gemm_cus = spec.compute.total_cus() - cus;
  } else if (head == "dma" || head == "dma_sp") {
    need_arg(false);
    p.comm_impl = wl::CollectiveImpl::dma;
    p.comm_first = head == "dma_sp";
  } else if (head == "dma_rp") {
    need_arg(true);
    const int cus = parse_cus(arg, name, spec, where);
    p.comm_impl = wl::CollectiveImpl::dma;
    p.gemm_cus = spec.compute.total_cus() - cus;
  } else if (head == "hybrid_ar") {
    need_arg(false);
    p.comm_impl = wl::CollectiveImpl::dma_hybrid;
  } else if (head == "vendor_zero_cta" || head == "vendor_zero_cta_sp") {
    need_arg(false);
    p.comm_impl = wl::CollectiveImpl::vendor_zero_cta;
    p.comm_first = head == "vendor_zero_cta_sp";
  } else {
    throw InputError(
        where, "policies",
        fmt::format("unknown policy '{}' (known: base, sp, prio, rp:<cus>, sp_rp:<cus>, dma, dma_sp, "
                    "dma_rp:<cus>, vendor_zero_cta, vendor_zero_cta_sp, hybrid_ar, or 'all')",
                    name));
  }
  return std::make_unique<BuiltinPolicy>(name, p);
}

std::vector<int> rp_sweep_cus(const hw::NodeSpec& spec) {
  std::vector<int> out;
  const int total = spec.compute.total_cus();
  for (int c = spec.compute.cu_mask_granularity; c < total; c *= 2) out.push_back(c);
  return out;
}

std::vector<std::string> standard_policy_names() {
  return {"base", "sp", "prio", "rp_best", "sp_rp_best", "dma", "dma_rp_best"};
}

std::vector<std::string> standard_policy_names(wl::CollectiveOp op, const hw::NodeSpec& spec) {
  std::vector<std::string> out;
  for (auto& n : standard_policy_names()) {
    if (policy_unsupported(n, op, spec).empty()) out.push_back(std::move(n));
  }
  if (op == wl::CollectiveOp::all_reduce) out.emplace_back("hybrid_ar");
  return out;
}

std::string policy_unsupported(const std::string& name, wl::CollectiveOp op, const hw::NodeSpec& spec) {
  const std::string head = name.substr(0, name.find(':'));
  const bool reduction = wl::op_traits(op).reduces;
  if (head == "hybrid_ar") {
    if (op != wl::CollectiveOp::all_reduce) {
      return fmt::format(
          "hybrid_ar is an all-reduce (reduce-scatter on CUs, all-gather on copy engines), "
          "not a {}",
          wl::to_string(op));
    }
    return {};
  }
  if (head.rfind("vendor_zero_cta", 0) == 0 && reduction) {
    return fmt::format("the vendor copy-engine path has no {}", wl::to_string(op));
  }
  const bool dma = head == "dma" || head == "dma_sp" || head == "dma_rp" || head == "dma_rp_best";
  if (dma && reduction && !(spec.dma.reduce_bw > 0)) {
    return fmt::format(
        "the copy engines of {} cannot reduce (spec.dma.reduce_bandwidth is 0), so a {} "
        "cannot be offloaded to them; use a CU policy{}",
        spec.name, wl::to_string(op), op == wl::CollectiveOp::all_reduce ? " or hybrid_ar" : "");
  }
  return {};
}

void check_policy_runs(const std::string& name, const wl::Scenario& scenario, const hw::NodeSpec& spec,
                       const SourceLocation& where) {
  const std::string why = policy_unsupported(name, scenario.collective.op, spec);
  if (!why.empty()) {
    throw InputError(where, "policies",
                     fmt::format("scenario '{}', policy '{}': {}", scenario.name, name, why));
  }
}

}  // namespace c3sim::models
