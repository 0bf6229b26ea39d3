#pragma once
// The pair policies' LaunchPlan (models/policies/policy.h) applied to any program, so `base`, `sp`,
// `prio`, `rp:<n>`, `sp_rp:<n>`, `dma`, `dma_sp`, `dma_rp:<n>` and `vendor_zero_cta` mean on a
// program what they mean on a pair (a pair's two-kernel program gets exactly the pair's setup):
// - comm_first: every collective is launched one slot earlier, before the kernel the host would
//   launch just before it (when that is not a collective, is on another stream and is not one it
//   waits for). On the pair this is `sp`: collective first, GEMM a launch gap later.
// - comm_priority / comm_cus: every stream that holds a collective and no GEMM;
//   gemm_priority / gemm_cus: every stream that holds a GEMM and no collective (a stream holding
//   both is one queue and cannot be partitioned).
// - comm_impl: every collective that copy engines can run: all-gathers and all-to-alls; reductions
//   only when `engines_reduce` (spec.dma.reduce_bandwidth > 0) for `dma`, and all-reduces for
//   `hybrid_ar` (its reduce-scatter phase runs on CUs). Other reductions stay on the CUs.
#include <optional>

#include "hardware/node_spec.h"
#include "models/policies/policy.h"
#include "workloads/program.h"

namespace c3sim::models {

// False only when apply_launch_plan would return `program` as it is: no reordering, no CU masks,
// no collective implementation change, and every stream already at least as urgent as the plan
// asks. Conservative (true when unsure).
bool launch_plan_may_change(const wl::Program& program, const LaunchPlan& plan);
wl::Program apply_launch_plan(const wl::Program& program, const LaunchPlan& plan,
                              bool engines_reduce = false);

// The pair a policy's PolicyContext describes for a program: its first GEMM and first collective
// (nullopt when it lacks either). Custom Policy classes read the scenario from the context.
std::optional<wl::Scenario> representative_pair(const wl::Program& program);

}  // namespace c3sim::models
