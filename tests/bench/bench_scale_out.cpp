// Scale-out cost: a symmetric data-parallel step (per layer a GEMM beside the previous layer's
// gradient all-reduce, then the next layer's weight all-gather, as examples/programs/scale_out_step.yaml)
// on 1, 16 and 128 nodes of 8 H200s, `--policy base`, in-process. A symmetric program is simulated
// once, for one representative rank, with the other ranks' network contention accounted
// analytically (docs/scale-out.md): the run's cost should not grow with the node count, so 1,024
// GPUs cost about what 8 do. Each iteration builds a fresh simulator (isolated runs included).
// Run: taskset -c 0 build/bench/bench_scale_out --benchmark_repetitions=3
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "hardware/hardware_loader.h"
#include "models/policies/transform_registry.h"
#include "models/program/program_simulator.h"
#include "models/run/program_runner.h"
#include "workloads/program.h"

namespace {

using c3sim::wl::CollectiveOp;
using c3sim::wl::KernelKind;
using c3sim::wl::Program;
using c3sim::wl::ProgramKernel;

Program scale_out_step(int layers, int nodes) {
  Program p;
  p.name = "scale_out_step";
  p.gpus = 8;
  p.nodes = nodes;
  p.launch_gap_us = 5.0;
  p.streams = {{"compute", 0, std::nullopt, {}}, {"comm", 0, std::nullopt, {}}};
  for (int l = 0; l < layers; ++l) {
    ProgramKernel ar;
    ar.name = fmt::format("grad_ar{}", l);
    ar.kind = KernelKind::collective;
    ar.stream = "comm";
    ar.collective.op = CollectiveOp::all_reduce;
    ar.collective.bytes = std::int64_t{512} << 20;
    p.kernels.push_back(ar);
    ProgramKernel mlp;
    mlp.name = fmt::format("mlp{}", l);
    mlp.kind = KernelKind::gemm;
    mlp.stream = "compute";
    mlp.gemm.m = 16384;
    mlp.gemm.n = 8192;
    mlp.gemm.k = 8192;
    p.kernels.push_back(mlp);
    ProgramKernel ag;
    ag.name = fmt::format("weights_ag{}", l);
    ag.kind = KernelKind::collective;
    ag.stream = "comm";
    ag.after = {ar.name};
    ag.collective.op = CollectiveOp::all_gather;
    ag.collective.bytes = std::int64_t{1} << 30;
    p.kernels.push_back(ag);
  }
  return p;
}

void BM_ScaleOutStep(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const Program program = scale_out_step(32, nodes);
  const auto spec = c3sim::hw::load_hardware("h200-sxm");
  const auto registry = c3sim::models::builtin_transforms();
  for (auto _ : state) {
    c3sim::models::ProgramSimulator sim(spec);
    benchmark::DoNotOptimize(c3sim::models::run_program_policy(sim, registry, program, "base").step_us);
  }
  state.counters["gpus"] = 8.0 * nodes;
}
BENCHMARK(BM_ScaleOutStep)->Arg(1)->Arg(16)->Arg(128)->Unit(benchmark::kMillisecond);

}  // namespace
