#include "models/c3_simulator.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "models/bottleneck_tally.h"
#include "models/collective_plan.h"
#include "models/cu_collective.h"
#include "models/dma_collective.h"
#include "models/gemm_kernel.h"
#include "models/interference_state.h"
#include "models/memory_load_observer.h"
#include "models/node_resources.h"
#include "models/program/plan_transform.h"
#include "sim/base/errors.h"
#include "sim/engine/gpu_dispatcher.h"

namespace c3sim::models {

namespace {

// Program kernel ids of the pair: every flow of the GEMM and of the collective (its cohorts, or
// its DMA copies and sync kernels) carries one of these as its owner.
constexpr std::int32_t kGemmKernel = 0;
constexpr std::int32_t kCollectiveKernel = 1;

// A CU mask of `cus` CUs spread evenly over the XCDs, from the low or high end of each XCD so the
// collective's and the GEMM's masks are disjoint.
engine::CuMask spread_mask(const hw::NodeSpec& spec, int cus, bool from_low) {
  const int X = spec.compute.xcds;
  const int C = spec.compute.cus_per_xcd;
  engine::CuMask m = engine::CuMask::none(X * C);
  for (int x = 0; x < X; ++x) {
    const int here = cus / X + (x < cus % X ? 1 : 0);
    for (int i = 0; i < here && i < C; ++i) m.set(x * C + (from_low ? i : C - 1 - i), true);
  }
  return m;
}

double us(TimePs t) { return ps_to_us(t); }

}  // namespace

struct C3Simulator::Setup {
  std::optional<wl::Gemm> gemm;
  std::optional<int> gemm_cus;
  bool gemm_beside_partition = false;  // gemm_cus are what another stream's partition left
  int gemm_priority = 0;
  TimePs gemm_launch = 0;
  std::optional<wl::Collective> coll;
  int gpus = 2;
  wl::CollectiveImpl impl = wl::CollectiveImpl::cu;
  std::optional<int> coll_workgroups;
  std::optional<int> comm_cus;
  std::optional<int> engines;
  int comm_priority = 0;
  TimePs comm_launch = 0;
  bool private_memory = false;
  bool isolate_caches = false;
  bool isolate_queueing = false;
  bool tally = false;
  engine::TraceRecorder* trace = nullptr;
};

struct C3Simulator::Outcome {
  TimePs gemm_end = -1;
  TimePs comm_end = -1;
  TimePs gemm_arrived = -1, gemm_first_dispatch = -1;
  TimePs comm_arrived = -1, comm_first_dispatch = -1;
  std::int64_t gemm_workgroups = 0;
  int comm_workgroups = 0;
  int engines = 0;
  HitRates first_hits;
  double gemm_llc_bytes = 0, gemm_hbm_bytes = 0;
  double comm_llc_bytes = 0, comm_bytes_sent = 0;
  BottleneckTally tally;
};

C3Simulator::C3Simulator(hw::NodeSpec spec, SimOptions options)
    : spec_(std::move(spec)),
      options_(options),
      cache_model_(spec_),
      programs_(spec_, options_.max_cohort_size) {}

int C3Simulator::gpus_of(const wl::Scenario& scenario) const {
  return scenario.gpus.value_or(spec_.interconnect.gpus);
}

C3Simulator::Outcome C3Simulator::simulate(const Setup& s) {
  engine::Simulation sim;
  sim.set_trace(s.trace);
  NodeResources res(sim, spec_, s.private_memory);
  InterferenceState state(spec_.compute.xcds);
  state.isolate_caches = s.isolate_caches;
  state.isolate_queueing = s.isolate_queueing;
  engine::GpuDispatcher gpu(
      sim, engine::GpuConfig{0, spec_.compute.xcds, spec_.compute.cus_per_xcd, 1, options_.max_cohort_size,
                             spec_.model.dispatch.later_kernel_share});
  Outcome out;
  BottleneckObserver observer;
  if (s.tally) sim.add_observer(&observer);
  std::unique_ptr<DmaCollective> dma;
  MemoryLoadObserver memory_load(
      res, state,
      [&gpu, &dma] {
        gpu.refresh_all();
        if (dma) dma->refresh_queueing();
      },
      spec_.model.memory.hbm_queueing);
  const bool queueing = spec_.model.gemm.memory_stall_fraction > 0 ||
                        spec_.model.collective.memory_stall_fraction > 0 ||
                        spec_.model.dma.memory_stall_fraction > 0;
  if (s.gemm && s.coll && queueing) sim.add_observer(&memory_load);

  engine::KernelId gemm_k = -1;
  engine::KernelId comm_k = -1;
  std::shared_ptr<GemmWorkgroupModel> gemm_model;
  std::optional<CollectivePlan> coll_plan;
  bool comm_polluting = false;

  gpu.set_residency_listener([&](engine::GpuDispatcher& g) {
    for (int x = 0; x < spec_.compute.xcds; ++x) {
      state.set_resident(kGemmKernel, x, gemm_k >= 0 ? g.resident(gemm_k, x) : 0);
      state.set_resident(kCollectiveKernel, x, comm_k >= 0 ? g.resident(comm_k, x) : 0);
    }
    if (comm_k >= 0 && coll_plan) {
      const bool on = state.resident_total(kCollectiveKernel) > 0;
      if (on != comm_polluting) {
        state.llc_pollution_bytes += on ? coll_plan->llc_footprint : -coll_plan->llc_footprint;
        comm_polluting = on;
      }
    }
    g.refresh_all();
  });

  if (s.gemm) {
    const int cus = s.gemm_cus.value_or(spec_.compute.total_cus());
    GemmPlan plan = plan_gemm(*s.gemm, spec_, cus, s.gemm_beside_partition && s.gemm_cus.has_value());
    out.gemm_workgroups = plan.workgroups;
    engine::StreamConfig sc{"gemm_stream", s.gemm_priority, {}};
    if (s.gemm_cus) sc.mask = spread_mask(spec_, *s.gemm_cus, /*from_low=*/false);
    const engine::StreamId stream = gpu.add_stream(std::move(sc));
    state.declare_gemm(kGemmKernel, plan.geometry);
    gemm_model = std::make_shared<GemmWorkgroupModel>(plan, spec_, cache_model_, res, state);
    sim.at(s.gemm_launch, [&, stream, plan] {
      engine::KernelDesc d{
          fmt::format("gemm:{}", plan.gemm.tag.empty() ? plan.gemm.shape_string() : plan.gemm.tag),
          plan.workgroups,
          1,
          s_to_ps(spec_.model.dispatch.kernel_launch_latency),
          engine::FlowOwner{kGemmKernel, engine::KernelKind::gemm},
          plan.holds_cus};
      gemm_k = gpu.launch(stream, d, gemm_model, [&](TimePs now) {
        out.gemm_end = now;
        out.gemm_llc_bytes = gemm_model->bytes().llc;
        out.gemm_hbm_bytes = gemm_model->bytes().hbm;
      });
    });
  }

  if (s.coll) {
    const bool cu = s.impl == wl::CollectiveImpl::cu;
    coll_plan = plan_collective(
        *s.coll, spec_, s.gpus,
        s.coll_workgroups ? s.coll_workgroups : partition_channel_cap(*s.coll, spec_, s.comm_cus));
    out.comm_bytes_sent = coll_plan->bytes_sent;
    out.comm_llc_bytes = coll_plan->bytes_sent * coll_plan->llc_bytes_per_byte(cu);
    if (cu) {
      out.comm_workgroups = coll_plan->workgroups;
      engine::StreamConfig sc{"comm_stream", s.comm_priority, {}};
      if (s.comm_cus) sc.mask = spread_mask(spec_, *s.comm_cus, /*from_low=*/true);
      const engine::StreamId stream = gpu.add_stream(std::move(sc));
      auto model = std::make_shared<CuCollectiveModel>(*coll_plan, spec_, res, state,
                                                       is_own_partition(spec_, s.comm_cus));
      sim.at(s.comm_launch, [&, stream, model] {
        engine::KernelDesc d{fmt::format("comm:{}", wl::short_name(coll_plan->coll.op)),
                             coll_plan->workgroups, 1, model->launch_latency(),
                             engine::FlowOwner{kCollectiveKernel, engine::KernelKind::cu_collective}};
        comm_k = gpu.launch(stream, d, model, [&](TimePs now) { out.comm_end = now; });
      });
    } else {
      DmaOptions o;
      o.engines_used = s.engines.value_or(0);
      o.batched = s.impl == wl::CollectiveImpl::vendor_zero_cta;
      o.reduce_on_cu = s.impl == wl::CollectiveImpl::dma_hybrid;
      o.gpu = &gpu;
      o.kernel = kCollectiveKernel;
      o.cu_kernel = &comm_k;
      engine::StreamConfig sync{"comm_stream", s.comm_priority, {}};
      if (s.comm_cus) sync.mask = spread_mask(spec_, *s.comm_cus, /*from_low=*/true);
      o.sync_stream = gpu.add_stream(std::move(sync));
      dma = std::make_unique<DmaCollective>(sim, res, spec_, *coll_plan, state, o);
      out.engines = dma->engines_used();
      sim.at(s.comm_launch, [&] {
        out.comm_arrived = sim.now();
        dma->start([&](TimePs now) {
          out.comm_end = now;
          if (s.trace)
            s.trace->span("gpu0", engine::TraceTrack::host(), "dma collective", out.comm_arrived, now,
                          {engine::KernelKind::dma_transfer});
        });
        // Residency did not change, but LLC pollution did: refresh running GEMM cohorts.
        gpu.refresh_all();
      });
    }
  }

  sim.run();

  if (gemm_k >= 0) {
    const auto& st = gpu.stats(gemm_k);
    out.gemm_arrived = st.arrived;
    out.gemm_first_dispatch = st.first_dispatch;
  }
  if (comm_k >= 0) {
    const auto& st = gpu.stats(comm_k);
    out.comm_arrived = st.arrived;
    out.comm_first_dispatch = st.first_dispatch;
  }
  if (dma && !dma->transfers().empty()) out.comm_first_dispatch = dma->transfers().front().start;
  if (gemm_model) {
    // Hit rates with the kernel's full first wave resident (what a profiler reports).
    InterferenceState iso(spec_.compute.xcds);
    const GemmPlan& p = gemm_model->plan();
    const int per_xcd = static_cast<int>(
        std::min<std::int64_t>(p.workgroups / spec_.compute.xcds + 1,
                               (s.gemm_cus.value_or(spec_.compute.total_cus())) / spec_.compute.xcds));
    iso.declare_gemm(kGemmKernel, p.geometry);
    for (int x = 0; x < spec_.compute.xcds; ++x) iso.set_resident(kGemmKernel, x, per_xcd);
    GemmWorkgroupModel probe(p, spec_, cache_model_, res, iso);
    const GemmTraffic t = probe.traffic(
        engine::CohortContext{0, 0, per_xcd, 0, 0, engine::FlowOwner{kGemmKernel, engine::KernelKind::gemm}});
    out.first_hits = t.hits;
  }
  if (s.tally) out.tally = observer.tally();
  if ((s.gemm && out.gemm_end < 0) || (s.coll && out.comm_end < 0)) {
    throw ModelError("simulation ended with a kernel unfinished (deadlock in dispatch?)");
  }
  return out;
}

IsoGemmResult C3Simulator::iso_gemm(const wl::Gemm& gemm, std::optional<int> cus, bool beside_partition) {
  const std::string key = fmt::format("{}|{}|{}|{}", gemm.shape_string(), hw::to_string(gemm.dtype),
                                      cus.value_or(-1), beside_partition);
  if (auto it = gemm_cache_.find(key); it != gemm_cache_.end()) return it->second;
  Setup s;
  s.gemm = gemm;
  if (cus && *cus < spec_.compute.total_cus()) s.gemm_cus = cus;
  s.gemm_beside_partition = beside_partition;
  const Outcome o = simulate(s);
  IsoGemmResult r;
  r.time_us = us(o.gemm_end);
  r.cus = cus.value_or(spec_.compute.total_cus());
  r.workgroups = o.gemm_workgroups;
  r.l2_hit = o.first_hits.l2;
  r.llc_hit = o.first_hits.llc;
  r.llc_bytes = o.gemm_llc_bytes;
  r.hbm_bytes = o.gemm_hbm_bytes;
  gemm_cache_[key] = r;
  return r;
}

IsoCollResult C3Simulator::iso_coll(const wl::Collective& coll, int gpus, std::optional<int> workgroups,
                                    std::optional<int> engines, std::optional<int> partition_cus) {
  const std::string key =
      fmt::format("{}|{}|{}|{}|{}|{}|{}", wl::to_string(coll.op), coll.bytes, wl::to_string(coll.impl), gpus,
                  workgroups.value_or(coll.max_workgroups.value_or(-1)), engines.value_or(-1),
                  partition_cus.value_or(-1));
  if (auto it = coll_cache_.find(key); it != coll_cache_.end()) return it->second;
  Setup s;
  s.coll = coll;
  s.gpus = gpus;
  s.impl = coll.impl;
  s.coll_workgroups = workgroups;
  s.engines = engines;
  s.comm_cus = partition_cus;
  const Outcome o = simulate(s);
  IsoCollResult r;
  r.time_us = us(o.comm_end);
  r.workgroups = o.comm_workgroups;
  r.engines = o.engines;
  r.bytes_sent = o.comm_bytes_sent;
  r.llc_bytes = o.comm_llc_bytes;
  coll_cache_[key] = r;
  return r;
}

LaunchPlan C3Simulator::plan_of(const wl::Scenario& scenario, const Policy& policy) const {
  const int gpus = gpus_of(scenario);
  PolicyContext ctx{spec_, scenario, plan_gemm(scenario.gemm, spec_, spec_.compute.total_cus()).workgroups,
                    plan_collective(scenario.collective, spec_, gpus, std::nullopt).workgroups};
  return policy.plan(ctx);
}

C3Result C3Simulator::run(const wl::Scenario& scenario, const Policy& policy, engine::TraceRecorder* trace) {
  return run_plan(scenario, policy.name(), plan_of(scenario, policy), trace, options_.attribution);
}

C3Result C3Simulator::run_timing(const wl::Scenario& scenario, const Policy& policy) {
  return run_plan(scenario, policy.name(), plan_of(scenario, policy), nullptr, false);
}

C3Result C3Simulator::run_named(const wl::Scenario& scenario, const std::string& name) {
  auto sweep = [&](const std::string& family, bool include_plain_dma) {
    std::optional<C3Result> best;
    std::vector<std::string> names;
    if (include_plain_dma) names.emplace_back("dma");
    for (int cus : rp_sweep_cus(spec_)) names.push_back(fmt::format("{}:{}", family, cus));
    if (names.empty()) {
      // No split to try: the GPU has no more CUs than one CU-mask step.
      throw InputError(SourceLocation{spec_.name, 0, 0}, "spec.compute.cu_mask_granularity",
                       fmt::format("'{}' needs a GPU with more CUs ({}) than one CU-mask step ({}) to split",
                                   name, spec_.compute.total_cus(), spec_.compute.cu_mask_granularity));
    }
    for (const auto& n : names) {
      C3Result r = run_timing(scenario, *make_policy(n, spec_));  // attribution only for the winner
      if (!best || r.total_us < best->total_us) best = r;
    }
    auto winner = make_policy(best->policy, spec_);
    C3Result r = run(scenario, *winner);
    r.chosen = r.policy;
    r.policy = name;
    return r;
  };
  if (name == "rp_best") return sweep("rp", false);
  if (name == "sp_rp_best") return sweep("sp_rp", false);
  if (name == "dma_rp_best") return sweep("dma_rp", true);
  auto policy = make_policy(name, spec_);
  return run(scenario, *policy);
}

C3Result C3Simulator::run_plan(const wl::Scenario& scenario, const std::string& name, const LaunchPlan& plan,
                               engine::TraceRecorder* trace, bool attribution) {
  const int gpus = gpus_of(scenario);
  // Simulation is deterministic, so one scenario under one launch plan is simulated once per
  // simulator: sweeps and the heuristics' picks ask for the same runs again. A traced run is
  // always simulated (the trace is the point).
  const std::string key =
      fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", scenario.gemm.shape_string(),
                  hw::to_string(scenario.gemm.dtype), wl::to_string(scenario.collective.op),
                  scenario.collective.bytes, scenario.collective.max_workgroups.value_or(-1), gpus,
                  plan.comm_first, plan.gemm_priority, plan.comm_priority, plan.gemm_cus.value_or(-1),
                  plan.comm_cus.value_or(-1), wl::to_string(plan.comm_impl));
  if (trace == nullptr) {
    // An entry serves a request for attribution only if it was simulated with it.
    const auto hit = c3_cache_.find(key);
    if (hit != c3_cache_.end() && (!attribution || hit->second.gemm_attribution)) {
      C3Result r = hit->second;
      r.scenario = scenario.name;
      r.policy = name;
      if (!attribution) {
        r.gemm_attribution.reset();
        r.coll_attribution.reset();
      }
      return r;
    }
  }
  C3Result r = simulate_plan(scenario, name, plan, trace, attribution);
  if (trace == nullptr) c3_cache_[key] = r;
  return r;
}

