#pragma once
// Which policies a run uses: the names a caller asked for (the CLI's --policy, Python's
// `policies=`) or else the file's, with `all` and the `_best` sweeps checked against the hardware
// before anything runs. `c3sim run` and the Python module share these, so both accept and refuse
// the same names with the same messages.
#include <string>
#include <vector>

#include "hardware/node_spec.h"
#include "models/policies/transform_registry.h"
#include "sim/base/errors.h"
#include "workloads/program.h"
#include "workloads/scenario.h"

namespace c3sim::models {

// Policies requested by a caller, all from one place (`where`: "<command line>" for the CLI).
struct PolicyRequest {
  std::vector<std::string> names;  // empty = the scenario's or program's own
  SourceLocation where;
};

// A scenario's policies: `requested` overrides the scenario's; "all" expands to the standard set
// the hardware can run for its collective; none at all = that standard set. Every name is checked
// (CU masks, DMA reductions) and throws InputError naming the file and line it came from.
std::vector<std::string> scenario_policies(const wl::Scenario& scenario, const PolicyRequest& requested,
                                           const hw::NodeSpec& spec);

// A program's policies: `requested` overrides the program's; none = `all`. "all" expands to the
// registry's standard names that can transform this program (TransformRegistry::cannot_apply);
// `_best` names stay (run_program_policy sweeps them). A requested policy that cannot apply is an
// InputError at the request (the program file's policies line, or the command line) naming the
// policy and the program.
std::vector<std::string> program_policies(const wl::Program& program, const PolicyRequest& requested,
                                          const TransformRegistry& registry, const hw::NodeSpec& spec);

}  // namespace c3sim::models
