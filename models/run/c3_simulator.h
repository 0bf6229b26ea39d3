#pragma once
// The GEMM + collective pair as what it is: a two-kernel program. Every run here builds that
// program (wl::program_from_scenario, the policy's launch plan applied by apply_launch_plan) or a
// one-kernel program for the isolated references, and hands it to the one simulator,
// ProgramSimulator; attribution is the program's (models/program/attribution.h). What this class
// adds is the pair's side of the policy vocabulary: the launch plans and their `*_best` sweeps, the serial
// baseline of the paper (GEMM on every CU, the CU collective), and memos, since sweeps and heuristics ask for
// the same runs again.
#include <map>
#include <optional>
#include <string>

#include "hardware/node_spec.h"
#include "models/node/cache_model.h"
#include "models/policies/policy.h"
#include "models/program/counterfactuals.h"
#include "models/program/program_simulator.h"
#include "sim/engine/trace_recorder.h"
#include "workloads/scenario.h"

namespace c3sim::models {

struct SimOptions {
  int max_cohort_size = 1 << 30;  // 1 = per-workgroup fidelity mode
  bool attribution = true;        // run the counterfactuals for c3 records
};

struct IsoGemmResult {
  double time_us = 0;
  int cus = 0;
  std::int64_t workgroups = 0;
  double l2_hit = 0;  // at full residency (first wave)
  double llc_hit = 0;
  double llc_bytes = 0;  // whole kernel
  double hbm_bytes = 0;
  [[nodiscard]] double llc_bw_gbps() const { return time_us > 0 ? llc_bytes / time_us * 1e-3 : 0; }
};

struct IsoCollResult {
  double time_us = 0;
  int workgroups = 0;  // CU implementation
  int engines = 0;     // DMA implementation
  double bytes_sent = 0;
  double llc_bytes = 0;
  [[nodiscard]] double llc_bw_gbps() const { return time_us > 0 ? llc_bytes / time_us * 1e-3 : 0; }
};

struct C3Result {
  std::string scenario;
  std::string policy;
  wl::CollectiveImpl impl = wl::CollectiveImpl::cu;
  double total_us = 0;
  double gemm_us = 0;  // from its launch to its end
  double coll_us = 0;
  double iso_gemm_us = 0;  // the serial baseline: GEMM on all CUs, CU collective by default
  double iso_coll_us = 0;
  std::optional<Attribution> gemm_attribution;
  std::optional<Attribution> coll_attribution;
  std::string chosen;  // for *_best sweeps: the policy that won

  [[nodiscard]] double serial_us() const { return iso_gemm_us + iso_coll_us; }
  [[nodiscard]] double speedup() const { return serial_us() / total_us; }
  [[nodiscard]] double ideal_speedup() const { return serial_us() / std::max(iso_gemm_us, iso_coll_us); }
  // (realized - 1) / (ideal - 1), as the paper reports it, in percent.
  [[nodiscard]] double percent_of_ideal() const {
    return 100.0 * (speedup() - 1.0) / (ideal_speedup() - 1.0);
  }
};

class C3Simulator {
public:
  explicit C3Simulator(hw::NodeSpec spec, SimOptions options = {});

  [[nodiscard]] const hw::NodeSpec& spec() const { return spec_; }

  // `cus`: CUs left to the GEMM (a CU mask; multiples of the mask granularity), nullopt = all.
  // `beside_partition`: those CUs are what another stream's partition left (as under rp:<n>)
  // rather than a group of their own (as in a CU-count sweep).
  IsoGemmResult iso_gemm(const wl::Gemm& gemm, std::optional<int> cus = std::nullopt,
                         bool beside_partition = false);
  // `workgroups` caps a CU collective's channels; `partition_cus` runs it alone on a partition of
  // that many CUs (a green context, as under rp:<n>; a multiple of the mask granularity), nullopt =
  // unmasked.
  IsoCollResult iso_coll(const wl::Collective& coll, int gpus, std::optional<int> workgroups = std::nullopt,
                         std::optional<int> partition_cus = std::nullopt);

  // One policy; `trace` records the run when given.
  C3Result run(const wl::Scenario& scenario, const Policy& policy, engine::TraceRecorder* trace = nullptr);
  // The same run without the attribution counterfactuals (times only): what sweeps and heuristics
  // compare.
  C3Result run_timing(const wl::Scenario& scenario, const Policy& policy);
  // A parsed pair policy (TransformRegistry::parse): one launch plan, or a family's `_best` sweep
  // ("rp_best", "sp_rp_best", "dma_rp_best"): every candidate timed, the fastest run again with
  // attribution, `chosen` naming it.
  C3Result run_named(const wl::Scenario& scenario, const PolicyName& name);
  // The same for a name, parsed by the built-in registry.
  C3Result run_named(const wl::Scenario& scenario, const std::string& name);

  [[nodiscard]] int gpus_of(const wl::Scenario& scenario) const;

private:
  [[nodiscard]] LaunchPlan plan_of(const wl::Scenario& scenario, const Policy& policy) const;
  // Memoized over (scenario contents, launch plan); see simulate_plan.
  C3Result run_plan(const wl::Scenario& scenario, const std::string& name, const LaunchPlan& plan,
                    engine::TraceRecorder* trace, bool attribution);
  C3Result simulate_plan(const wl::Scenario& scenario, const std::string& name, const LaunchPlan& plan,
                         engine::TraceRecorder* trace, bool attribution);
  // A one-kernel program's only kernel, launched at t = 0 on a stream of its own.
  KernelRun run_alone(const wl::ProgramKernel& kernel, const wl::ProgramStream& stream, int gpus);

  hw::NodeSpec spec_;
  SimOptions options_;
  CacheModel cache_model_;  // the first-wave hit-rate probe's; its memo of panel sharing persists
  ProgramSimulator programs_;
  std::map<std::string, IsoGemmResult> gemm_cache_;
  std::map<std::string, IsoCollResult> coll_cache_;
  std::map<std::string, C3Result> c3_cache_;
};

}  // namespace c3sim::models
