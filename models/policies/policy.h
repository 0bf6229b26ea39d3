#pragma once
// C3 scheduling and offload policies (paper Sections IV-C, V, VI). A policy decides how the two
// kernels are launched: order, stream priorities, CU masks, and where the collective runs. It
// talks to the engine only through this plan; users write their own by implementing Policy
// (examples/custom_policy shows one, unit-tested on the CPU).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hardware/node_spec.h"
#include "models/policies/policy_name.h"
#include "sim/base/errors.h"
#include "workloads/collective.h"
#include "workloads/scenario.h"

namespace c3sim::models {

struct PolicyContext {
  const hw::NodeSpec& spec;
  const wl::Scenario& scenario;
  std::int64_t gemm_workgroups = 0;  // as the GEMM library would launch with all CUs
  int comm_workgroups = 0;           // CU collective channels
};

struct LaunchPlan {
  bool comm_first = false;  // launch order (the other kernel follows after the launch gap)
  int gemm_priority = 0;    // stream priority, larger = more urgent
  int comm_priority = 0;
  std::optional<int> gemm_cus;  // CU mask size for the GEMM's stream (nullopt = all)
  std::optional<int> comm_cus;  // CU mask size for the collective's stream
  wl::CollectiveImpl comm_impl = wl::CollectiveImpl::cu;
};

class Policy {
public:
  virtual ~Policy() = default;
  Policy() = default;
  Policy(const Policy&) = delete;
  Policy& operator=(const Policy&) = delete;

  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual LaunchPlan plan(const PolicyContext& ctx) const = 0;
};

// The paper's GEMM + collective launch plans, one row per family. The policy registry
// (builtin_transforms) makes each row an entry, so its names parse there; make_policy builds the
// row's LaunchPlan.
struct PairPolicyFamily {
  const char* name;  // "rp"
  const char* help;  // one line, for the registry's help text
  bool takes_cus;    // "rp:<cus>"
  bool in_all;       // part of `all` (a family with <cus> through its `_best` sweep)
  bool comm_first;   // the collective launched first
  bool comm_high_priority;
  bool cus_to_comm;  // <cus> is the collective's partition, the GEMM gets the rest (else <cus> are
                     // taken from the GEMM only: dma_rp's cache relief)
  wl::CollectiveImpl impl;
  const char* sweep_floor = nullptr;  // a family's `_best` sweep also tries this policy (dma_rp: dma,
                                      // the offload taking no CUs)
};
// base, sp, prio, rp, sp_rp, dma, dma_sp, dma_rp, vendor_zero_cta, vendor_zero_cta_sp, hybrid_ar
// (all-reduce: reduce-scatter on CUs, all-gather on copy engines; paper VII).
const std::vector<PairPolicyFamily>& pair_policy_families();
// The row named `head`, or nullptr.
const PairPolicyFamily* find_pair_policy(const std::string& head);

// The built-in pair policy of one parsed step (TransformRegistry::parse). Throws InputError (at
// `where`, key "policies") for a step that is not a pair launch plan, or a CU count that is not a
// positive multiple of the hardware's mask granularity leaving CUs for the GEMM, or prio on
// hardware with one stream priority level.
std::unique_ptr<Policy> make_policy(const PolicyStep& step, const hw::NodeSpec& spec,
                                    const SourceLocation& where = {});
// The same for a name ("rp:32"), parsed by the built-in registry; it must be one concrete step.
std::unique_ptr<Policy> make_policy(const std::string& name, const hw::NodeSpec& spec,
                                    const SourceLocation& where = {});

// The powers of two a resource-partitioning sweep tries (paper V-B): granularity, 2x, 4x ... below
// the CU count.
std::vector<int> rp_sweep_cus(const hw::NodeSpec& spec);

// Names in `all` for a pair: the registry's standard names that are pair policies (base, sp,
// prio, rp_best, sp_rp_best, dma, dma_rp_best).
std::vector<std::string> standard_policy_names();
// `all` for one collective on this hardware: the standard names it can run (no DMA offload of a
// reduction on engines that cannot reduce), plus hybrid_ar for an all-reduce.
std::vector<std::string> standard_policy_names(wl::CollectiveOp op, const hw::NodeSpec& spec);

// Why policy `name` (concrete or a `_best` sweep) cannot run collective `op` on this hardware, or
// "" when it can: DMA offload of a reduce-scatter/all-reduce needs engines with a reduction unit
// (spec.dma.reduce_bandwidth > 0); hybrid_ar is an all-reduce; the vendor copy-engine path only
// gathers and exchanges.
std::string policy_unsupported(const PolicyName& name, wl::CollectiveOp op, const hw::NodeSpec& spec);
// Throws InputError at `where` (key "policies") naming the scenario and policy when
// policy_unsupported gives a reason, or when `name` is not a pair policy (a GEMM + collective
// scenario runs the pair's launch plans and their sweeps; other transformations run on programs).
void check_policy_runs(const PolicyName& name, const wl::Scenario& scenario, const hw::NodeSpec& spec,
                       const SourceLocation& where);

// Checks that a CU count is a valid mask size on this hardware; throws InputError otherwise.
void validate_cu_count(int cus, const hw::NodeSpec& spec, const SourceLocation& where,
                       const std::string& what);

}  // namespace c3sim::models
