#include "models/run/program_runner.h"

#include <optional>

#include <fmt/format.h>

#include "models/program/all_gpu_simulator.h"

namespace c3sim::models {

ProgramResult run_program_policy(ProgramSimulator& sim, const TransformRegistry& registry,
                                 const wl::Program& program, const std::string& policy,
                                 engine::TraceRecorder* trace, bool attribution) {
  const PolicyName name = registry.parse(policy, program.location);
  if (name.is_concrete()) {
    if (registry.leaves_unchanged(name, program, sim.spec())) {
      registry.check(name, sim.spec(), program.location);
      return sim.run(program, policy, &program, trace, attribution);
    }
    Decision d = registry.decide(name, program, sim, program.location);
    ProgramResult r = sim.run(d.program, policy, &program, trace, attribution);
    r.chosen = std::move(d.chosen);
    return r;
  }
  std::optional<ProgramResult> best;
  for (const auto& candidate : registry.expand(name, sim.spec())) {
    ProgramResult r =
        sim.run(registry.apply(candidate, program, sim.spec(), program.location), candidate.text, &program);
    if (!best || r.step_us < best->step_us) best = std::move(r);
  }
  if (trace != nullptr || attribution) {
    best = sim.run(registry.apply(best->policy, program, sim.spec(), program.location), best->policy,
                   &program, trace, attribution);
  }
  best->chosen = best->policy;
  best->policy = policy;
  return *best;
}

bool runs_all_gpus(const wl::Program& program, bool forced) {
  return forced || program.all_gpus || program.asymmetric();
}

void check_all_gpu_policy(const TransformRegistry& registry, const std::string& policy,
                          const SourceLocation& where) {
  for (const PolicyStep& step : registry.parse(policy, where).steps) {
    if (registry.decides(PolicyName{PolicyName::Form::concrete, {step}, step.text()})) {
      throw InputError(
          where, "policies",
          fmt::format("policy '{}' decides from one GPU's simulation; all-GPU mode runs concrete "
                      "policies, compositions and _best sweeps",
                      step.text()));
    }
  }
}

namespace {

struct AllGpuTrial {
  std::string policy;
  std::vector<wl::Program> ranks;
  AllGpuRun run;
};

AllGpuTrial all_gpu_trial(ProgramSimulator& sim, const TransformRegistry& registry,
                          const std::vector<wl::Program>& base, const std::string& policy,
                          const SourceLocation& where, const std::vector<engine::TraceRecorder*>& traces) {
  AllGpuTrial t{policy, {}, {}};
  for (const wl::Program& p : base) t.ranks.push_back(registry.apply(policy, p, sim.spec(), where));
  t.run = simulate_all_gpus(sim, t.ranks, traces);
  return t;
}

}  // namespace

ProgramResult run_program_all_gpus(ProgramSimulator& sim, const TransformRegistry& registry,
                                   const wl::Program& program, const std::string& policy,
                                   const std::vector<engine::TraceRecorder*>& traces) {
  check_all_gpu_policy(registry, policy, program.location);
  const int gpus = program.gpus.value_or(sim.spec().interconnect.gpus);
  std::vector<wl::Program> base;
  base.reserve(static_cast<size_t>(gpus));
  for (int r = 0; r < gpus; ++r) base.push_back(wl::program_for_rank(program, r));
  const PolicyName parsed = registry.parse(policy, program.location);
  const bool sweep = !parsed.is_concrete();
  std::vector<std::string> candidates;
  for (const PolicyName& c : registry.expand(parsed, sim.spec())) candidates.push_back(c.text);
  std::optional<AllGpuTrial> best;
  for (const auto& name : candidates) {
    check_all_gpu_policy(registry, name, program.location);
    AllGpuTrial t = all_gpu_trial(sim, registry, base, name, program.location,
                                  sweep ? std::vector<engine::TraceRecorder*>{} : traces);
    if (!best || t.run.step_us < best->run.step_us) best = std::move(t);
  }
  if (sweep && !traces.empty())
    best = all_gpu_trial(sim, registry, base, best->policy, program.location, traces);
  const auto s = static_cast<size_t>(best->run.straggler);
  ProgramResult r;
  r.program = program.name;
  r.policy = policy;
  if (sweep) r.chosen = best->policy;
  r.step_us = best->run.step_us;
  const ProgramRun& run = best->run.ranks[s];
  for (size_t i = 0; i < run.kernels.size(); ++i)
    r.kernels.push_back(
        KernelResult{run.kernels[i], sim.isolated_us(best->ranks[s], static_cast<int>(i)), std::nullopt});
  for (size_t i = 0; i < base[s].kernels.size(); ++i)
    r.serial_us += sim.isolated_us(base[s], static_cast<int>(i));
  r.ideal_us = sim.ideal_us(base[s]);
  for (const ProgramRun& rank : best->run.ranks) r.rank_step_us.push_back(rank.step_us);
  r.straggler = best->run.straggler;
  r.critical_path = best->run.critical_path;
  return r;
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
    wl::ProgramKernelRecord kr{k.run.name,     wl::to_string(k.run.kind),
                               k.run.stream,   k.run.launch_us,
                               k.run.ready_us, k.run.start_us,
                               k.run.end_us,   k.iso_us};
    if (k.attribution) kr.attribution = to_json(*k.attribution);
    rec.kernels.push_back(std::move(kr));
  }
  if (!r.chosen.empty()) rec.extra["chosen"] = r.chosen;
  if (!r.rank_step_us.empty()) {
    rec.extra["rank_step_us"] = r.rank_step_us;
    rec.extra["straggler"] = r.straggler;
    rec.extra["critical_path"] = r.critical_path;
  }
  return rec;
}

}  // namespace c3sim::models
