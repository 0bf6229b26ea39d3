// c3bench: measures C3 scenarios (a GEMM and a collective at once) on the GPUs of this node and
// writes the measurement schema c3sim writes. The only place in c3bench that prints or exits:
// 0 success, 1 internal error, 2 bad input (scenario file, options), 3 GPU/library failure.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "hardware/hardware_loader.h"
#include "hardware/hip/device_error.h"
#include "hardware/hip/gpu_runtime.h"
#include "hardware/hip/hardware_runner.h"
#include "hardware/hip/policy.h"
#include "hardware/hip/program_bench.h"
#include "hardware/hip/sweeps.h"
#include "models/policies/transform_registry.h"
#include "sim/base/errors.h"
#include "sim/base/strict_yaml.h"
#include "sim/base/units.h"
#include "workloads/program_io.h"
#include "workloads/scenario_io.h"

namespace {

using c3sim::InputError;
namespace bench = c3sim::bench;
namespace wl = c3sim::wl;

struct CommonOptions {
  std::string scenario_file;
  std::string output;  // empty = stdout
  int warmups = 2;
  int trials = 5;
  int dma_engines = 1;
  int dma_chunks = 1;
  std::string dma_mode = "push";
  bool dma_single = false;
  // Trial conditioning (bench.h Conditioning); defaults = the conditioned mode.
  double condition_idle_ms = bench::Conditioning{}.idle_ms;
  double condition_spin_ms = bench::Conditioning{}.spin_ms;
  bool condition_warm_collective = bench::Conditioning{}.warm_collective;
  std::string trial_order = "rotate";
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  for (char c : s + ",") {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return out;
}

std::vector<int> parse_ints(const std::string& s, const std::string& option) {
  std::vector<int> out;
  for (const std::string& item : split_list(s)) {
    try {
      std::size_t used = 0;
      const int v = std::stoi(item, &used);
      if (used != item.size() || v < 1) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw InputError({}, option, "'" + item + "' is not a positive integer");
    }
  }
  return out;
}

std::vector<std::int64_t> parse_sizes(const std::string& s, const std::string& option) {
  std::vector<std::int64_t> out;
  for (const std::string& item : split_list(s)) {
    std::string why;
    const auto v = c3sim::parse_quantity(item, c3sim::Dimension::bytes, &why);
    if (!v || *v < 1 || *v != static_cast<double>(static_cast<std::int64_t>(*v))) {
      throw InputError({}, option,
                       "'" + item + "' is not a whole number of bytes such as 256MiB or 1GiB" +
                           (why.empty() ? "" : " (" + why + ")"));
    }
    out.push_back(static_cast<std::int64_t>(*v));
  }
  return out;
}

bench::DmaOptions dma_options(const CommonOptions& o) {
  if (o.dma_mode != "push" && o.dma_mode != "pull") {
    throw InputError({}, "--dma-mode", "expected push or pull, got '" + o.dma_mode + "'");
  }
  if (o.dma_engines < 1 || o.dma_chunks < 1) {
    throw InputError({}, "--dma-engines/--dma-chunks", "must be at least 1");
  }
  return {o.dma_engines, o.dma_chunks, o.dma_mode == "pull", !o.dma_single};
}

// Writes to FILE.partial as records arrive and renames at the end: a finished run never leaves a
// partial FILE, and an interrupted one leaves what it measured beside it.
class RecordSink {
public:
  explicit RecordSink(std::string path) : path_(std::move(path)) {
    if (!path_.empty()) {
      file_.open(path_ + ".partial");
      if (!file_) throw InputError({path_, 0, 0}, "-o", "cannot open " + path_ + ".partial for writing");
    }
  }
  void write(const std::vector<wl::Record>& records) {
    std::ostream& os = path_.empty() ? std::cout : file_;
    os << wl::to_jsonl(records);
    os.flush();
  }
  void finish() {
    if (path_.empty()) return;
    file_.close();
    std::filesystem::rename(path_ + ".partial", path_);
  }

private:
  std::string path_;
  std::ofstream file_;
};

void check_runtime_limits(const CommonOptions& o) {
  if (o.trials < 1) throw InputError({}, "--trials", "must be at least 1");
  if (o.warmups < 0) throw InputError({}, "--warmups", "must be at least 0");
}

bench::Conditioning conditioning(const CommonOptions& o) {
  const auto check = [](double v, const char* option) {
    if (!(v >= 0 && v <= 10000)) throw InputError({}, option, "must be between 0 and 10000 ms");
  };
  check(o.condition_idle_ms, "--condition-idle-ms");
  check(o.condition_spin_ms, "--condition-spin-ms");
  if (o.trial_order != "rotate" && o.trial_order != "fixed") {
    throw InputError({}, "--trial-order", "expected rotate or fixed, got '" + o.trial_order + "'");
  }
  return {o.condition_idle_ms, o.condition_spin_ms, o.trial_order == "rotate", o.condition_warm_collective};
}

// A program file (workloads/program_io.h): each program under each policy of c3sim's transform
// registry, transformed here and run by ProgramBench (program_bench.h). Every program, policy and
// transformed program is checked before the first GPU call.
int command_run_programs(const CommonOptions& o, const std::string& policy_list, const std::string& hardware,
                         const std::string& only) {
  if (hardware.empty()) {
    throw InputError({o.scenario_file, 0, 0}, "--hardware",
                     "a program file needs --hardware (preset or YAML, e.g. h200-sxm): the policies' "
                     "transformations (ficco chunking, dma) are c3sim's and check against it");
  }
  const c3sim::hw::NodeSpec spec = c3sim::hw::load_hardware(hardware);
  const c3sim::models::TransformRegistry registry = c3sim::models::builtin_transforms();
  const std::set<std::string> only_names = [&] {
    auto v = split_list(only);
    return std::set<std::string>(v.begin(), v.end());
  }();
  std::vector<bench::ProgramRunRequest> requests;
  for (const wl::Program& p : wl::load_programs_file(o.scenario_file)) {
    if (!only_names.empty() && !only_names.count(p.name)) continue;
    wl::check_program_fits(p, spec.interconnect.gpus, spec.compute.total_cus());
    bench::check_program_runnable(p, "", spec);
    std::vector<std::string> names = policy_list.empty() ? p.policies : split_list(policy_list);
    std::vector<c3sim::SourceLocation> where =
        policy_list.empty() ? p.policy_locations
                            : std::vector<c3sim::SourceLocation>(names.size(), {"<command line>", 0, 0});
    if (names.empty()) {
      names = {"base", "sp"};
      where = {p.location, p.location};
    }
    bench::ProgramRunRequest r;
    r.program = p;
    r.warmups = o.warmups;
    r.trials = o.trials;
    r.mask_sms = spec.compute.total_cus();
    r.mask_granularity = std::max(1, spec.compute.cu_mask_granularity);
    for (std::size_t i = 0; i < names.size(); ++i) {
      const c3sim::SourceLocation at = i < where.size() ? where[i] : p.location;
      registry.check(names[i], spec, at);
      for (const std::string& concrete : registry.expand(names[i], spec)) {
        if (std::find(r.policies.begin(), r.policies.end(), concrete) != r.policies.end()) continue;
        wl::Program t = registry.apply(concrete, p, spec, at);
        bench::check_program_runnable(t, concrete, spec);
        r.policies.push_back(concrete);
        r.transformed.push_back(std::move(t));
      }
    }
    requests.push_back(std::move(r));
  }
  if (requests.empty()) throw InputError({o.scenario_file, 0, 0}, "--only", "no program selected");

  const bench::Conditioning cond = conditioning(o);
  RecordSink sink(o.output);
  bench::HardwareRunner runner(dma_options(o));
  runner.bench().set_conditioning(cond);
  bench::ProgramBench programs(runner.bench(), runner.dma_options());
  sink.write({runner.environment()});
  for (const bench::ProgramRunRequest& r : requests) {
    std::cerr << "c3bench: program " << r.program.name << " (" << r.policies.size() << " policies)\n";
    sink.write(programs.run(r));
  }
  sink.finish();
  return 0;
}

int command_run(const CommonOptions& o, const std::string& policy_list, const std::string& gemm_limits,
                const std::string& cta_limits, const std::string& only, const std::string& hardware) {
  // Everything about the input is checked before the first GPU call.
  check_runtime_limits(o);
  (void)dma_options(o);
  const bench::Conditioning cond = conditioning(o);
  if (wl::is_program_document(c3sim::load_yaml_file(o.scenario_file))) {
    if (!gemm_limits.empty() || !cta_limits.empty()) {
      throw InputError({o.scenario_file, 0, 0}, "--gemm-sm-limits/--coll-cta-limits",
                       "scenario files only (a program file was given)");
    }
    return command_run_programs(o, policy_list, hardware, only);
  }
  if (!hardware.empty()) throw InputError({o.scenario_file, 0, 0}, "--hardware", "program files only");
  std::vector<wl::Scenario> scenarios = wl::load_scenarios_file(o.scenario_file);
  const std::vector<int> gemm_cu_limits = parse_ints(gemm_limits, "--gemm-sm-limits");
  const std::vector<int> coll_limits = parse_ints(cta_limits, "--coll-cta-limits");
  const bench::DmaOptions dma = dma_options(o);
  std::optional<std::vector<std::string>> override_policies;
  if (!policy_list.empty()) {
    override_policies = split_list(policy_list);
    const bool all =
        override_policies->size() == 1 && c3sim::models::builtin_registry()
                                              .parse(override_policies->front(), {"<command line>", 0, 0})
                                              .is_all();
    if (all) override_policies = bench::all_policy_names();
  }
  const std::set<std::string> only_names = [&] {
    auto v = split_list(only);
    return std::set<std::string>(v.begin(), v.end());
  }();
  std::vector<wl::RunRequest> requests;
  for (const wl::Scenario& sc : scenarios) {
    if (!only_names.empty() && !only_names.count(sc.name)) continue;
    wl::RunRequest r;
    r.scenario = sc;
    r.policies = override_policies ? *override_policies
                                   : (sc.policies.empty() ? bench::all_policy_names() : sc.policies);
    if (override_policies) r.scenario.policy_locations.clear();
    for (std::size_t i = 0; i < r.policies.size(); ++i) {
      const c3sim::SourceLocation where = i < r.scenario.policy_locations.size()
                                              ? r.scenario.policy_locations[i]
                                              : c3sim::SourceLocation{o.scenario_file, 0, 0};
      (void)bench::parse_policy(r.policies[i], where, 0);  // 'all' in a file is refused: --policy only
    }
    r.gemm_cu_limits = gemm_cu_limits;
    r.coll_workgroup_limits = coll_limits;
    r.warmups = o.warmups;
    r.trials = o.trials;
    requests.push_back(std::move(r));
  }
  if (requests.empty()) throw InputError({o.scenario_file, 0, 0}, "--only", "no scenario selected");
  // Copy engines cannot reduce: a reduce-scatter or all-reduce runs under the CU policies only.
  for (const wl::RunRequest& r : requests) {
    const wl::CollectiveOp op = r.scenario.collective.op;
    if (!wl::op_traits(op).reduces) continue;
    for (std::size_t i = 0; i < r.policies.size(); ++i) {
      if (bench::parse_policy(r.policies[i], r.scenario.location, 0).impl == wl::CollectiveImpl::cu) continue;
      throw InputError(
          i < r.scenario.policy_locations.size() ? r.scenario.policy_locations[i] : r.scenario.location,
          r.scenario.name + ".policies",
          "'" + r.policies[i] + "' needs copy engines, which cannot reduce a " + wl::to_string(op) +
              " (use base, sp, prio, rp:<n>, sp_rp:<n>; with --policy all, run reductions "
              "from their own file)");
    }
  }

  RecordSink sink(o.output);
  bench::HardwareRunner runner(dma);
  runner.bench().set_conditioning(cond);
  sink.write({runner.environment()});
  for (const wl::RunRequest& r : requests) {
    std::cerr << "c3bench: " << r.scenario.name << " (" << r.policies.size() << " policies)\n";
    sink.write(runner.run(r));
  }
  sink.finish();
  return 0;
}

struct SweepOptions {
  std::string what = "all";
  std::string sm_limits = "8,16,32,48,64,80,96,112,124,132";
  std::string cta_limits = "1,2,4,8,16,24,32,48,64";
  std::string sizes = "1MiB,4MiB,16MiB,64MiB,256MiB,1GiB,4GiB";
  std::string engine_bytes = "1GiB";
  std::string ops = "all_gather,all_to_all";
  std::string copy_sizes = "4KiB,16KiB,64KiB,256KiB,1MiB,4MiB,16MiB,64MiB,256MiB,1GiB,4GiB";
  std::string copy_shape_sizes = "256MiB,1GiB";
  std::string fused_sizes = "4096x8x128x8,16384x8x128x16,16384x16x256x2,32768x16x128x4,65536x8x128x32";
  std::string fused_chunks = "1,4,16,64,256";
  int fused_rows = bench::FusedA2aRequest{}.rows;
  int fused_bulk_tile = bench::FusedA2aRequest{}.bulk_tile;
};

std::vector<wl::CollectiveOp> parse_ops(const std::string& s) {
  std::vector<wl::CollectiveOp> out;
  for (const std::string& item : split_list(s)) {
    const auto op = wl::parse_collective_op(item);
    if (!op) {
      throw InputError(
          {}, "--ops",
          "'" + item + "' is not a collective (all_gather, all_to_all, reduce_scatter, all_reduce)");
    }
    out.push_back(*op);
  }
  return out;
}

int command_sweep(const CommonOptions& o, const SweepOptions& so) {
  const std::string& what = so.what;
  const std::string& sm_limits = so.sm_limits;
  const std::string& cta_limits = so.cta_limits;
  const std::string& sizes = so.sizes;
  const std::string& engine_bytes = so.engine_bytes;
  check_runtime_limits(o);
  const bench::Conditioning cond = conditioning(o);
  bench::SweepRequest q;
  q.what = split_list(what);
  if (q.what.size() == 1 && q.what[0] == "all") {
    q.what = {"gemm_sms",    "gemm_sms_rest", "coll_ctas",   "coll_partition", "dma_size",
              "dma_engines", "dma_latency",   "copy_engine", "launch"};
  }
  bench::validate_sweep(q);
  if (!o.scenario_file.empty()) {
    std::set<std::string> seen;
    for (const wl::Scenario& sc : wl::load_scenarios_file(o.scenario_file)) {
      if (seen.insert(sc.gemm.shape_string()).second) q.gemms.push_back(sc.gemm);
    }
  }
  const bool gemm_launch = std::find(q.what.begin(), q.what.end(), "gemm_launch") != q.what.end();
  if (gemm_launch && q.gemms.empty()) {
    throw InputError({}, "--what", "gemm_launch needs a scenario file (its GEMM shapes)");
  }
  q.sm_limits = parse_ints(sm_limits, "--sm-limits");
  q.cta_limits = parse_ints(cta_limits, "--cta-limits");
  q.sizes = parse_sizes(sizes, "--sizes");
  const auto eb = parse_sizes(engine_bytes, "--engine-sweep-bytes");
  if (eb.size() != 1) throw InputError({}, "--engine-sweep-bytes", "expected one size");
  q.engine_sweep_bytes = eb[0];
  q.ops = parse_ops(so.ops);
  q.copy_sizes = parse_sizes(so.copy_sizes, "--copy-sizes");
  q.copy_shape_sizes = parse_sizes(so.copy_shape_sizes, "--copy-shape-sizes");
  if (std::find(q.what.begin(), q.what.end(), "fused_a2a") != q.what.end()) {
    q.fused.sizes = bench::parse_fused_sizes(so.fused_sizes, "--fused-sizes");
    q.fused.chunks = parse_ints(so.fused_chunks, "--fused-chunks");
    q.fused.rows = so.fused_rows;
    q.fused.bulk_tile = so.fused_bulk_tile;
    bench::check_fused_request(q.fused);
  }
  q.warmups = o.warmups;
  q.trials = o.trials;
  const bench::DmaOptions dma = dma_options(o);

  RecordSink sink(o.output);
  bench::HardwareRunner runner(dma);
  runner.bench().set_conditioning(cond);
  if (std::find(q.what.begin(), q.what.end(), "launch") != q.what.end()) runner.set_launch_probe_reps(100);
  if (gemm_launch) runner.set_gemm_launch_probe(q.gemms, std::max(20, q.trials));
  sink.write({runner.environment()});
  sink.write(bench::run_sweeps(runner, q));
  sink.finish();
  return 0;
}

void add_common(CLI::App* app, CommonOptions& o, bool scenario_required) {
  auto* file = app->add_option("scenario", o.scenario_file,
                               "Scenario YAML (workloads/scenario_io.h) or, for run, a program YAML "
                               "(workloads/program_io.h)");
  if (scenario_required) file->required();
  app->add_option("-o,--output", o.output, "Write JSON Lines here (default: standard output)");
  app->add_option("--warmups", o.warmups, "Timed warm-up rounds (discarded) after one untimed priming run")
      ->capture_default_str();
  app->add_option("--trials", o.trials, "Timed rounds; records hold the median and max-min spread")
      ->capture_default_str();
  app->add_option("--dma-engines", o.dma_engines, "Own DMA collective: copy queues (streams) per GPU")
      ->capture_default_str();
  app->add_option("--dma-chunks", o.dma_chunks, "Own DMA collective: pieces per peer transfer")
      ->capture_default_str();
  app->add_option("--dma-mode", o.dma_mode, "Own DMA collective: push (write peers) or pull (read peers)")
      ->capture_default_str();
  app->add_flag("--dma-single", o.dma_single,
                "Own DMA collective: one copy call per piece instead of one batched call per queue");
  app->add_option("--condition-idle-ms", o.condition_idle_ms,
                  "Before every timed trial (isolated and concurrent alike): every GPU idle this long, "
                  "so the power limiter starts each trial from the same state; 0 = no wait")
      ->capture_default_str();
  app->add_option("--condition-spin-ms", o.condition_spin_ms,
                  "Then a spin kernel on every SM/CU of every GPU this long, so clocks are up when the "
                  "trial starts; 0 = none")
      ->capture_default_str();
  app->add_flag("--condition-warm-collective,!--no-condition-warm-collective", o.condition_warm_collective,
                "After the idle gap, a 1 MiB all-reduce through the library on every GPU (untimed, "
                "before the spin), so an isolated collective does not pay a wake-up that a concurrent "
                "one does not (on by default)");
  app->add_option("--trial-order", o.trial_order,
                  "rotate: round t starts at the (t mod n)-th measurement, so drift and what ran before "
                  "fall on all alike; fixed: the same order every round (files before the conditioning)")
      ->capture_default_str();
}

}  // namespace

int main(int argc, char** argv) {
  // c3bench never uses NVLink multicast (NVLS); keep NCCL from setting it up unless told otherwise.
  setenv("NCCL_NVLS_ENABLE", "0", 0);

  CLI::App app{std::string("c3bench: measure concurrent GEMM + collective (C3) scenarios on this "
                           "node's GPUs (built for ") +
               c3sim::bench::kPlatform +
               ") and write c3sim's JSON Lines measurement schema.\nExit codes: 0 ok, 1 internal "
               "error, 2 bad input, 3 GPU or library failure."};
  app.require_subcommand(1);
  app.footer(bench::policy_help());

  CommonOptions run_opts;
  std::string policies, gemm_limits, cta_limits, only, hardware;
  CLI::App* run = app.add_subcommand(
      "run",
      "Run every scenario of a file: isolated baselines beside concurrent runs under each policy.\n"
      "A program file (program: / programs:, docs/programs.md) runs each program under each policy\n"
      "of c3sim's transform registry (needs --hardware): its streams, events and host launch order\n"
      "as written, every GPU; one program record per policy plus iso records of its kernels.\n"
      "Launch semantics (every policy is launched as one host thread of a program launches):\n"
      "  host:  [launch FIRST on every GPU] [launch SECOND on every GPU] ........ [wait]\n"
      "  GPU:   FIRST runs from its arrival ->\n"
      "                  SECOND arrives one host launch later (details.launch) ->\n"
      "  base, prio, rp:<n>, dma, vendor_zero_cta: FIRST = GEMM, SECOND = collective\n"
      "  sp, sp_rp:<n>, dma_sp, vendor_zero_cta_sp: FIRST = collective, SECOND = GEMM\n"
      "  prio: the collective's stream has the highest priority; rp: each side on its own SM/CU\n"
      "  partition (green context / CU mask). Times run from FIRST's arrival; the trial ends when both\n"
      "  are done. The env record carries the measured launch gaps (details.launch).");
  add_common(run, run_opts, true);
  run->add_option("--policy", policies,
                  "Comma-separated policies overriding the file's, or 'all' (base, sp, prio, rp:16, "
                  "rp:32, dma, dma_sp, vendor_zero_cta, vendor_zero_cta_sp). Known: base, sp, prio, "
                  "rp:<n>, sp_rp:<n>, dma, dma_sp, vendor_zero_cta, vendor_zero_cta_sp");
  run->add_option("--gemm-sm-limits", gemm_limits,
                  "Extra iso_gemm records with the GEMM on an SM/CU group of at least these sizes, "
                  "e.g. 64,100");
  run->add_option("--coll-cta-limits", cta_limits,
                  "Extra iso_coll records with the library collective capped at these CTA/channel "
                  "counts, e.g. 8,16,32");
  run->add_option("--only", only,
                  "Comma-separated scenario or program names to run (default: all in the file)");
  run->add_option("--hardware", hardware,
                  "Program files: c3sim hardware preset or YAML the policy transformations check against "
                  "(e.g. h200-sxm); policies are c3sim's registry names (base, sp, prio, dma, ficco:<k>, "
                  "ficco_dma:<k>, '+' compositions, X_best runs every candidate)");

  CommonOptions sweep_opts;
  SweepOptions so;
  CLI::App* sweep = app.add_subcommand("sweep", "Calibration microbenchmarks (GEMMs from the scenario file)");
  add_common(sweep, sweep_opts, false);
  sweep
      ->add_option(
          "--what", so.what,
          "Comma-separated: gemm_sms, gemm_sms_rest, coll_ctas, coll_partition, dma_size, dma_engines, "
          "dma_latency, copy_engine, launch, gemm_launch (the scenario GEMMs' launch beside "
          "a running kernel, held and unheld, into the env record), fused_a2a (embedding lookup + "
          "all-to-all, bulk and fused into one kernel), or all (not gemm_launch, fused_a2a)")
      ->capture_default_str();
  sweep
      ->add_option("--sm-limits", so.sm_limits,
                   "gemm_sms: SM/CU group sizes; gemm_sms_rest, coll_partition: the group split off")
      ->capture_default_str();
  sweep->add_option("--cta-limits", so.cta_limits, "coll_ctas: CTA caps")->capture_default_str();
  sweep->add_option("--sizes", so.sizes, "coll_ctas, coll_partition, dma_size: per-GPU output sizes")
      ->capture_default_str();
  sweep
      ->add_option("--ops", so.ops,
                   "coll_ctas, coll_partition, dma_size: collectives (dma_size skips reductions)")
      ->capture_default_str();
  sweep->add_option("--engine-sweep-bytes", so.engine_bytes, "dma_engines: the size swept")
      ->capture_default_str();
  sweep->add_option("--copy-sizes", so.copy_sizes, "copy_engine: bytes per peer, every pattern")
      ->capture_default_str();
  sweep
      ->add_option("--copy-shape-sizes", so.copy_shape_sizes,
                   "copy_engine: sizes where streams per peer, chunks and batching are swept")
      ->capture_default_str();

  sweep
      ->add_option("--fused-sizes", so.fused_sizes,
                   "fused_a2a: BATCHxTABLESxDIMxPOOLING per size (global batch, fp32 tables per GPU, "
                   "row elements, rows pooled per sample and table)")
      ->capture_default_str();
  sweep
      ->add_option("--fused-chunks", so.fused_chunks,
                   "fused_a2a: samples per completion flag of the fused kernel (and per tile of the "
                   "lookup alone)")
      ->capture_default_str();
  sweep->add_option("--fused-rows", so.fused_rows, "fused_a2a: rows per embedding table")
      ->capture_default_str();
  sweep
      ->add_option("--fused-bulk-tile", so.fused_bulk_tile,
                   "fused_a2a: samples per tile of the bulk step's lookup kernel")
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  try {
    if (run->parsed()) return command_run(run_opts, policies, gemm_limits, cta_limits, only, hardware);
    if (sweep->parsed()) {
      return command_sweep(sweep_opts, so);
    }
  } catch (const InputError& e) {
    std::cerr << "c3bench: error: " << e.what() << "\n";
    return 2;
  } catch (const bench::DeviceError& e) {
    std::cerr << "c3bench: GPU error: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "c3bench: internal error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
