// Whole-program cost: `c3sim run <program> --policy base` on the H200 preset, in-process, for
// synthetic programs shaped like an imported training-step trace (bench_program_shape below) at
// 2,500, 25,000 and 100,000 kernels, and for a 100,000-kernel single dependency chain. Each
// iteration builds a fresh simulator, so the isolated-kernel runs the result needs are included,
// as on the command line. The `per_kernel` counter is seconds of run per kernel: it should stay
// flat as the program grows (a cost that grows faster than the kernel count shows there).
// Run: taskset -c 0 build/bench/bench_program --benchmark_repetitions=3
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/hardware_loader.h"
#include "models/policies/transform_registry.h"
#include "models/program/program_simulator.h"
#include "models/run/program_runner.h"
#include "workloads/program.h"

namespace {

using c3sim::wl::KernelKind;
using c3sim::wl::Program;
using c3sim::wl::ProgramKernel;

ProgramKernel kernel(std::string name, KernelKind kind, std::string stream, std::vector<std::string> after) {
  ProgramKernel k;
  k.name = std::move(name);
  k.kind = kind;
  k.stream = std::move(stream);
  k.after = std::move(after);
  return k;
}

// One FSDP-style layer per 25 kernels, as a PyTorch trace of a sharded training step imports:
// - stream `ag`: the layer's parameter all-gather (prefetched: it waits only for its own stream);
// - stream `compute`: 16 short measured kernels (norms, activations, attention pieces, 3-59 us),
//   3 GEMMs (the first waits for the layer's all-gather), 3 memory-bound kernels;
// - stream `rs`: the gradient reduce-scatter, after the layer's last GEMM;
// - stream `side`: a memory kernel (gradient copy-out) after the reduce-scatter.
// Sizes cycle through a few values per kind, so isolated-kernel memoization sees the repetition a
// real step has (every layer alike) but not a single shape.
Program bench_program_shape(int kernels) {
  Program p;
  p.name = "synthetic_step";
  p.launch_gap_us = 4.0;
  p.streams = {{"compute", 0, std::nullopt, {}},
               {"ag", 0, std::nullopt, {}},
               {"rs", 0, std::nullopt, {}},
               {"side", 0, std::nullopt, {}}};
  // The shapes of a 7B model's layer at 4,096 tokens (as in the committed FSDP trace).
  const std::int64_t gemm_shapes[3][3] = {{4096, 12288, 4096}, {4096, 11008, 4096}, {4096, 4096, 11008}};
  for (int layer = 0; static_cast<int>(p.kernels.size()) < kernels; ++layer) {
    ProgramKernel ag = kernel(fmt::format("ag{}", layer), KernelKind::collective, "ag", {});
    ag.collective.op = c3sim::wl::CollectiveOp::all_gather;
    ag.collective.bytes = (std::int64_t{128} << 20) * (1 + layer % 3);
    p.kernels.push_back(ag);
    int measured = 0;
    std::string last_gemm;
    for (int j = 0; j < 22; ++j) {
      const std::string name = fmt::format("l{}k{}", layer, j);
      if (j % 7 == 1) {  // j = 1, 8, 15: the layer's GEMMs
        const int g = j / 7;
        ProgramKernel k = kernel(
            name, KernelKind::gemm, "compute",
            g == 0 ? std::vector<std::string>{fmt::format("ag{}", layer)} : std::vector<std::string>{});
        k.gemm.m = gemm_shapes[g][0];
        k.gemm.n = gemm_shapes[g][1];
        k.gemm.k = gemm_shapes[g][2];
        p.kernels.push_back(k);
        last_gemm = name;
      } else if (j == 5 || j == 12 || j == 19) {
        ProgramKernel k = kernel(name, KernelKind::memory, "compute", {});
        k.memory.bytes = (std::int64_t{96} << 20) * (1 + (layer + j) % 2);
        p.kernels.push_back(k);
      } else {
        ProgramKernel k = kernel(name, KernelKind::measured, "compute", {});
        k.measured.time_us = 3.0 + 7.0 * ((layer * 7 + measured * 3) % 9);
        const int grids[4] = {320, 320, 1, 4096};
        k.measured.workgroups = grids[measured % 4];
        p.kernels.push_back(k);
        ++measured;
      }
    }
    ProgramKernel rs = kernel(fmt::format("rs{}", layer), KernelKind::collective, "rs", {last_gemm});
    rs.collective.op = c3sim::wl::CollectiveOp::reduce_scatter;
    rs.collective.bytes = (std::int64_t{32} << 20) * (1 + layer % 3);
    p.kernels.push_back(rs);
    ProgramKernel copy =
        kernel(fmt::format("g{}", layer), KernelKind::memory, "side", {fmt::format("rs{}", layer)});
    copy.memory.bytes = std::int64_t{48} << 20;
    p.kernels.push_back(copy);
  }
  p.kernels.resize(static_cast<size_t>(kernels));
  return p;
}

// One stream, each kernel waiting for the previous one by name as well as by stream order.
Program bench_chain(int kernels) {
  Program p;
  p.name = "chain";
  p.launch_gap_us = 4.0;
  p.streams = {{"s", 0, std::nullopt, {}}};
  for (int i = 0; i < kernels; ++i) {
    ProgramKernel k =
        kernel(fmt::format("c{}", i), KernelKind::measured, "s",
               i == 0 ? std::vector<std::string>{} : std::vector<std::string>{fmt::format("c{}", i - 1)});
    k.measured.time_us = 5.0 + (i % 7);
    p.kernels.push_back(k);
  }
  return p;
}

void run_base(benchmark::State& state, const Program& program) {
  const auto spec = c3sim::hw::load_hardware("h200-sxm");
  const auto registry = c3sim::models::builtin_transforms();
  for (auto _ : state) {
    c3sim::models::ProgramSimulator sim(spec);  // fresh: isolated-kernel runs included
    benchmark::DoNotOptimize(c3sim::models::run_program_policy(sim, registry, program, "base").step_us);
  }
  const auto n = static_cast<double>(program.kernels.size());
  state.counters["kernels"] = n;
  state.counters["per_kernel"] =
      benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_ProgramStep(benchmark::State& state) {
  run_base(state, bench_program_shape(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_ProgramStep)->Arg(2500)->Arg(25000)->Arg(100000)->Unit(benchmark::kSecond)->Iterations(1);

void BM_ProgramChain(benchmark::State& state) {
  run_base(state, bench_chain(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_ProgramChain)->Arg(100000)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
