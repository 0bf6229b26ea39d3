#include "sim/sweep/sweep_runner.h"

#include <algorithm>
#include <mutex>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "models/policies/policy.h"
#include "models/run/program_runner.h"

namespace c3sim::sweep {

std::vector<TaskResult> run_tasks(const SweepSpec& spec, const std::vector<std::size_t>& tasks,
                                  const RunOptions& options) {
  std::vector<TaskResult> out(tasks.size());
  const std::size_t total_points = tasks.size() * spec.policies.size();
  std::atomic<std::size_t> done{0};
  std::mutex progress_lock;
  models::SimOptions sim_options;
  sim_options.attribution = false;
  auto body = [&](const tbb::blocked_range<std::size_t>& range) {
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      const std::size_t task = tasks[i];
      TaskResult& r = out[i];
      r.task = task;
      r.setup = spec.task(task);
      r.node_gpus = r.setup.spec.interconnect.gpus;
      if (r.setup.is_program) {
        models::ProgramSimulator sim(r.setup.spec);
        // As `c3sim run` does: a program whose ranks differ (or that asks for it) runs every rank.
        const bool all_gpus = models::runs_all_gpus(r.setup.program, false);
        r.program_runs.reserve(spec.policies.size());
        for (std::size_t p = 0; p < spec.policies.size(); ++p) {
          r.program_runs.push_back(
              all_gpus ? models::run_program_all_gpus(sim, spec.registry, r.setup.program, spec.policies[p])
                       : models::run_program_policy(sim, spec.registry, r.setup.program, spec.policies[p]));
          r.policy.push_back(p);
        }
      } else {
        models::C3Simulator sim(r.setup.spec, sim_options);
        r.runs.reserve(spec.policies.size());
        for (std::size_t p = 0; p < spec.policies.size(); ++p) {
          const models::PolicyName name = spec.registry.parse(spec.policies[p], spec.policy_locations[p]);
          if (!models::policy_unsupported(name, r.setup.scenario.collective.op, r.setup.spec).empty())
            continue;
          r.runs.push_back(sim.run_named(r.setup.scenario, name));
          r.policy.push_back(p);
        }
      }
      r.setup.spec = hw::NodeSpec{};
      const std::size_t now_done = done.fetch_add(spec.policies.size()) + spec.policies.size();
      if (options.progress) {
        std::unique_lock lock(progress_lock, std::try_to_lock);  // never make a worker wait to print
        if (lock.owns_lock() || now_done == total_points) {
          if (!lock.owns_lock()) lock.lock();
          options.progress(now_done, total_points);
        }
      }
    }
  };
  const int threads = options.threads > 0 ? options.threads : tbb::this_task_arena::max_concurrency();
  tbb::task_arena arena(threads);
  arena.execute([&] { tbb::parallel_for(tbb::blocked_range<std::size_t>(0, tasks.size(), 1), body); });
  return out;
}

std::vector<std::size_t> tasks_in_chunk(const SweepSpec& spec, std::size_t chunk, std::size_t chunk_tasks,
                                        int rank, int ranks) {
  std::vector<std::size_t> out;
  const std::size_t lo = chunk * chunk_tasks;
  const std::size_t hi = std::min(spec.tasks(), lo + chunk_tasks);
  const auto r = static_cast<std::size_t>(rank), n = static_cast<std::size_t>(ranks);
  for (std::size_t t = lo + (r + n - lo % n) % n; t < hi; t += n) out.push_back(t);
  return out;
}

std::size_t chunk_count(const SweepSpec& spec, std::size_t chunk_tasks) {
  return (spec.tasks() + chunk_tasks - 1) / chunk_tasks;
}

}  // namespace c3sim::sweep
