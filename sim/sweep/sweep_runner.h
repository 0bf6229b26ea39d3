#pragma once
// Runs a sweep's points on all cores. The unit of work is a task = (variant, workload): one
// C3Simulator (scenario) or ProgramSimulator (program) per task runs every policy, so the isolated
// baselines of a workload are computed once per task (the simulators' caches) and tasks share
// nothing. Results land in a pre-sized
// vector at the task's index, so the output is the same whatever the thread count or order.
// Callers stream a sweep in chunks (tasks_in_chunk): memory holds one chunk, not the sweep.
#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

#include "models/program/program_simulator.h"
#include "models/run/c3_simulator.h"
#include "sim/sweep/sweep_spec.h"

namespace c3sim::sweep {

struct TaskResult {
  std::size_t task = 0;                // variant * workloads + workload
  Task setup;                          // what ran (its hardware spec is cleared after the run)
  int node_gpus = 0;                   // the variant's node GPU count
  std::vector<models::C3Result> runs;  // a scenario's: one per policy it can run, in the sweep's order
  std::vector<models::ProgramResult> program_runs;  // a program's: one per policy, in the sweep's order
  std::vector<std::size_t> policy;  // parallel to runs or program_runs: index into spec.policies
};

struct RunOptions {
  int threads = 0;  // 0 = every core TBB sees
  // Called after each finished task with (points done, points total), from worker threads, at
  // most one call at a time. Progress display only: it must not affect results.
  std::function<void(std::size_t, std::size_t)> progress;
};

// Runs the given tasks (indices < spec.tasks()); the result is in the order of `tasks`. A policy a
// task's hardware cannot run on its collective (models::policy_unsupported: DMA offload of a
// reduction on engines that cannot reduce, hybrid_ar on a gather) is skipped for that task; a
// program runs every policy as `c3sim run` does: on one representative GPU
// (models::run_program_policy), or every rank when its ranks differ or it says `all_gpus`
// (models::run_program_all_gpus; SweepSpec refuses the deciding policies that mode cannot run).
// Sweeps skip attribution (the counterfactual re-runs triple a point's cost and a sweep's
// table does not report them).
std::vector<TaskResult> run_tasks(const SweepSpec& spec, const std::vector<std::size_t>& tasks,
                                  const RunOptions& options = {});

// The tasks of chunk `chunk` (tasks [chunk * chunk_tasks, (chunk + 1) * chunk_tasks)) that rank
// `rank` of `ranks` runs: every ranks-th task, so shares differ by at most one task and heavy
// neighbours (same scenario, next variant) spread. Every rank walks the same chunks, so rank 0 can
// merge each chunk in task order as it comes.
std::vector<std::size_t> tasks_in_chunk(const SweepSpec& spec, std::size_t chunk, std::size_t chunk_tasks,
                                        int rank, int ranks);
std::size_t chunk_count(const SweepSpec& spec, std::size_t chunk_tasks);

}  // namespace c3sim::sweep
