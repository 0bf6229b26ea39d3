#include "models/policies/sp_heuristic.h"

#include <algorithm>

#include "models/kernels/collective_plan.h"
#include "models/kernels/gemm_kernel.h"
#include "models/policies/overlap_regions.h"

namespace c3sim::models {

std::vector<int> sp_movable_collectives(const wl::Program& p) {
  std::vector<int> out;
  for (size_t i = 1; i < p.kernels.size(); ++i) {
    const wl::ProgramKernel& before = p.kernels[i - 1];
    const wl::ProgramKernel& here = p.kernels[i];
    if (here.kind != wl::KernelKind::collective || before.kind == wl::KernelKind::collective ||
        before.stream == here.stream ||
        std::find(here.after.begin(), here.after.end(), before.name) != here.after.end()) {
      continue;
    }
    out.push_back(static_cast<int>(i));
    ++i;  // as apply_launch_plan: the next kernel was just moved past
  }
  return out;
}

std::int64_t launch_workgroups(const wl::Program& p, int kernel, const hw::NodeSpec& spec) {
  const wl::ProgramKernel& k = p.kernels.at(static_cast<size_t>(kernel));
  const int cus = p.stream(k.stream)->cus.value_or(spec.compute.total_cus());
  switch (k.kind) {
    case wl::KernelKind::gemm: return plan_gemm(k.gemm, spec, cus).workgroups;
    case wl::KernelKind::collective:
      if (k.collective.impl != wl::CollectiveImpl::cu) return 0;
      return plan_collective(k.collective, spec, p.gpus.value_or(spec.interconnect.gpus),
                             k.collective.max_workgroups)
          .workgroups;
    case wl::KernelKind::memory: return k.memory.workgroups.value_or(cus);
    case wl::KernelKind::dma_copy: return 0;
    case wl::KernelKind::measured: return k.measured.workgroups.value_or(cus);
    case wl::KernelKind::fused:
      return k.fused.producer == wl::KernelKind::gemm ? plan_gemm(k.gemm, spec, cus).workgroups
                                                      : k.memory.workgroups.value_or(cus);
  }
  return 0;
}

std::vector<int> sp_heuristic_pick(const wl::Program& p, const hw::NodeSpec& spec) {
  std::vector<int> out;
  for (int c : sp_movable_collectives(p)) {
    if (launch_workgroups(p, c, spec) <= launch_workgroups(p, c - 1, spec)) out.push_back(c);
  }
  return out;
}

wl::Program launch_first(const wl::Program& program, const std::vector<int>& collectives) {
  LaunchPlan plan;
  plan.comm_first = true;
  std::vector<std::string> names;
  names.reserve(collectives.size());
  for (int c : collectives) names.push_back(program.kernels.at(static_cast<size_t>(c)).name);
  return apply_plan_to_kernels(program, names, plan, "sp");
}

TransformEntry sp_heuristic_entry() {
  TransformEntry e;
  e.name = "sp_heuristic";
  e.help = "sp per overlap pair: a collective launched first when it needs no more workgroups";
  e.decide = [](const wl::Program& p, std::optional<int>, ProgramSimulator& sim) {
    const std::vector<int> picks = sp_heuristic_pick(p, sim.spec());
    std::string chosen;
    for (int c : picks) chosen += (chosen.empty() ? "" : " ") + p.kernels[static_cast<size_t>(c)].name;
    return Decision{launch_first(p, picks), chosen.empty() ? "none first" : chosen + " first"};
  };
  return e;
}

}  // namespace c3sim::models
