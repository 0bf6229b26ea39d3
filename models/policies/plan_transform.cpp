#include "models/policies/plan_transform.h"

#include <algorithm>

#include "models/program/kernel_relations.h"

namespace c3sim::models {

namespace {

// Whether the plan's collective implementation can run this collective.
bool runs_on(wl::CollectiveImpl impl, wl::CollectiveOp op, bool engines_reduce) {
  if (!wl::op_traits(op).reduces) return impl != wl::CollectiveImpl::dma_hybrid;
  if (impl == wl::CollectiveImpl::dma_hybrid) return op == wl::CollectiveOp::all_reduce;
  return impl == wl::CollectiveImpl::dma && engines_reduce;
}

}  // namespace

bool launch_plan_may_change(const wl::Program& program, const LaunchPlan& plan) {
  if (plan.comm_first || plan.gemm_cus || plan.comm_cus || plan.comm_impl != wl::CollectiveImpl::cu)
    return true;
  const int urgent = std::max(plan.gemm_priority, plan.comm_priority);
  return std::any_of(program.streams.begin(), program.streams.end(),
                     [&](const wl::ProgramStream& s) { return s.priority < urgent; });
}

wl::Program apply_launch_plan(const wl::Program& program, const LaunchPlan& plan, bool engines_reduce) {
  wl::Program p = program;
  if (plan.comm_first) {
    // Swap kernels, keep each launch slot's gap where it was (the host's pace is the slot's).
    for (size_t i = 1; i < p.kernels.size(); ++i) {
      wl::ProgramKernel& prev = p.kernels[i - 1];
      wl::ProgramKernel& here = p.kernels[i];
      if (!is_collective(here) || is_collective(prev) || prev.stream == here.stream ||
          waits_for(here, prev.name)) {
        continue;
      }
      std::swap(prev, here);
      std::swap(prev.gap_us, here.gap_us);
      ++i;  // a collective moves one slot, not to the front
    }
  }
  for (auto& s : p.streams) {
    bool gemm = false, coll = false;
    for (const auto& k : p.kernels) {
      if (k.stream != s.name) continue;
      gemm = gemm || k.kind == wl::KernelKind::gemm;
      coll = coll || is_collective(k);
    }
    if (coll && !gemm) {
      s.priority = std::max(s.priority, plan.comm_priority);
      if (plan.comm_cus) s.cus = plan.comm_cus;
    } else if (gemm && !coll) {
      s.priority = std::max(s.priority, plan.gemm_priority);
      if (plan.gemm_cus) s.cus = plan.gemm_cus;
    }
  }
  if (plan.comm_impl != wl::CollectiveImpl::cu) {
    for (auto& k : p.kernels) {
      if (is_collective(k) && runs_on(plan.comm_impl, k.collective.op, engines_reduce)) {
        k.collective.impl = plan.comm_impl;
      }
    }
  }
  return p;
}

std::optional<wl::Scenario> representative_pair(const wl::Program& program) {
  const wl::ProgramKernel* gemm = nullptr;
  const wl::ProgramKernel* coll = nullptr;
  for (const auto& k : program.kernels) {
    if (k.kind == wl::KernelKind::gemm && gemm == nullptr) gemm = &k;
    if (is_collective(k) && coll == nullptr) coll = &k;
  }
  if (gemm == nullptr || coll == nullptr) return std::nullopt;
  wl::Scenario s;
  s.name = program.name;
  s.source = program.source;
  s.gpus = program.gpus;
  s.gemm = gemm->gemm;
  s.collective = coll->collective;
  s.location = program.location;
  return s;
}

}  // namespace c3sim::models
