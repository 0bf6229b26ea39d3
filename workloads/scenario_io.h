#pragma once
// Scenario YAML: what `c3sim run` and `c3bench run` take. A file holds one scenario (a mapping)
// or a list under `scenarios:`; an entry may instead reference the paper's catalog.
//
//   scenarios:
//     - name: my_case
//       gpus: 8                        # optional; default every GPU of the node
//       gemm: {tag: cb1, m: 8192, n: 8192, k: 8192, dtype: bf16}   # or `gemm: cb1` (Table I)
//       collective: {op: all_gather, bytes: 896 MiB, impl: cu, max_workgroups: 64}
//       policies: [base, sp, "rp:32", dma]
//     - catalog: mb1_896M_ag           # a scenario name, a Table II tag (both ops) or `all`
//       policies: [base, sp]           # optional override
//
// Optional per scenario: tag, source, taxonomy (G-long | C-long | GC-equal). Strict: unknown or
// missing keys, non-positive or non-integer sizes, bytes not divisible by gpus x dtype bytes and
// duplicate names are InputErrors naming file, line and dotted key ("scenarios[2].collective.bytes").
// Policy strings are kept verbatim with their locations; models/ parses them against the hardware.
#include <string>
#include <vector>

#include "sim/base/strict_yaml.h"
#include "workloads/scenario.h"

namespace c3sim::wl {

std::vector<Scenario> load_scenarios_file(const std::string& path);
std::vector<Scenario> load_scenarios_string(const std::string& text, const std::string& label);
std::vector<Scenario> scenarios_from_yaml(const YamlDocument& doc);

// Emits the `scenarios:` form; load_scenarios_string(to_yaml(x)) reproduces x (all fields except
// the source locations). Sizes are written with binary units where exact ("896 MiB", "1.625 GiB").
std::string to_yaml(const std::vector<Scenario>& scenarios);

// The checks that need the node: gpus <= node_gpus, and bytes divisible by the GPUs it runs on
// (gpus, or node_gpus when unset) x the dtype's bytes. Throws InputError at the scenario's
// location, key "<name>.gpus" or "<name>.collective.bytes".
void check_scenario_fits(const Scenario& scenario, int node_gpus);

}  // namespace c3sim::wl
