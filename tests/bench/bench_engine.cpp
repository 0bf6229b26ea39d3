// Engine throughput: events per second of the event queue and of a full C3 simulation, and the
// cost of one paper scenario under each policy. Run: build/bench/bench_engine
#include <benchmark/benchmark.h>

#include "hardware/hardware_loader.h"
#include "models/c3_simulator.h"
#include "models/policy.h"
#include "sim/engine/event_queue.h"
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
