#include "sim/sweep/sweep_runner.h"

#include <mutex>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "models/policy.h"

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
      const Variant& v = spec.variants[task / spec.scenario_names.size()];
      const wl::Scenario& scenario = v.scenarios[task % spec.scenario_names.size()];
      models::C3Simulator sim(v.spec, sim_options);
      TaskResult& r = out[i];
      r.task = task;
      r.runs.reserve(spec.policies.size());
      for (std::size_t p = 0; p < spec.policies.size(); ++p) {
        if (!models::policy_unsupported(spec.policies[p], scenario.collective.op, v.spec).empty()) continue;
        r.runs.push_back(sim.run_named(scenario, spec.policies[p]));
        r.policy.push_back(p);
      }
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

std::vector<std::size_t> share_of(const SweepSpec& spec, int rank, int ranks) {
  std::vector<std::size_t> out;
  for (std::size_t t = static_cast<std::size_t>(rank); t < spec.tasks();
       t += static_cast<std::size_t>(ranks)) {
    out.push_back(t);
  }
  return out;
}

}  // namespace c3sim::sweep
