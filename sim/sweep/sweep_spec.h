#pragma once
// A sweep file: which hardware/workload fields to vary, over which scenarios or programs and
// policies.
//
//   hardware: mi300x                  # preset or file (relative to the sweep file)
//   scenarios: [all]                  # catalog names, Table II tags, or `all`
//   scenario_file: more.yaml          # optional, scenario YAML (relative to the sweep file)
//   programs:                         # optional, programs (docs/programs.md)
//     - {generate: fsdp-layer, model: llama-70b}   # `c3sim generate`'s kinds, --model, --tp
//     - {generate: dlrm, batch: 4096}              # dlrm: its options (workloads/dlrm_generator.h)
//     - {file: programs/chain.yaml}                # every program of a program file
//   policies: [base, prio, dma]       # any c3sim run policy, incl. rp_best
//   grid:                             # cartesian product of every list
//     spec.dma.engines: [8, 16]
//     model.dma.engine_bandwidth: [50 GB/s, 100 GB/s]
//   variants:                         # listed points, each crossed with the grid
//     - {name: slow_launch, model.dma.launch_latency: 20 us}
//
// Keys are hardware fields (hw::field_names()) or workload fields: workload.gpus,
// workload.collective.bytes ("896 MiB"), workload.collective.bytes_scale (a factor),
// workload.collective.max_workgroups. Points run variant-major: variant x workload x policy, the
// workloads being the scenarios, then the programs. Programs take the sweep's policies (their own
// `policies:` are not read): names from the transformation registry (models/program/
// transform_registry.h: base, sp, dma, ficco:4, ficco_best, per_region, '+' compositions; `all`
// when the sweep has no scenarios); of the workload fields only workload.gpus applies to them, and
// a sweep with programs refuses the collective ones (a program has many collectives).
// Variants are not stored: task(t) builds the hardware and scenario of one task when it runs, so a
// sweep's memory does not grow with its point count. Checked at load, before any work: the file and
// every variant, without building every variant: each grid value alone, every pair of values of two
// hardware axes, the full product of the axes that the CU-budget rules relate in threes, and the full
// product of the workload axes with the GPU-count axis (sweep_spec.cpp, VariantChecker, lists the
// rules and why this covers them). A sweep whose check plan is too large (over 2 x 10^5 checks)
// checks the first kEagerVariants variants in full instead and says so in `warnings`; a later
// variant whose values clash then fails when its task is built. Errors are InputErrors naming the
// sweep file, line and key (the CLI's output is staged, so a late error still leaves no output file).
// A policy a variant cannot run on a scenario's collective (DMA offload of a reduction on engines
// that cannot reduce, hybrid_ar on a gather) is skipped for that pair. A program runs every policy:
// `dma` leaves a reduction on the CUs when the engines cannot reduce (plan_transform.h).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "hardware/node_spec.h"
#include "models/policies/transform_registry.h"
#include "workloads/program.h"
#include "workloads/scenario.h"

namespace c3sim::sweep {

struct Setting {
  std::string key;    // "spec.dma.engines", "workload.gpus"
  std::string value;  // as written ("100 GB/s")
};

// A setting and where the file wrote it.
struct LocatedSetting {
  Setting setting;
  SourceLocation where;
  std::string qualified;  // "grid.spec.dma.engines[2]"
};

// One task: a variant's hardware and one workload (a scenario or a program) with the variant's
// workload settings applied.
struct Task {
  std::size_t index = 0;          // variant * workloads + workload
  std::size_t variant = 0;        // index of the variant
  std::string variant_name;       // given, or "v<index>"
  std::vector<Setting> settings;  // in key order of first appearance in the file
  hw::NodeSpec spec;              // the base hardware with the hardware settings applied
  bool is_program = false;        // which of the two below the task runs
  wl::Scenario scenario;
  wl::Program program;
};

// Sweeps larger than this many points are refused: the point index must stay exact in the CSV and
// a run of this many points would take years.
inline constexpr std::size_t kMaxSweepPoints = std::size_t{1} << 40;
inline constexpr std::size_t kEagerVariants = 4096;

struct SweepSpec {
  std::string hardware;  // as named in the file
  std::vector<std::string> policies;
  std::vector<SourceLocation> policy_locations;
  std::vector<std::string> scenario_names;
  std::vector<std::string> program_names;
  std::vector<std::string> varied_keys;  // union of settings' keys, first-appearance order
  std::vector<std::string> input_files;  // the files the sweep read (for the CLI's output checks)

  hw::NodeSpec base;
  std::vector<wl::Scenario> base_scenarios;
  std::vector<wl::Program> base_programs;
  models::TransformRegistry registry;  // the programs' policies (models::builtin_transforms())
  std::vector<std::pair<std::string, std::vector<LocatedSetting>>> listed;  // one empty entry if none
  std::vector<std::vector<LocatedSetting>> axes;                            // the grid, file order
  SourceLocation variants_where;
  std::size_t variant_count = 0;

  // Scenarios then programs: a task's workload is task % workloads().
  [[nodiscard]] std::size_t workloads() const { return scenario_names.size() + program_names.size(); }
  [[nodiscard]] std::size_t tasks() const { return variant_count * workloads(); }
  [[nodiscard]] std::size_t points() const { return tasks() * policies.size(); }
  // Builds and checks task `t` (< tasks()); throws InputError naming the sweep file's line.
  [[nodiscard]] Task task(std::size_t t) const;
  [[nodiscard]] std::string variant_name(std::size_t variant) const;
  std::vector<std::string> warnings;  // for the user (stderr), e.g. a sweep too large to check fully

  // The pieces task() is built from (the load-time check builds the same ones):
  [[nodiscard]] std::size_t grid_size() const;  // product of the axes' sizes
  // Listed variant `listed_index`'s settings, then grid axis a at value odometer[a].
  [[nodiscard]] std::vector<const LocatedSetting*> settings_of(
      std::size_t listed_index, const std::vector<std::size_t>& odometer) const;
  // The base hardware with the settings' hardware fields applied (each value checked alone).
  [[nodiscard]] hw::NodeSpec hardware_of(const std::vector<const LocatedSetting*>& settings) const;
  // Base scenario `scenario` with the settings' workload fields applied.
  [[nodiscard]] wl::Scenario scenario_of(const std::vector<const LocatedSetting*>& settings,
                                         std::size_t scenario, int node_gpus) const;
  // Base program `program` with the settings' workload fields applied (workload.gpus).
  [[nodiscard]] wl::Program program_of(const std::vector<const LocatedSetting*>& settings,
                                       std::size_t program) const;
  // Each policy can be built on `spec`: as a pair policy when the sweep has scenarios, as a
  // registry name when it has programs.
  void check_policies(const hw::NodeSpec& spec) const;
  // `program` fits the node of `spec` (check_program_fits), and each policy's transformations
  // (every candidate of a `_best` name; not the deciding ones, which need a simulation) apply to it.
  void check_program(const wl::Program& program, const hw::NodeSpec& spec, bool transforms) const;
};

// Loads the sweep's base hardware from a preset name or a resolved path; empty = hw::load_hardware.
// (The fuzz target passes one that parses each preset once: the preset parse dominated its cost and
// has a fuzz target of its own.)
using HardwareLoader = std::function<hw::NodeSpec(const std::string&)>;

SweepSpec load_sweep_file(const std::string& path);
// `base_dir` resolves relative hardware / scenario_file paths.
SweepSpec load_sweep_string(const std::string& text, const std::string& label,
                            const std::string& base_dir = ".", const HardwareLoader& load_hardware = {});

}  // namespace c3sim::sweep
