#pragma once
// Runs a sweep's points on all cores. The unit of work is a task = (variant, scenario): one
// C3Simulator per task runs every policy, so the isolated baselines of a scenario are computed
// once per task (the simulator's cache) and tasks share nothing. Results land in a pre-sized
// vector at the task's index, so the output is the same whatever the thread count or order.
#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

#include "models/c3_simulator.h"
#include "sim/sweep/sweep_spec.h"

namespace c3sim::sweep {

struct TaskResult {
  std::size_t task = 0;                // variant * scenarios + scenario
  std::vector<models::C3Result> runs;  // one per policy it can run, in the sweep's order
  std::vector<std::size_t> policy;     // parallel to runs: index into spec.policies
};

struct RunOptions {
  int threads = 0;  // 0 = every core TBB sees
  // Called after each finished task with (points done, points total), from worker threads, at
  // most one call at a time. Progress display only: it must not affect results.
  std::function<void(std::size_t, std::size_t)> progress;
};

// Runs the given tasks (indices < spec.tasks()); the result is in the order of `tasks`. A policy a
// task's hardware cannot run on its collective (models::policy_unsupported: DMA offload of a
// reduction on engines that cannot reduce, hybrid_ar on a gather) is skipped for that task.
// Sweeps skip attribution (the counterfactual re-runs triple a point's cost and a sweep's
// table does not report them).
std::vector<TaskResult> run_tasks(const SweepSpec& spec, const std::vector<std::size_t>& tasks,
                                  const RunOptions& options = {});

// Every task index of a sweep; `rank` of `ranks` takes every ranks-th task starting at rank, so
// shares differ by at most one task and heavy neighbours (same scenario, next variant) spread.
std::vector<std::size_t> share_of(const SweepSpec& spec, int rank, int ranks);

}  // namespace c3sim::sweep
