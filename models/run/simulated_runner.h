#pragma once
// The simulator behind the Runner interface: the same scenario-driving code (c3sim run, sweeps,
// validation, users' tests) runs on a CPU with this, or on GPUs with c3bench's hardware runner.
#include "hardware/node_spec.h"
#include "models/run/c3_simulator.h"
#include "workloads/runner.h"

namespace c3sim::models {

class SimulatedRunner final : public wl::Runner {
public:
  explicit SimulatedRunner(hw::NodeSpec spec, SimOptions options = {});

  [[nodiscard]] wl::EnvRecord environment() override;
  [[nodiscard]] std::vector<wl::Record> run(const wl::RunRequest& request) override;

  [[nodiscard]] C3Simulator& simulator() { return sim_; }

private:
  C3Simulator sim_;
};

// The c3 measurement record for one simulated run, attribution included when present.
wl::C3Record to_record(const wl::Scenario& scenario, const C3Result& r, int gpus);

}  // namespace c3sim::models
