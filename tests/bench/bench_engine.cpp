// Engine throughput: events per second of the event queue and of a full C3 simulation, and the
// cost of one paper scenario under each policy. Run: build/bench/bench_engine
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/policies/policy.h"
#include "models/run/c3_simulator.h"
#include "sim/engine/event_queue.h"
#include "sim/engine/gpu_dispatcher.h"
#include "sim/engine/simulation.h"
#include "workloads/paper_catalog.h"

namespace {

void BM_EventQueue(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  for (auto _ : state) {
    c3sim::engine::EventQueue q;
    int sink = 0;
    for (int i = 0; i < n; ++i) q.schedule((i * 7919) % n, [&sink] { ++sink; });
    c3sim::TimePs t = 0;
    while (!q.empty()) q.pop (&t)();
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_EventQueue)->Arg(1 << 10)->Arg(1 << 16);

void BM_FluidFlows(benchmark::State& state) {
  // n flows over 8 resources, each finishing at a different time: n completions, n re-solves.
  const auto n = static_cast<int>(state.range(0));
  for (auto _ : state) {
    c3sim::engine::Simulation sim;
    std::vector<c3sim::engine::ResourceId> r;
    for (int i = 0; i < 8; ++i) r.push_back(sim.add_resource("r", 1e9));
    for (int i = 0; i < n; ++i) {
      c3sim::engine::FlowSpec f;
      f.work = 1e6 * (1 + i);
      f.demands = {{r[static_cast<size_t>(i % 8)], 1.0}, {r[static_cast<size_t>((i + 3) % 8)], 0.5}};
      sim.start_flow(std::move(f), nullptr);
    }
    sim.run();
    benchmark::DoNotOptimize(sim.now());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_FluidFlows)->Arg(64)->Arg(512);

void BM_FluidSharedComponent(benchmark::State& state) {
  // The shape of a GEMM + collective step: n cohort flows over 8 per-XCD resources (L2-like) and
  // two shared ones (LLC-, HBM-like), each with its own rate bound, so every update re-solves one
  // component holding every flow over several filling rounds (the solver's hot path in `c3sim paper`).
  const auto n = static_cast<int>(state.range(0));
  for (auto _ : state) {
    c3sim::engine::FluidSolver solver;
    std::vector<c3sim::engine::ResourceId> xcd;
    for (int i = 0; i < 8; ++i) xcd.push_back(solver.add_resource("l2", 2e12));
    const auto llc = solver.add_resource("llc", 8e12);
    const auto hbm = solver.add_resource("hbm", 4e12);
    std::vector<c3sim::engine::FlowId> flows;
    for (int i = 0; i < n; ++i) {
      c3sim::engine::FlowSpec f;
      f.work = 1e9;
      f.bound = 1e10 * (1 + i % 5);
      f.demands = {{xcd[static_cast<size_t>(i % 8)], 1.0 + i % 3}, {llc, 0.5}, {hbm, 0.25 + 0.05 * (i % 4)}};
      flows.push_back(solver.add_flow(std::move(f), 0));
    }
    for (int step = 1; step <= n; ++step) {
      const auto f = flows[static_cast<size_t>(step % n)];
      solver.update_flow(f,
                         {{xcd[static_cast<size_t>(step % 8)], 1.5}, {llc, 0.5}, {hbm, 0.1 * (1 + step % 7)}},
                         1e10 * (1 + step % 5), step);
      solver.solve(step);
    }
    benchmark::DoNotOptimize(solver.rate(flows.front()));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_FluidSharedComponent)->Arg(32)->Arg(256);

// A kernel of one-CU workgroups that each stream a fixed number of bytes through one shared
// resource: the dispatcher's and solver's work without any model behind it.
class StreamingModel final : public c3sim::engine::WorkgroupModel {
public:
  explicit StreamingModel(c3sim::engine::ResourceId memory) : memory_(memory) {}
  c3sim::engine::CohortWork cohort_work(const c3sim::engine::CohortContext& ctx) override {
    (void)ctx;
    return {1e6, {{memory_, 1.0}}, 2e10, 0};
  }

private:
  c3sim::engine::ResourceId memory_;
};

void BM_DispatcherKernels(benchmark::State& state) {
  // n kernels of 132 workgroups round-robin on 4 streams of a 132-CU GPU, each stream's kernels in
  // order, every retire followed by a residency refresh (as the program simulator's listener does).
  const auto n = static_cast<int>(state.range(0));
  for (auto _ : state) {
    c3sim::engine::Simulation sim;
    const auto memory = sim.add_resource("hbm", 4.8e12);
    c3sim::engine::GpuDispatcher gpu(sim, c3sim::engine::GpuConfig{0, 1, 132, 1, 1 << 30, 0});
    gpu.set_residency_listener([](c3sim::engine::GpuDispatcher& g) { g.refresh_all(); });
    std::vector<c3sim::engine::StreamId> streams;
    for (int s = 0; s < 4; ++s) streams.push_back(gpu.add_stream({fmt::format("s{}", s), 0, {}}));
    auto model = std::make_shared<StreamingModel>(memory);
    for (int i = 0; i < n; ++i) {
      sim.at(i * 1'000'000, [&, i] {
        gpu.launch(
            streams[static_cast<size_t>(i % 4)],
            c3sim::engine::KernelDesc{"k", 132, 1, 2'000'000, {i, c3sim::engine::KernelKind::memory}, false},
            model, nullptr);
      });
    }
    sim.run();
    benchmark::DoNotOptimize(sim.now());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_DispatcherKernels)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_C3Scenario(benchmark::State& state, const char* scenario, const char* policy) {
  const auto spec = c3sim::hw::load_hardware("mi300x");
  const auto s = *c3sim::wl::find_paper_scenario(scenario);
  const auto p = c3sim::models::make_policy(policy, spec);
  c3sim::models::SimOptions o;
  o.attribution = false;
  std::uint64_t runs = 0;
  for (auto _ : state) {
    c3sim::models::C3Simulator sim(spec, o);  // fresh: isolated baselines included in the cost
    benchmark::DoNotOptimize(sim.run(s, *p).total_us);
    ++runs;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(runs));
}
BENCHMARK_CAPTURE(BM_C3Scenario, cb1_896M_ag_base, "cb1_896M_ag", "base")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_C3Scenario, cb1_896M_ag_dma, "cb1_896M_ag", "dma")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_C3Scenario, mb2_26_5G_a2a_sp, "mb2_26.5G_a2a", "sp")->Unit(benchmark::kMillisecond);

}  // namespace
