#include "models/program/program_runner.h"

#include <optional>

namespace c3sim::models {

ProgramResult run_program_policy(ProgramSimulator& sim, const TransformRegistry& registry,
                                 const wl::Program& program, const std::string& policy,
                                 engine::TraceRecorder* trace) {
  const std::vector<std::string> candidates = registry.expand(policy, sim.spec());
  if (candidates.size() == 1 && candidates[0] == policy) {
    Decision d = registry.decide(policy, program, sim, program.location);
    ProgramResult r = sim.run(d.program, policy, &program, trace);
    r.chosen = std::move(d.chosen);
    return r;
  }
  std::optional<ProgramResult> best;
  for (const auto& name : candidates) {
    ProgramResult r = sim.run(registry.apply(name, program, sim.spec(), program.location), name, &program);
    if (!best || r.step_us < best->step_us) best = std::move(r);
  }
  if (trace != nullptr) {
    best = sim.run(registry.apply(best->policy, program, sim.spec(), program.location), best->policy,
                   &program, trace);
  }
  best->chosen = best->policy;
  best->policy = policy;
  return *best;
}

wl::ProgramRecord to_record(const ProgramResult& r, int gpus) {
  wl::ProgramRecord rec;
  rec.program = r.program;
  rec.policy = r.policy;
  rec.gpus = gpus;
  rec.step_us = r.step_us;
  rec.serial_us = r.serial_us;
  rec.ideal_us = r.ideal_us;
  rec.overlap_percent = r.overlap_percent();
  for (const KernelResult& k : r.kernels) {
    rec.kernels.push_back(wl::ProgramKernelRecord{k.run.name, wl::to_string(k.run.kind), k.run.stream,
                                                  k.run.launch_us, k.run.ready_us, k.run.start_us,
                                                  k.run.end_us, k.iso_us});
  }
  if (!r.chosen.empty()) rec.extra["chosen"] = r.chosen;
  return rec;
}

}  // namespace c3sim::models
