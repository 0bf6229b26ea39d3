#include "models/policies/policy.h"

#include <fmt/format.h>

#include "models/policies/transform_registry.h"

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

std::string pair_family_list() {
  std::string out;
  for (const auto& f : pair_policy_families()) {
    out += out.empty() ? "" : ", ";
    out += f.takes_cus ? fmt::format("{}:<cus>", f.name) : std::string(f.name);
  }
  return out;
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

const std::vector<PairPolicyFamily>& pair_policy_families() {
  using wl::CollectiveImpl;
  static const std::vector<PairPolicyFamily> families = {
      {.name = "base",
       .help = "as written (the pair: GEMM launched first)",
       .takes_cus = false,
       .in_all = true,
       .comm_first = false,
       .comm_high_priority = false,
       .cus_to_comm = false,
       .impl = CollectiveImpl::cu,
       .sweep_floor = nullptr},
      {.name = "sp",
       .help = "schedule prioritization: each collective launched one slot earlier",
       .takes_cus = false,
       .in_all = true,
       .comm_first = true,
       .comm_high_priority = false,
       .cus_to_comm = false,
       .impl = CollectiveImpl::cu,
       .sweep_floor = nullptr},
      {.name = "prio",
       .help = "collective streams on a high-priority queue",
       .takes_cus = false,
       .in_all = true,
       .comm_first = false,
       .comm_high_priority = true,
       .cus_to_comm = false,
       .impl = CollectiveImpl::cu,
       .sweep_floor = nullptr},
      {.name = "rp",
       .help = "CU masks: collective streams get <cus>, GEMM streams the rest",
       .takes_cus = true,
       .in_all = true,
       .comm_first = false,
       .comm_high_priority = false,
       .cus_to_comm = true,
       .impl = CollectiveImpl::cu,
       .sweep_floor = nullptr},
      {.name = "sp_rp",
       .help = "sp and rp together",
       .takes_cus = true,
       .in_all = true,
       .comm_first = true,
       .comm_high_priority = false,
       .cus_to_comm = true,
       .impl = CollectiveImpl::cu,
       .sweep_floor = nullptr},
      {.name = "dma",
       .help = "collectives on copy engines (ConCCL; reductions too when the engines reduce)",
       .takes_cus = false,
       .in_all = true,
       .comm_first = false,
       .comm_high_priority = false,
       .cus_to_comm = false,
       .impl = CollectiveImpl::dma,
       .sweep_floor = nullptr},
      {.name = "dma_sp",
       .help = "dma, collectives launched one slot earlier",
       .takes_cus = false,
       .in_all = false,
       .comm_first = true,
       .comm_high_priority = false,
       .cus_to_comm = false,
       .impl = CollectiveImpl::dma,
       .sweep_floor = nullptr},
      {.name = "dma_rp",
       .help = "dma, <cus> CUs taken from GEMM streams for cache relief",
       .takes_cus = true,
       .in_all = true,
       .comm_first = false,
       .comm_high_priority = false,
       .cus_to_comm = false,
       .impl = CollectiveImpl::dma,
       .sweep_floor = "dma"},
      {.name = "vendor_zero_cta",
       .help = "the vendor library's copy-engine path (NCCL zero-CTA)",
       .takes_cus = false,
       .in_all = false,
       .comm_first = false,
       .comm_high_priority = false,
       .cus_to_comm = false,
       .impl = CollectiveImpl::vendor_zero_cta,
       .sweep_floor = nullptr},
      {.name = "vendor_zero_cta_sp",
       .help = "vendor_zero_cta, collectives launched first",
       .takes_cus = false,
       .in_all = false,
       .comm_first = true,
       .comm_high_priority = false,
       .cus_to_comm = false,
       .impl = CollectiveImpl::vendor_zero_cta,
       .sweep_floor = nullptr},
      {.name = "hybrid_ar",
       .help = "all-reduce: reduce-scatter on CUs, all-gather on copy engines (paper VII)",
       .takes_cus = false,
       .in_all = false,
       .comm_first = false,
       .comm_high_priority = false,
       .cus_to_comm = false,
       .impl = CollectiveImpl::dma_hybrid,
       .sweep_floor = nullptr},
  };
  return families;
}

const PairPolicyFamily* find_pair_policy(const std::string& head) {
  for (const auto& f : pair_policy_families()) {
    if (head == f.name) return &f;
  }
  return nullptr;
}

std::unique_ptr<Policy> make_policy(const PolicyStep& step, const hw::NodeSpec& spec,
                                    const SourceLocation& where) {
  const std::string name = step.text();
  const PairPolicyFamily* f = find_pair_policy(step.head);
  if (f == nullptr) {
    throw InputError(where, "policies",
                     fmt::format("policy '{}' is not a GEMM + collective launch plan (those are: {})", name,
                                 pair_family_list()));
  }
  if (f->takes_cus != step.arg.has_value()) {
    throw InputError(where, "policies",
                     f->takes_cus ? fmt::format("policy '{}' needs a CU count, e.g. '{}:32'", name, f->name)
                                  : fmt::format("policy '{}' takes no argument", f->name));
  }
  LaunchPlan p;
  p.comm_first = f->comm_first;
  p.comm_impl = f->impl;
  if (f->comm_high_priority) {
    if (spec.compute.stream_priority_levels <= 1)
      throw InputError(where, "policies", fmt::format("'{}' has one stream priority level", spec.name));
    p.comm_priority = 1;
  }
  if (step.arg) {
    const int cus = *step.arg;
    validate_cu_count(cus, spec, where, fmt::format("policy '{}'", name));
    if (f->cus_to_comm) p.comm_cus = cus;
    p.gemm_cus = spec.compute.total_cus() - cus;
  }
  return std::make_unique<BuiltinPolicy>(name, p);
}

std::unique_ptr<Policy> make_policy(const std::string& name, const hw::NodeSpec& spec,
                                    const SourceLocation& where) {
  const PolicyName parsed = builtin_registry().parse(name, where);
  if (!parsed.is_concrete() || parsed.composed()) {
    throw InputError(where, "policies",
                     fmt::format("policy '{}' stands for several runs; one launch plan is one name such as "
                                 "'rp:32'",
                                 name));
  }
  return make_policy(parsed.steps.front(), spec, where);
}

std::vector<int> rp_sweep_cus(const hw::NodeSpec& spec) {
  std::vector<int> out;
  const int total = spec.compute.total_cus();
  for (int c = spec.compute.cu_mask_granularity; c < total; c *= 2) out.push_back(c);
  return out;
}

std::vector<std::string> standard_policy_names() {
  std::vector<std::string> out;
  const TransformRegistry& registry = builtin_registry();
  for (auto& n : registry.standard_names()) {
    if (find_pair_policy(registry.parse(n, {}).steps.front().head) != nullptr) out.push_back(std::move(n));
  }
  return out;
}

std::vector<std::string> standard_policy_names(wl::CollectiveOp op, const hw::NodeSpec& spec) {
  std::vector<std::string> out;
  for (auto& n : standard_policy_names()) {
    if (policy_unsupported(builtin_registry().parse(n, {}), op, spec).empty()) out.push_back(std::move(n));
  }
  if (op == wl::CollectiveOp::all_reduce) out.emplace_back("hybrid_ar");
  return out;
}

std::string policy_unsupported(const PolicyName& name, wl::CollectiveOp op, const hw::NodeSpec& spec) {
  const bool reduction = wl::op_traits(op).reduces;
  for (const PolicyStep& step : name.steps) {
    const PairPolicyFamily* f = find_pair_policy(step.head);
    if (f == nullptr) continue;
    if (f->impl == wl::CollectiveImpl::dma_hybrid && op != wl::CollectiveOp::all_reduce) {
      return fmt::format(
          "{} is an all-reduce (reduce-scatter on CUs, all-gather on copy engines), "
          "not a {}",
          f->name, wl::to_string(op));
    }
    if (f->impl == wl::CollectiveImpl::vendor_zero_cta && reduction) {
      return fmt::format("the vendor copy-engine path has no {}", wl::to_string(op));
    }
    if (f->impl == wl::CollectiveImpl::dma && reduction && !(spec.dma.reduce_bw > 0)) {
      return fmt::format(
          "the copy engines of {} cannot reduce (spec.dma.reduce_bandwidth is 0), so a {} "
          "cannot be offloaded to them; use a CU policy{}",
          spec.name, wl::to_string(op), op == wl::CollectiveOp::all_reduce ? " or hybrid_ar" : "");
    }
  }
  return {};
}

void check_policy_runs(const PolicyName& name, const wl::Scenario& scenario, const hw::NodeSpec& spec,
                       const SourceLocation& where) {
  std::string why;
  if (name.is_all() || name.composed() || find_pair_policy(name.steps.front().head) == nullptr) {
    why = fmt::format(
        "a GEMM + collective scenario runs one launch plan per name ({}, their _best sweeps, "
        "or all); '{}' is a program transformation: run the scenario as a program file",
        pair_family_list(), name.text);
  } else {
    why = policy_unsupported(name, scenario.collective.op, spec);
  }
  if (!why.empty()) {
    throw InputError(where, "policies",
                     fmt::format("scenario '{}', policy '{}': {}", scenario.name, name.text, why));
  }
}

}  // namespace c3sim::models
