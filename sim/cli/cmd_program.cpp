// The program half of `c3sim run` (sim/cli/program_run.h).
#include <algorithm>
#include <cmath>
#include <deque>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/policies/policy_selection.h"
#include "models/run/program_runner.h"
#include "models/run/simulated_runner.h"
#include "models/run/traced_hardware.h"
#include "sim/cli/command_inputs.h"
#include "sim/cli/output.h"
#include "sim/cli/program_run.h"
#include "sim/engine/chrome_trace.h"
#include "workloads/program_io.h"

namespace c3sim::cli {

namespace {

std::string policy_label(const wl::ProgramRecord& r) {
  if (!r.extra.contains("chosen")) return r.policy;
  return fmt::format("{}={}", r.policy, r.extra["chosen"].get<std::string>());
}

// An imported trace's own step time (Program::measured_step_us), carried in the record's extra.
std::optional<double> measured_of(const wl::ProgramRecord& r) {
  if (!r.extra.contains("measured_step_us")) return std::nullopt;
  return r.extra["measured_step_us"].get<double>();
}

// A kernel's slowdown causes (its record's attribution) as table cells: dispatch delay, CUs
// unavailable, cache, memory latency, bandwidth (summed over resources) and the resource that
// took the most of it.
// One decimal, with a rounding residue of either sign shown as 0.0 rather than -0.0.
std::string us_cell(double us) { return fmt::format("{:.1f}", std::fabs(us) < 0.05 ? 0.0 : us); }

std::vector<std::string> cause_cells(const wl::ProgramKernelRecord& k) {
  if (k.attribution.empty()) return {"-", "-", "-", "-", "-", "-"};
  const auto num = [&](const char* key) {
    return k.attribution.contains(key) ? k.attribution[key].get<double>() : 0.0;
  };
  double bandwidth = 0, top_us = 0;
  std::string top = "-";
  if (k.attribution.contains("bandwidth_us")) {
    for (const auto& [group, v] : k.attribution["bandwidth_us"].items()) {
      const double us = v.get<double>();
      bandwidth += us;
      if (us > top_us) {
        top_us = us;
        top = group;
      }
    }
  }
  return {us_cell(num("dispatch_delay_us")),
          us_cell(num("cus_unavailable_us")),
          us_cell(num("cache_us")),
          us_cell(num("memory_latency_us")),
          us_cell(bandwidth),
          top};
}

std::string render(const std::vector<wl::ProgramRecord>& records, bool csv) {
  const bool any_measured =
      std::any_of(records.begin(), records.end(), [](const auto& r) { return measured_of(r).has_value(); });
  std::vector<std::string> columns{"program", "policy", "step us", "serial us", "ideal us", "overlap %"};
  if (any_measured) columns.insert(columns.end(), {"measured us", "step vs measured %"});
  TextTable summary(columns);
  const bool any_causes = std::any_of(records.begin(), records.end(), [](const auto& r) {
    return std::any_of(r.kernels.begin(), r.kernels.end(),
                       [](const auto& k) { return !k.attribution.empty(); });
  });
  std::vector<std::string> kernel_columns{"program",  "policy",   "kernel", "kind",   "stream",
                                          "ready us", "start us", "end us", "iso us", "slowdown"};
  if (any_causes)
    kernel_columns.insert(kernel_columns.end(), {"dispatch us", "CUs us", "cache us", "latency us",
                                                 "bandwidth us", "top resource"});
  TextTable kernels(kernel_columns);
  for (const auto& r : records) {
    std::vector<std::string> row{r.program,
                                 policy_label(r),
                                 fmt::format("{:.1f}", r.step_us),
                                 fmt::format("{:.1f}", *r.serial_us),
                                 fmt::format("{:.1f}", *r.ideal_us),
                                 r.overlap_percent ? fmt::format("{:.0f}", *r.overlap_percent) : "-"};
    if (any_measured) {
      const std::optional<double> m = measured_of(r);
      row.push_back(m ? fmt::format("{:.1f}", *m) : "-");
      row.push_back(m && *m > 0 ? fmt::format("{:+.1f}", 100.0 * (r.step_us - *m) / *m) : "-");
    }
    summary.add(row);
    for (const auto& k : r.kernels) {
      const double iso = k.iso_us.value_or(0);
      std::vector<std::string> cells{r.program,
                                     policy_label(r),
                                     k.name,
                                     k.kind,
                                     k.stream,
                                     fmt::format("{:.1f}", k.ready_us),
                                     fmt::format("{:.1f}", k.start_us),
                                     fmt::format("{:.1f}", k.end_us),
                                     fmt::format("{:.1f}", iso),
                                     fmt::format("{:.3f}", iso > 0 ? (k.end_us - k.ready_us) / iso : 0.0)};
      if (any_causes) {
        const std::vector<std::string> causes = cause_cells(k);
        cells.insert(cells.end(), causes.begin(), causes.end());
      }
      kernels.add(cells);
    }
  }
  TextTable ranks({"program", "policy", "straggler", "rank step us", "straggler critical path"});
  bool any_ranks = false;
  for (const auto& r : records) {
    if (!r.extra.contains("rank_step_us")) continue;
    any_ranks = true;
    std::string steps, path;
    for (const auto& v : r.extra["rank_step_us"])
      steps += fmt::format("{}{:.1f}", steps.empty() ? "" : " ", v.get<double>());
    for (const auto& v : r.extra["critical_path"])
      path += fmt::format("{}{}", path.empty() ? "" : " > ", v.get<std::string>());
    ranks.add({r.program, policy_label(r), fmt::format("r{}", r.extra["straggler"].get<int>()), steps, path});
  }
  const std::string rank_part = any_ranks ? "\n" + (csv ? ranks.csv() : ranks.render()) : std::string();
  if (csv) return summary.csv() + "\n" + kernels.csv() + rank_part;
  return summary.render() + "\n" + kernels.render() + rank_part;
}

// Rank `rank` of `p` alone: its own program, run on the representative GPU.
wl::Program one_rank(const wl::Program& p, int rank, int node_gpus) {
  const int gpus = p.gpus.value_or(node_gpus);
  if (rank >= gpus) {
    throw InputError(
        SourceLocation{"<command line>", 0, 0}, "--rank",
        fmt::format("rank {} is beyond program '{}''s {} GPUs (ranks 0..{})", rank, p.name, gpus, gpus - 1));
  }
  wl::Program out = wl::program_for_rank(p, rank);
  out.all_gpus = false;
  out.start_us = 0;
  return out;
}

}  // namespace

namespace {

const wl::ProgramDevice* traced_device(const std::vector<wl::Program>& programs) {
  for (const auto& p : programs) {
    if (p.device) return &*p.device;
  }
  return nullptr;
}

// The hardware to run on: --hardware when given; else the preset of the GPU the programs were
// traced on, said on stderr; else the default.
std::string hardware_for_programs(const ProgramRunArgs& a, const std::vector<wl::Program>& programs) {
  const wl::ProgramDevice* device = traced_device(programs);
  if (a.hardware_given || device == nullptr) return a.hardware;
  int gpus = 2;
  for (const auto& p : programs) gpus = std::max(gpus, p.gpus.value_or(2));
  if (const std::optional<std::string> preset = models::preset_for_device(*device, gpus)) {
    std::cerr << fmt::format("c3sim: {} was traced on {}: using the {} preset (no --hardware given)\n",
                             a.file, models::describe_device(*device), *preset);
    return *preset;
  }
  std::cerr << fmt::format(
      "warning: {} was traced on {}, which no built-in preset is: using {}; give --hardware with a file "
      "for that GPU\n",
      a.file, models::describe_device(*device), a.hardware);
  return a.hardware;
}

void warn_if_not_traced_hardware(const ProgramRunArgs& a, const std::vector<wl::Program>& programs,
                                 const hw::NodeSpec& spec) {
  const wl::ProgramDevice* device = traced_device(programs);
  if (device == nullptr || models::device_matches(*device, spec)) return;
  std::cerr << fmt::format("warning: {} was traced on {}, but the hardware is {}\n", a.file,
                           models::describe_device(*device), models::describe_hardware(spec));
}

}  // namespace

bool is_program_file(const std::string& path) { return wl::is_program_document(load_yaml_file(path)); }

void run_program_file(const ProgramRunArgs& a) {
  const Format f = parse_format(a.format, {Format::jsonl, Format::table, Format::csv});
  std::vector<OutputTarget> outputs{{a.output, "-o"}};
  if (!a.trace.empty()) outputs.push_back({a.trace, "--trace"});
  std::vector<wl::Program> programs = wl::load_programs_file(a.file);
  const std::string hardware = hardware_for_programs(a, programs);
  const std::vector<std::string> inputs = inputs_with_hardware({a.file}, hardware);
  check_outputs(outputs, inputs);
  const hw::NodeSpec spec = hw::load_hardware(hardware);
  warn_if_not_traced_hardware(a, programs, spec);
  const models::TransformRegistry registry = models::builtin_transforms();
  // Validate everything before simulating anything.
  std::vector<std::vector<std::string>> policies;
  for (auto& p : programs) {
    wl::check_program_fits(p, spec.interconnect.gpus, spec.compute.total_cus());
    if (a.nodes > 0) p.nodes = a.nodes;
    models::check_program_nodes(p, spec);
    if (a.rank >= 0) p = one_rank(p, a.rank, spec.interconnect.gpus);
    policies.push_back(models::program_policies(p, {a.policies, {"<command line>", 0, 0}}, registry, spec));
    if (models::runs_all_gpus(p, a.all_gpus)) {
      const SourceLocation where = a.policies.empty() ? p.location : SourceLocation{"<command line>", 0, 0};
      for (const auto& name : policies.back()) models::check_all_gpu_policy(registry, name, where);
    }
  }
  models::ProgramSimulator sim(spec, a.per_workgroup ? 1 : 1 << 30);
  std::deque<engine::TraceRecorder> recorders;  // stable addresses for the labeled views
  std::vector<engine::LabeledTrace> traced;
  std::vector<wl::ProgramRecord> records;
  for (size_t i = 0; i < programs.size(); ++i) {
    const int gpus = programs[i].gpus.value_or(spec.interconnect.gpus);
    const bool all_gpus = models::runs_all_gpus(programs[i], a.all_gpus);
    for (const auto& name : policies[i]) {
      // One recorder, or one per rank in all-GPU mode (a trace process each).
      std::vector<engine::TraceRecorder*> recs;
      for (int r = 0; !a.trace.empty() && r < (all_gpus ? gpus : 1); ++r)
        recs.push_back(&recorders.emplace_back());
      const models::ProgramResult r =
          all_gpus ? models::run_program_all_gpus(sim, registry, programs[i], name, recs)
                   : models::run_program_policy(sim, registry, programs[i], name,
                                                recs.empty() ? nullptr : recs[0], a.attribution);
      records.push_back(models::to_record(r, gpus));
      if (programs[i].measured_step_us)
        records.back().extra["measured_step_us"] = *programs[i].measured_step_us;
      const std::string label = programs[i].name + " / " + policy_label(records.back());
      for (size_t rank = 0; rank < recs.size(); ++rank) {
        traced.push_back(
            engine::LabeledTrace{all_gpus ? fmt::format("{} / rank {}", label, rank) : label, recs[rank]});
      }
    }
  }
  std::string text;
  if (f == Format::jsonl) {
    std::vector<wl::Record> all{models::SimulatedRunner(spec).environment()};
    for (auto& r : records) all.emplace_back(r);
    text = wl::to_jsonl(all);
  } else {
    text = render(records, f == Format::csv);
  }
  // Both outputs are complete in memory before either file is written, and written together.
  std::vector<std::pair<OutputTarget, std::string>> contents{{outputs[0], std::move(text)}};
  if (!a.trace.empty()) contents.emplace_back(outputs[1], engine::to_chrome_trace(traced));
  write_outputs(contents, inputs);
}

}  // namespace c3sim::cli
