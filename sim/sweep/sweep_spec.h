#pragma once
// A sweep file: which hardware/workload fields to vary, over which scenarios and policies.
//
//   hardware: mi300x                  # preset or file (relative to the sweep file)
//   scenarios: [all]                  # catalog names, Table II tags, or `all`
//   scenario_file: more.yaml          # optional, scenario YAML (relative to the sweep file)
//   policies: [base, prio, dma]       # any c3sim run policy, incl. rp_best
//   grid:                             # cartesian product of every list
//     spec.dma.engines: [8, 16]
//     model.dma.engine_bandwidth: [50 GB/s, 100 GB/s]
//   variants:                         # listed points, each crossed with the grid
//     - {name: slow_launch, model.dma.launch_latency: 20 us}
//
// Keys are hardware fields (hw::field_names()) or workload fields: workload.gpus,
// workload.collective.bytes ("896 MiB"), workload.collective.bytes_scale (a factor),
// workload.collective.max_workgroups. Points run variant-major: variant x scenario x policy.
// Everything is checked at load (each value set on the hardware, cross-field validation of each
// variant, every policy against each variant's CU masks); errors are InputErrors naming the
// sweep file, line and key. A policy a variant cannot run on a scenario's collective (DMA offload
// of a reduction on engines that cannot reduce, hybrid_ar on a gather) is skipped for that pair.
#include <string>
#include <utility>
#include <vector>

#include "hardware/node_spec.h"
#include "workloads/scenario.h"

namespace c3sim::sweep {

struct Setting {
  std::string key;    // "spec.dma.engines", "workload.gpus"
  std::string value;  // as written ("100 GB/s")
};

struct Variant {
  std::string name;                     // given, or "v<index>"
  std::vector<Setting> settings;        // in key order of first appearance in the file
  hw::NodeSpec spec;                    // the base hardware with the hardware settings applied
  std::vector<wl::Scenario> scenarios;  // the sweep's scenarios with the workload settings applied
};

struct SweepSpec {
  std::string hardware;  // as named in the file
  std::vector<std::string> policies;
  std::vector<std::string> scenario_names;
  std::vector<std::string> varied_keys;  // union of settings' keys, first-appearance order
  std::vector<Variant> variants;

  [[nodiscard]] std::size_t tasks() const { return variants.size() * scenario_names.size(); }
  [[nodiscard]] std::size_t points() const { return tasks() * policies.size(); }
};

SweepSpec load_sweep_file(const std::string& path);
// `base_dir` resolves relative hardware / scenario_file paths.
SweepSpec load_sweep_string(const std::string& text, const std::string& label,
                            const std::string& base_dir = ".");

}  // namespace c3sim::sweep
