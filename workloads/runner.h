#pragma once
// One interface, two implementations: the simulator (models/run/simulated_runner.h) and the real
// hardware (hardware/hip, c3bench). Scenario-driving code (sweeps, validation, tests) is written
// against Runner and runs either way; the simulated one needs no GPU.
#include <string>
#include <vector>

#include "workloads/measurement.h"
#include "workloads/scenario.h"

namespace c3sim::wl {

struct RunRequest {
  Scenario scenario;
  std::vector<std::string> policies;       // "base", "sp", "prio", "rp:32", "dma", ...
  std::vector<int> gemm_cu_limits;         // extra iso_gemm records under these CU/SM limits
  std::vector<int> coll_workgroup_limits;  // extra iso_coll records under these WG/CTA limits
  int warmups = 3;
  int trials = 9;
};

class Runner {
public:
  virtual ~Runner() = default;
  Runner() = default;
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  [[nodiscard]] virtual EnvRecord environment() = 0;
  // Isolated baselines (iso_gemm, iso_coll, also under the requested limits) and one c3 record
  // per policy, in that order.
  [[nodiscard]] virtual std::vector<Record> run(const RunRequest& request) = 0;
};

}  // namespace c3sim::wl
