#include "models/fit/traced_kernel_validation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "models/policies/transform_registry.h"
#include "models/program/all_gpu_simulator.h"
#include "models/run/program_runner.h"
#include "sim/base/errors.h"

namespace c3sim::models {

namespace {

std::string what_of(const wl::ProgramKernel& k) {
  switch (k.kind) {
    case wl::KernelKind::gemm:
      return fmt::format("{}x{}x{} {}", k.gemm.m, k.gemm.n, k.gemm.k, to_string(k.gemm.dtype));
    case wl::KernelKind::collective:
      return fmt::format("{} {:.1f} MiB", to_string(k.collective.op),
                         static_cast<double>(k.collective.bytes) / (1 << 20));
    case wl::KernelKind::memory:
      return fmt::format("{:.1f} MiB", static_cast<double>(k.memory.bytes) / (1 << 20));
    case wl::KernelKind::dma_copy:
      return fmt::format("{:.1f} MiB{}", static_cast<double>(k.dma.bytes) / (1 << 20),
                         k.dma.to_peer ? " to peer" : "");
    case wl::KernelKind::measured: return k.measured.source.substr(0, 60);
    case wl::KernelKind::fused: {
      const std::string producer =
          k.fused.producer == wl::KernelKind::gemm
              ? fmt::format("{}x{}x{} {}", k.gemm.m, k.gemm.n, k.gemm.k, to_string(k.gemm.dtype))
              : fmt::format("{:.1f} MiB", static_cast<double>(k.memory.bytes) / (1 << 20));
      return fmt::format("{} + {} {:.1f} MiB", producer, to_string(k.collective.op),
                         static_cast<double>(k.collective.bytes) / (1 << 20));
    }
  }
  return "";
}

}  // namespace

TracedKernelReport validate_traced_kernels(const hw::NodeSpec& spec, const wl::Program& program,
                                           std::size_t worst) {
  if (!program.measured_step_us || *program.measured_step_us <= 0)
    throw InputError(program.location, program.name + ".measured_step_us",
                     "not a program imported from a trace (no measured_step_us): nothing to compare with");
  TracedKernelReport rep;
  rep.program = program.name;
  rep.hardware = spec.name;
  rep.traced_step_us = *program.measured_step_us;
  ProgramSimulator sim(spec);
  // Per rank: its kernels and their predicted runs (program order).
  std::vector<wl::Program> ranks;
  std::vector<std::vector<KernelRun>> runs;
  if (program.rank_kernels.empty()) {
    const ProgramResult predicted = run_program_policy(sim, builtin_transforms(), program, rep.policy);
    rep.predicted_step_us = predicted.step_us;
    ranks.push_back(program);
    runs.emplace_back();
    for (const KernelResult& k : predicted.kernels) runs.back().push_back(k.run);
  } else {
    const int gpus = program.gpus.value_or(static_cast<int>(program.rank_kernels.size()));
    for (int r = 0; r < gpus; ++r) ranks.push_back(wl::program_for_rank(program, r));
    AllGpuRun predicted = simulate_all_gpus(sim, ranks);
    rep.predicted_step_us = predicted.step_us;
    for (ProgramRun& r : predicted.ranks) runs.push_back(std::move(r.kernels));
  }
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const std::vector<wl::ProgramKernel>& kernels = ranks[r].kernels;
    double first_start = std::numeric_limits<double>::infinity();
    for (const KernelRun& run : runs[r]) first_start = std::min(first_start, run.start_us);
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const wl::ProgramKernel& k = kernels[i];
      if (!k.traced_us || *k.traced_us <= 0) {
        ++rep.without_traced;
        continue;
      }
      const KernelRun& run = runs[r][i];
      TracedKernelRow row{k.name,
                          k.kind,
                          what_of(k),
                          k.stream,
                          static_cast<int>(r),
                          *k.traced_us,
                          run.end_us - run.start_us,
                          run.start_us - first_start,
                          k.traced_start_us};
      rep.rows.push_back(std::move(row));
    }
  }
  if (rep.rows.empty())
    throw InputError(program.location, program.name + ".kernels",
                     "no kernel has traced_us: import the program from a trace (c3sim import --from "
                     "torch-profiler)");
  for (const wl::KernelKind kind : wl::kKernelKinds) {
    TracedKindSummary s;
    s.kind = kind;
    for (const auto& row : rep.rows) {
      if (row.kind != kind) continue;
      ++s.kernels;
      s.mean_abs_pct_error += std::abs(row.pct_error());
      s.mean_pct_error += row.pct_error();
      s.traced_us += row.traced_us;
      s.predicted_us += row.predicted_us;
    }
    if (s.kernels == 0) continue;
    s.mean_abs_pct_error /= s.kernels;
    s.mean_pct_error /= s.kernels;
    rep.kinds.push_back(s);
  }
  for (std::size_t i = 0; i < rep.rows.size(); ++i) {
    if (rep.rows[i].kind != wl::KernelKind::measured) rep.worst.push_back(i);
  }
  std::stable_sort(rep.worst.begin(), rep.worst.end(), [&](std::size_t a, std::size_t b) {
    return std::abs(rep.rows[a].pct_error()) > std::abs(rep.rows[b].pct_error());
  });
  if (rep.worst.size() > worst) rep.worst.resize(worst);
  return rep;
}