C3Result C3Simulator::simulate_plan(const wl::Scenario& scenario, const std::string& name,
                                    const LaunchPlan& plan, engine::TraceRecorder* trace, bool attribution) {
  const int gpus = gpus_of(scenario);
  wl::Collective base_coll = scenario.collective;
  base_coll.impl = wl::CollectiveImpl::cu;
  C3Result r;
  r.scenario = scenario.name;
  r.policy = name;
  r.impl = plan.comm_impl;
  r.iso_gemm_us = iso_gemm(scenario.gemm).time_us;
  r.iso_coll_us = iso_coll(base_coll, gpus).time_us;

  if (!attribution && trace == nullptr) {
    const wl::Program program =
        apply_launch_plan(wl::program_from_scenario(scenario), plan, spec_.dma.reduce_bw > 0);
    const ProgramRun run = programs_.simulate(program);
    const KernelRun& g = run.kernels[static_cast<size_t>(program.kernel_index("gemm"))];
    const KernelRun& c = run.kernels[static_cast<size_t>(program.kernel_index("coll"))];
    r.total_us = run.step_us;
    r.gemm_us = us(g.end_ps - g.launch_ps);
    r.coll_us = us(c.end_ps - c.launch_ps);
    return r;
  }
  Setup s;
  s.gemm = scenario.gemm;
  s.gemm_cus = plan.gemm_cus;
  s.gemm_beside_partition = plan.gemm_cus.has_value();  // every partitioned policy sets the GEMM's units
  s.gemm_priority = plan.gemm_priority;
  s.coll = scenario.collective;
  s.coll->impl = plan.comm_impl;
  s.gpus = gpus;
  s.impl = plan.comm_impl;
  s.comm_cus = plan.comm_cus;
  s.comm_priority = plan.comm_priority;
  const TimePs gap = s_to_ps(spec_.model.dispatch.c3_launch_gap);
  s.gemm_launch = plan.comm_first ? gap : 0;
  s.comm_launch = plan.comm_first ? 0 : gap;
  s.trace = trace;
  s.tally = attribution;
  const Outcome full = simulate(s);
  r.total_us = us(std::max(full.gemm_end, full.comm_end));
  r.gemm_us = us(full.gemm_end - s.gemm_launch);
  r.coll_us = us(full.comm_end - s.comm_launch);

  if (attribution) {
    Setup cf = s;
    cf.trace = nullptr;
    cf.tally = false;
    cf.private_memory = true;
    cf.isolate_caches = true;
    cf.isolate_queueing = true;
    const Outcome compute_only = simulate(cf);
    cf.isolate_caches = false;
    const Outcome with_cache = simulate(cf);
    cf.isolate_queueing = false;
    const Outcome with_latency = simulate(cf);
    // The isolated references for each kernel's own implementation and launch.
    const double iso_g = r.iso_gemm_us;
    wl::Collective own = scenario.collective;
    own.impl = plan.comm_impl;
    const double iso_c = iso_coll(own, gpus).time_us;

    // Each stage's time for one kernel: compute-only, + cache sharing, + latency queueing, full.
    struct Stages {
      double compute, cache, latency, full;
    };
    auto attribute = [&](const Stages& t, double iso_us, TimePs arrived, TimePs first,
                         const std::map<std::string, double>& weights) {
      Attribution a;
      a.slowdown_us = t.full - iso_us;
      a.dispatch_delay_us = (first >= 0 && arrived >= 0) ? std::max(0.0, us(first - arrived)) : 0.0;
      a.cus_unavailable_us = std::max(0.0, t.compute - iso_us - a.dispatch_delay_us);
      a.cache_us = t.cache - t.compute;
      a.memory_latency_us = t.latency - t.cache;
      const double bw = t.full - t.latency;
      double total_w = 0;
      for (const auto& [k, v] : weights) total_w += v;
      if (total_w > 0) {
        for (const auto& [k, v] : weights) a.bandwidth_us[k] = bw * v / total_w;
      } else if (std::fabs(bw) > 0) {
        a.bandwidth_us["unattributed"] = bw;
      }
      return a;
    };
    const Stages gemm_t{us(compute_only.gemm_end - s.gemm_launch), us(with_cache.gemm_end - s.gemm_launch),
                        us(with_latency.gemm_end - s.gemm_launch), r.gemm_us};
    const Stages coll_t{us(compute_only.comm_end - s.comm_launch), us(with_cache.comm_end - s.comm_launch),
                        us(with_latency.comm_end - s.comm_launch), r.coll_us};
    r.gemm_attribution =
        attribute(gemm_t, iso_g, full.gemm_arrived, full.gemm_first_dispatch, full.tally.of(kGemmKernel));
    r.coll_attribution = attribute(coll_t, iso_c, full.comm_arrived, full.comm_first_dispatch,
                                   full.tally.of(kCollectiveKernel));
  }
  return r;
}

}  // namespace c3sim::models
