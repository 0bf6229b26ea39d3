#include "sim/cli/run_trace.h"

#include <deque>

#include "models/policies/policy.h"
#include "models/policies/transform_registry.h"
#include "sim/engine/chrome_trace.h"

namespace c3sim::cli {

std::string trace_runs(const hw::NodeSpec& spec, models::SimOptions options,
                       const std::vector<wl::RunRequest>& requests) {
  options.attribution = false;  // counterfactual runs are never traced; skip their cost
  models::C3Simulator sim(spec, options);
  std::deque<engine::TraceRecorder> recorders;  // stable addresses for the labeled views
  std::vector<engine::LabeledTrace> runs;
  for (const auto& req : requests) {
    for (const auto& text : req.policies) {
      models::PolicyName name = models::builtin_registry().parse(text, req.scenario.location);
      std::string label = req.scenario.name + " / " + text;
      if (name.is_sweep()) {
        const std::string chosen = sim.run_named(req.scenario, name).chosen;
        label += "=" + chosen;
        name = models::builtin_registry().parse(chosen, req.scenario.location);
      }
      engine::TraceRecorder& rec = recorders.emplace_back();
      (void)sim.run(req.scenario, *models::make_policy(name.steps.front(), spec), &rec);
      runs.push_back(engine::LabeledTrace{label, &rec});
    }
  }
  return engine::to_chrome_trace(runs);
}

}  // namespace c3sim::cli
