#pragma once
// Runs a program under a policy name from the transformation registry, concrete ("sp",
// "ficco:4") or a sweep ("rp_best": every candidate simulated, the shortest step wins, the first
// on a tie), and writes the result as a measurement record.
#include <string>

#include "models/program/program_simulator.h"
#include "models/program/transform_registry.h"
#include "workloads/measurement.h"

namespace c3sim::models {

// `trace`, when given, records the run of the concrete policy (the winner of a sweep).
ProgramResult run_program_policy(ProgramSimulator& sim, const TransformRegistry& registry,
                                 const wl::Program& program, const std::string& policy,
                                 engine::TraceRecorder* trace = nullptr);

wl::ProgramRecord to_record(const ProgramResult& result, int gpus);

}  // namespace c3sim::models