nlohmann::json to_json(const TracedKernelReport& r) {
  const auto row_json = [](const TracedKernelRow& row) {
    nlohmann::json j{{"kernel", row.kernel},
                     {"kind", to_string(row.kind)},
                     {"what", row.what},
                     {"rank", row.rank},
                     {"stream", row.stream},
                     {"traced_us", row.traced_us},
                     {"predicted_us", row.predicted_us},
                     {"pct_error", row.pct_error()},
                     {"predicted_start_us", row.predicted_start_us}};
    if (row.traced_start_us) j["traced_start_us"] = *row.traced_start_us;
    return j;
  };
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& row : r.rows) kernels.push_back(row_json(row));
  nlohmann::json kinds = nlohmann::json::array();
  for (const auto& s : r.kinds) {
    kinds.push_back({{"kind", to_string(s.kind)},
                     {"kernels", s.kernels},
                     {"mean_abs_pct_error", s.mean_abs_pct_error},
                     {"mean_pct_error", s.mean_pct_error},
                     {"traced_us", s.traced_us},
                     {"predicted_us", s.predicted_us}});
  }
  nlohmann::json worst = nlohmann::json::array();
  for (const std::size_t i : r.worst) worst.push_back(row_json(r.rows[i]));
  return {{"program", r.program},
          {"hardware", r.hardware},
          {"policy", r.policy},
          {"traced_step_us", r.traced_step_us},
          {"predicted_step_us", r.predicted_step_us},
          {"step_pct_error", r.step_pct_error()},
          {"kinds", kinds},
          {"worst", worst},
          {"kernels", kernels},
          {"kernels_without_traced_us", r.without_traced}};
}

std::string render_summary(const TracedKernelReport& r) {
  std::string out =
      fmt::format("{} on {} ({}): step traced {:.1f} us, predicted {:.1f} us ({:+.2f}%)\n", r.program,
                  r.hardware, r.policy, r.traced_step_us, r.predicted_step_us, r.step_pct_error());
  out += fmt::format("{:<12} {:>7} {:>9} {:>10} {:>12} {:>14}\n", "kind", "kernels", "MAE %", "signed %",
                     "traced us", "predicted us");
  for (const auto& s : r.kinds) {
    out += fmt::format("{:<12} {:>7} {:>9.2f} {:>+10.2f} {:>12.1f} {:>14.1f}{}\n", to_string(s.kind),
                       s.kernels, s.mean_abs_pct_error, s.mean_pct_error, s.traced_us, s.predicted_us,
                       s.kind == wl::KernelKind::measured ? "  (traced time copied in)" : "");
  }
  if (!r.worst.empty()) {
    out += fmt::format("worst kernels:\n{:<44} {:<11} {:<26} {:>10} {:>12} {:>8}\n", "kernel", "kind", "what",
                       "traced us", "predicted us", "error %");
    // Kernel names repeat across ranks: a program with ranks names the rank too.
    const bool ranks =
        std::any_of(r.rows.begin(), r.rows.end(), [](const TracedKernelRow& row) { return row.rank > 0; });
    for (const std::size_t i : r.worst) {
      const TracedKernelRow& row = r.rows[i];
      const std::string name = ranks ? fmt::format("r{}:{}", row.rank, row.kernel) : row.kernel;
      out += fmt::format("{:<44} {:<11} {:<26} {:>10.1f} {:>12.1f} {:>+8.2f}\n", name, to_string(row.kind),
                         row.what.substr(0, 26), row.traced_us, row.predicted_us, row.pct_error());
    }
  }
  return out;
}

}  // namespace c3sim::models
