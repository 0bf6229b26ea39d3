#pragma once
// Runs a program under a policy name from the transformation registry, concrete ("sp",
// "ficco:4") or a sweep ("rp_best": every candidate simulated, the shortest step wins, the first
// on a tie), and writes the result as a measurement record.
#include <string>

#include "models/policies/transform_registry.h"
#include "models/program/program_simulator.h"
#include "workloads/measurement.h"

namespace c3sim::models {

// `trace`, when given, records the run of the concrete policy (the winner of a sweep);
// `attribution` splits each kernel's slowdown by cause in that run (a sweep attributes its winner
// only).
ProgramResult run_program_policy(ProgramSimulator& sim, const TransformRegistry& registry,
                                 const wl::Program& program, const std::string& policy,
                                 engine::TraceRecorder* trace = nullptr, bool attribution = false);

// All-GPU mode: every rank of `program` (wl::program_for_rank) under the policy (a concrete one,
// a composition or a `_best` sweep judged by the all-GPU step), simulated together
// (simulate_all_gpus). `traces`: empty, or one recorder per rank for the chosen run. Deciding
// policies (heuristics, per_region) decide on one GPU's simulation: check_all_gpu_policy refuses
// them.
ProgramResult run_program_all_gpus(ProgramSimulator& sim, const TransformRegistry& registry,
                                   const wl::Program& program, const std::string& policy,
                                   const std::vector<engine::TraceRecorder*>& traces = {});

// InputError (key "policies", at `where`) when `policy` or a part of it decides by simulation.
void check_all_gpu_policy(const TransformRegistry& registry, const std::string& policy,
                          const SourceLocation& where);

// Whether a program runs every rank: asked for (`all_gpus`, or `forced` by --all-gpus) or
// asymmetric.
bool runs_all_gpus(const wl::Program& program, bool forced);

wl::ProgramRecord to_record(const ProgramResult& result, int gpus);

}  // namespace c3sim::models
