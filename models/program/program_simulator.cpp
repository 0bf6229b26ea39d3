#include "models/program/program_simulator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "models/kernels/collective_plan.h"
#include "models/kernels/cu_collective.h"
#include "models/kernels/dma_collective.h"
#include "models/kernels/dma_copy.h"
#include "models/kernels/fused_kernel.h"
#include "models/kernels/gemm_kernel.h"
#include "models/kernels/measured_kernel.h"
#include "models/kernels/memory_kernel.h"
#include "models/kernels/network_plan.h"
#include "models/node/interference_state.h"
#include "models/node/memory_load_observer.h"
#include "models/node/node_resources.h"
#include "models/node/power_window.h"
#include "models/program/counterfactuals.h"
#include "sim/base/errors.h"
#include "sim/engine/gpu_dispatcher.h"
#include "workloads/program_io.h"

namespace c3sim::models {

namespace {

// A CU mask of `cus` CUs spread evenly over the XCDs, `skip` CUs in from the low or the high end
// of each XCD: collectives and memory kernels' streams pack up from the low end, GEMM streams down
// from the high end, so a partitioned pair gets disjoint masks (the pair simulator's layout).
engine::CuMask spread_mask(const hw::NodeSpec& spec, int cus, bool from_low, const std::vector<int>& skip) {
  const int X = spec.compute.xcds;
  const int C = spec.compute.cus_per_xcd;
  engine::CuMask m = engine::CuMask::none(X * C);
  for (int x = 0; x < X; ++x) {
    const int here = cus / X + (x < cus % X ? 1 : 0);
    const int s = skip[static_cast<size_t>(x)];
    for (int i = s; i < s + here && i < C; ++i) m.set(x * C + (from_low ? i : C - 1 - i), true);
  }
  return m;
}

bool on_dispatcher(const wl::ProgramKernel& k) {
  return k.kind == wl::KernelKind::gemm || k.kind == wl::KernelKind::memory ||
         k.kind == wl::KernelKind::measured || k.kind == wl::KernelKind::fused ||
         (k.kind == wl::KernelKind::collective && k.collective.impl == wl::CollectiveImpl::cu);
}

}  // namespace

ProgramSimulator::ProgramSimulator(hw::NodeSpec spec, int max_cohort_size)
    : spec_(std::move(spec)), max_cohort_size_(max_cohort_size), cache_model_(spec_) {}

std::vector<double> ProgramSimulator::launch_times_us(const wl::Program& p) const {
  std::vector<double> out;
  TimePs t = us_to_ps(p.start_us);
  const TimePs default_gap =
      p.launch_gap_us ? us_to_ps(*p.launch_gap_us) : s_to_ps(spec_.model.dispatch.c3_launch_gap);
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    if (i > 0) t += p.kernels[i].gap_us ? us_to_ps(*p.kernels[i].gap_us) : default_gap;
    out.push_back(ps_to_us(t));
  }
  return out;
}

int program_nodes(const wl::Program& program, const hw::NodeSpec& spec) {
  return program.nodes.value_or(spec.cluster.nodes > 0 ? spec.cluster.nodes : 1);
}

void check_program_nodes(const wl::Program& program, const hw::NodeSpec& spec) {
  const int nodes = program_nodes(program, spec);
  if (nodes <= 1) return;
  const std::string key = program.name + ".nodes";
  if (!spec.cluster.present()) {
    throw InputError(
        program.location, key,
        fmt::format("{} nodes need a hardware file with a cluster section ({} has none)", nodes, spec.name));
  }
  for (const wl::ProgramKernel& k : program.kernels) {
    if (k.kind == wl::KernelKind::collective && k.collective.impl != wl::CollectiveImpl::cu) {
      throw InputError(k.location, program.name + ".kernels." + k.name + ".impl",
                       fmt::format("a collective over {} nodes runs on CUs (impl: cu); '{}' is not modelled "
                                   "across nodes",
                                   nodes, wl::to_string(k.collective.impl)));
    }
  }
}

ProgramRun ProgramSimulator::simulate(const wl::Program& p, const ProgramKnobs& knobs) {
  const double start = knobs.power_start_fixed ? knobs.power_start : steady_power_start(p, knobs);
  if (start == knobs.power_start) return simulate_once(p, knobs);
  ProgramKnobs run = knobs;
  run.power_start = start;
  return simulate_once(p, run);
}

double ProgramSimulator::steady_power_start(const wl::Program& p, const ProgramKnobs& knobs) {
  const hw::PowerModel& power = spec_.model.power;
  if (!p.steady_state || !(power.limit > 0 && power.window > 0)) return knobs.power_start;
  // Iterations of a loop run back to back: each starts where the last left the averaged power, so
  // the start is the fixed point of end(start). An iteration shorter than the window moves the
  // average only part of the way (end - start shrinks by about exp(-T / window) per run), so the
  // fixed point is found by secant steps on end(x) - x, nearly linear in x, from the limit (a board
  // that has been running the loop) and from where that run ended.
  constexpr int kMaxRuns = 8;
  constexpr double kTolerance = 1e-3;
  const double allowed = power.limit - power.static_power;
  ProgramKnobs quiet = knobs;
  quiet.trace = nullptr;
  quiet.tally = false;
  const auto end_of = [&](double x) {
    quiet.power_start = x;
    return simulate_once(p, quiet).power_end;
  };
  double x0 = allowed;
  double g0 = end_of(x0) - x0;
  double start = x0 + g0;
  for (int i = 1; i < kMaxRuns && std::abs(g0) > kTolerance * allowed; ++i) {
    const double g = end_of(start) - start;
    if (std::abs(g) <= kTolerance * allowed) break;
    const double next = g0 != g ? start - g * (start - x0) / (g - g0) : start + g;
    x0 = start;
    g0 = g;
    start = std::max(0.0, next);
  }
  return start;
}

ProgramRun ProgramSimulator::simulate_once(const wl::Program& p, const ProgramKnobs& knobs) {
  wl::validate_program(p);
  check_program_nodes(p, spec_);
  const int gpus = p.gpus.value_or(spec_.interconnect.gpus);
  const int nodes = program_nodes(p, spec_);
  const int X = spec_.compute.xcds;
  const size_t n = p.kernels.size();

  engine::Simulation sim;
  sim.set_trace(knobs.trace);
  NodeResources res(sim, spec_, knobs.private_memory, nodes);
  InterferenceState state(X);
  state.isolate_caches = knobs.isolate_caches;
  state.isolate_queueing = knobs.isolate_queueing;
  state.cache_hidden = knobs.hide_from_caches;
  engine::GpuDispatcher gpu(sim, engine::GpuConfig{0, X, spec_.compute.cus_per_xcd, 1, max_cohort_size_,
                                                   spec_.model.dispatch.later_kernel_share});
  BottleneckObserver bottlenecks;
  if (knobs.tally) sim.add_observer(&bottlenecks);

  // Per kernel: what the run needs to remember.
  struct Live {
    engine::KernelId id = -1;                  // dispatcher kernel
    std::optional<CollectivePlan> plan;        // collectives
    std::unique_ptr<DmaCollective> dma;        // DMA collectives
    std::unique_ptr<DmaCopy> copy;             // DMA copies
    std::shared_ptr<GemmWorkgroupModel> gemm;  // GEMMs while they run (dropped at their end)
    // A CU collective held at its end gate (all-GPU mode), whose channels wait on their CUs after
    // sending: its own work's end is the model's, not the kernel's.
    std::shared_ptr<CuCollectiveModel> held_collective;
    std::int64_t gemm_workgroups = 0;
    double fused_bytes_sent = 0;  // a fused kernel's sends to the peers (it has no collective plan)
    double gemm_llc_bytes = 0, gemm_hbm_bytes = 0;  // a GEMM's traffic, kept when it ends
    bool polluting = false;                         // CU workgroups resident: its LLC footprint is counted
    bool watched = false;  // released, in an interference class: the residency listener tracks it
    bool released = false;
    bool gated = false;  // released, held by a start gate
    bool ended = false;
    TimePs launch = 0, ready = -1, began = -1, end = -1, body_end = -1;
  };
  std::vector<Live> live(n);

  // Streams in declaration order; masks packed from each end per the header comment.
  std::vector<engine::StreamId> stream_ids;
  std::vector<bool> stream_has_gemm(p.streams.size(), false);
  for (size_t i = 0; i < n; ++i) {
    const wl::ProgramKernel& k = p.kernels[i];
    if (k.kind == wl::KernelKind::gemm ||
        (k.kind == wl::KernelKind::fused && k.fused.producer == wl::KernelKind::gemm))
      stream_has_gemm[p.stream_of(i)] = true;
  }
  std::vector<int> low_used(static_cast<size_t>(X), 0), high_used(static_cast<size_t>(X), 0);
  for (size_t s = 0; s < p.streams.size(); ++s) {
    const wl::ProgramStream& ps = p.streams[s];
    engine::StreamConfig sc{ps.name, ps.priority, {}};
    if (ps.cus) {
      const bool from_low = !stream_has_gemm[s];
      std::vector<int>& used = from_low ? low_used : high_used;
      sc.mask = spread_mask(spec_, *ps.cus, from_low, used);
      for (int x = 0; x < X; ++x) used[static_cast<size_t>(x)] += *ps.cus / X + (x < *ps.cus % X ? 1 : 0);
    }
    stream_ids.push_back(gpu.add_stream(std::move(sc)));
  }

  // Partitioned engines (model.dma.partition_engines): equal contiguous engine sets, one per stream
  // that carries DMA collectives, in stream order; shared: every collective from engine 0 up.
  std::vector<std::pair<int, int>> engine_set(p.streams.size(), {0, 0});
  if (spec_.model.dma.partition_engines) {
    std::vector<size_t> dma_streams;
    for (size_t s = 0; s < p.streams.size(); ++s) {
      const bool carries = std::any_of(p.kernels.begin(), p.kernels.end(), [&](const wl::ProgramKernel& k) {
        return k.kind == wl::KernelKind::collective && k.collective.impl != wl::CollectiveImpl::cu &&
               k.stream == p.streams[s].name;
      });
      if (carries) dma_streams.push_back(s);
    }
    const int E = spec_.dma.engines;
    const int G = static_cast<int>(dma_streams.size());
    for (int j = 0; j < G; ++j) {
      // More DMA streams than engines: one engine each, round robin.
      engine_set[dma_streams[static_cast<size_t>(j)]] =
          G > E ? std::pair<int, int>{j % E, 1} : std::pair<int, int>{j * E / G, (j + 1) * E / G - j * E / G};
    }
  }

  bool has_gemm = false, has_other = false;
  for (const auto& k : p.kernels) {
    const bool gemm = k.kind == wl::KernelKind::gemm ||
                      (k.kind == wl::KernelKind::fused && k.fused.producer == wl::KernelKind::gemm);
    (gemm ? has_gemm : has_other) = true;
  }

  // Kernels with a DMA collective, ascending (the refresh visits them in program order): a refresh
  // runs on most steps, and a scan of every kernel there made a run quadratic in its length.
  std::vector<int> dma_kernels;
  auto refresh_all = [&] {
    gpu.refresh_all();
    for (const int i : dma_kernels) live[static_cast<size_t>(i)].dma->refresh_queueing();
  };
  MemoryLoadObserver memory_load(res, state, refresh_all, spec_.model.memory.hbm_queueing);
  const bool queueing = spec_.model.gemm.memory_stall_fraction > 0 ||
                        spec_.model.collective.memory_stall_fraction > 0 ||
                        spec_.model.dma.memory_stall_fraction > 0;
  if (has_gemm && has_other && queueing) sim.add_observer(&memory_load);
  // After the memory observer: it may re-rate flows, and the power draw is read from their rates.
  std::optional<PowerWindowObserver> power_window;
  if (res.power() >= 0 && spec_.model.power.window > 0) {
    const hw::PowerModel& pm = spec_.model.power;
    power_window.emplace(sim, res.power(), pm.limit - pm.static_power, pm.window, knobs.power_start,
                         pm.rate_exponent);
    sim.add_observer(&*power_window);
  }

  // The listener visits, in ascending kernel order (so pollution sums in a fixed order), the
  // released kernels of an interference class whose residency may have moved: those with
  // workgroups on the dispatcher now, and those the state still counts as resident. Any other
  // kernel's count is 0 on both sides, where set_resident changes nothing. (Visiting every
  // released kernel instead made each residency change cost O(kernels queued on the streams).)
  std::vector<int> resident_kernels;  // kernels with state residency, ascending
  std::vector<int> visit;             // scratch
  gpu.set_residency_listener([&](engine::GpuDispatcher& g) {
    visit.assign(resident_kernels.begin(), resident_kernels.end());
    for (const engine::KernelId id : g.running_kernels()) {
      if (const int i = g.desc(id).owner.kernel; i >= 0) visit.push_back(i);
    }
    std::sort(visit.begin(), visit.end());
    visit.erase(std::unique(visit.begin(), visit.end()), visit.end());
    resident_kernels.clear();
    for (const int i : visit) {
      Live& l = live[static_cast<size_t>(i)];
      if (!l.watched || l.id < 0) continue;
      for (int x = 0; x < X; ++x) state.set_resident(i, x, g.resident(l.id, x));
      // A CU collective, or a DMA collective's CU reduce-scatter phase (l.id is that kernel; a
      // copy-only DMA collective has none), streams its buffers through the LLC while resident, as
      // C3Simulator's attributed run counts it.
      if (l.plan) {
        const bool on = state.resident_total(i) > 0;
        if (on != l.polluting) {
          state.llc_pollution_bytes += on ? l.plan->llc_footprint : -l.plan->llc_footprint;
          l.polluting = on;
        }
      }
      if (state.resident_total(i) > 0) resident_kernels.push_back(i);
    }
    g.refresh_all();
  });

  // Stream order: for each stream, its kernels in launch order; per kernel, its stream and the
  // kernels it waits for, as indices (resolved once: release_ready runs on every kernel end and
  // every host launch, and a name lookup there made a run quadratic in the program's length).
  std::vector<size_t> stream_of(n);
  std::vector<std::vector<int>> on_stream(p.streams.size());
  for (size_t i = 0; i < n; ++i) {
    stream_of[i] = p.stream_of(i);
    on_stream[stream_of[i]].push_back(static_cast<int>(i));
  }
  const std::vector<std::vector<int>> waits_for = wl::dependency_indices(p);
  std::vector<size_t> next_on_stream(p.streams.size(), 0);
  std::vector<bool> host_launched(n, false);

  const auto gate_of = [](const std::vector<TimePs>& gates, size_t i) {
    return i < gates.size() ? gates[i] : TimePs{0};
  };
  std::function<void()> release_ready;
  auto end_kernel = [&](int i, TimePs at) {
    live[static_cast<size_t>(i)].ended = true;
    live[static_cast<size_t>(i)].end = at;
    release_ready();
  };
  auto finished = [&](int i, TimePs now) {
    Live& done = live[static_cast<size_t>(i)];
    done.body_end = now;
    if (done.held_collective) {
      if (const TimePs sent = done.held_collective->work_end(); sent >= 0)
        done.body_end = std::min(now, sent);
      done.held_collective.reset();
    }
    if (done.gemm) {  // keep its traffic, not the model
      done.gemm_llc_bytes = done.gemm->bytes().llc;
      done.gemm_hbm_bytes = done.gemm->bytes().hbm;
      done.gemm.reset();
    }
    if (const TimePs gate = gate_of(knobs.end_gate, static_cast<size_t>(i)); gate > now) {
      sim.at(gate, [&end_kernel, i, gate] { end_kernel(i, gate); });
    } else {
      end_kernel(i, now);
    }
  };

  std::function<void(int)> begin_work;
  auto release = [&](int i) {
    Live& l = live[static_cast<size_t>(i)];
    l.released = true;
    l.ready = sim.now();
    const wl::ProgramKernel& k = p.kernels[static_cast<size_t>(i)];
    // A measured kernel holds CUs but is in no interference class (measured_kernel.h); a DMA
    // copy holds none.
    if (k.kind != wl::KernelKind::measured && k.kind != wl::KernelKind::dma_copy) l.watched = true;
    // A library (CU) collective kernel is not held at its start gate: it launches at this rank's
    // arrival and its channels spin on their CUs until the last rank's kernel is up (begin_work), so
    // a traced NCCL kernel's duration includes the wait and the kernels beside it lose those CUs.
    const bool spins = k.kind == wl::KernelKind::collective && k.collective.impl == wl::CollectiveImpl::cu;
    if (const TimePs gate = gate_of(knobs.start_gate, static_cast<size_t>(i)); gate > sim.now() && !spins) {
      l.gated = true;
      sim.at(gate, [&, i] {
        live[static_cast<size_t>(i)].gated = false;
        begin_work(i);
        release_ready();
      });
      return;
    }
    begin_work(i);
  };

  // Kernel i's GEMM model (a GEMM's, or a fused kernel's producer), declared to the caches as kernel
  // i's and kept in its Live entry while it runs.
  auto start_gemm_model = [&](int i, const wl::ProgramKernel& k, const wl::ProgramStream& ps, Live& l) {
    const int cus = ps.cus.value_or(spec_.compute.total_cus());
    GemmPlan plan = plan_gemm(k.gemm, spec_, cus, ps.cus.has_value() && !ps.own_group);
    state.declare_gemm(i, plan.geometry);
    l.gemm = std::make_shared<GemmWorkgroupModel>(plan, spec_, cache_model_, res, state);
    l.gemm_workgroups = plan.workgroups;
    return plan;
  };

  begin_work = [&](int i) {
    const wl::ProgramKernel& k = p.kernels[static_cast<size_t>(i)];
    Live& l = live[static_cast<size_t>(i)];
    l.began = sim.now();
    const size_t stream_index = stream_of[static_cast<size_t>(i)];
    const engine::StreamId stream = stream_ids[stream_index];
    const wl::ProgramStream& ps = p.streams[stream_index];
    switch (k.kind) {
      case wl::KernelKind::gemm: {
        const GemmPlan plan = start_gemm_model(i, k, ps, l);
        const std::shared_ptr<GemmWorkgroupModel> model = l.gemm;
        // Kernel ids are the program's kernel indices: every flow of kernel i carries owner i.
        engine::KernelDesc d{fmt::format("gemm:{}", k.name),
                             plan.workgroups,
                             1,
                             s_to_ps(spec_.model.dispatch.kernel_launch_latency),
                             engine::FlowOwner{i, engine::KernelKind::gemm},
                             plan.holds_cus};
        l.id = gpu.launch(stream, d, model, [&finished, i](TimePs now) { finished(i, now); });
        break;
      }
      case wl::KernelKind::memory: {
        auto model = std::make_shared<MemoryKernelModel>(k.memory, spec_, res, state);
        engine::KernelDesc d{fmt::format("mem:{}", k.name), model->workgroups(), 1,
                             s_to_ps(spec_.model.dispatch.kernel_launch_latency),
                             engine::FlowOwner{i, engine::KernelKind::memory}};
        l.id = gpu.launch(stream, d, model, [&finished, i](TimePs now) { finished(i, now); });
        break;
      }
      case wl::KernelKind::measured: {
        auto model = std::make_shared<MeasuredKernelModel>(k.measured,
                                                           ps.cus.value_or(spec_.compute.total_cus()), res);
        engine::KernelDesc d{fmt::format("measured:{}", k.name), model->workgroups(), 1,
                             s_to_ps(spec_.model.dispatch.kernel_launch_latency),
                             engine::FlowOwner{i, engine::KernelKind::memory}};
        l.id = gpu.launch(stream, d, model, [&finished, i](TimePs now) { finished(i, now); });
        break;
      }
      case wl::KernelKind::collective: {
        l.plan = plan_collective(k.collective, spec_, gpus,
                                 partition_channel_cap(k.collective, spec_, ps.cus), nodes);
        if (k.collective.impl == wl::CollectiveImpl::cu) {
          auto model = std::make_shared<CuCollectiveModel>(*l.plan, spec_, res, state,
                                                           is_own_partition(spec_, ps.cus));
          // Released before its start gate (the last rank's arrival): its channels spin until then.
          if (const TimePs gate = gate_of(knobs.start_gate, static_cast<size_t>(i)); gate > sim.now())
            model->wait_for_peers(gate + model->launch_latency());
          // Held at its end gate (the last peer's data lands later): its channels wait on their CUs.
          if (const TimePs gate = gate_of(knobs.end_gate, static_cast<size_t>(i)); gate > 0) {
            model->hold_until(gate);
            l.held_collective = model;
          }
          engine::KernelDesc d{fmt::format("comm:{}", k.name), l.plan->workgroups, 1, model->launch_latency(),
                               engine::FlowOwner{i, engine::KernelKind::cu_collective}};
          l.id = gpu.launch(stream, d, model, [&finished, i](TimePs now) { finished(i, now); });
        } else {
          DmaOptions o;
          o.batched = k.collective.impl == wl::CollectiveImpl::vendor_zero_cta;
          o.reduce_on_cu = k.collective.impl == wl::CollectiveImpl::dma_hybrid;
          o.cu_kernel = &l.id;  // a CU reduce-scatter phase's workgroups count as collective residency
          const auto& set = engine_set[stream_index];
          o.first_engine = set.first;
          o.engine_count = set.second;
          o.gpu = &gpu;
          o.sync_stream = stream;
          o.kernel = i;
          l.dma = std::make_unique<DmaCollective>(sim, res, spec_, *l.plan, state, o);
          dma_kernels.insert(std::lower_bound(dma_kernels.begin(), dma_kernels.end(), i), i);
          const TimePs began = sim.now();
          l.dma->start([&finished, &knobs, i, began, name = k.name](TimePs now) {
            if (knobs.trace)
              knobs.trace->span("gpu0", engine::TraceTrack::host(), fmt::format("dma {}", name), began, now,
                                {engine::KernelKind::dma_transfer});
            finished(i, now);
          });
          // Residency did not change, but LLC pollution did: refresh running GEMM cohorts.
          gpu.refresh_all();
        }
        break;
      }
      case wl::KernelKind::fused: {
        // The producer's own model does the compute phase; as a GEMM it is one for the caches too.
        // Over several nodes the collective's network plan says which share of the bytes goes to
        // peers on other nodes (NIC puts); the rest crosses the links. The puts are the kernel's own:
        // NVLink SHARP's reduction in the switch is the library's (NVLSTree), so it sends what the
        // library's ring or tree would.
        CollectivePlan plan = plan_collective(k.collective, spec_, gpus, std::nullopt, nodes);
        if (plan.network && plan.network->algorithm == NetworkAlgorithm::nvls_tree) {
          hw::NodeSpec without_nvls = spec_;
          without_nvls.model.collective.nvls_all_reduce_bw = 0;
          plan = plan_collective(k.collective, without_nvls, gpus, std::nullopt, nodes);
        }
        std::shared_ptr<engine::WorkgroupModel> producer;
        std::int64_t workgroups = 0;
        engine::KernelKind owner_kind = engine::KernelKind::memory;
        bool holds_cus = false;
        if (k.fused.producer == wl::KernelKind::gemm) {
          const GemmPlan gp = start_gemm_model(i, k, ps, l);
          producer = l.gemm;
          workgroups = gp.workgroups;
          owner_kind = engine::KernelKind::gemm;
          holds_cus = gp.holds_cus;
        } else {
          // The fused variant's own occupancy where its records give one.
          wl::MemoryKernel fused_memory = k.memory;
          if (fused_memory.gather && fused_memory.gather->fused_threads_per_cu)
            fused_memory.gather->threads_per_cu = *fused_memory.gather->fused_threads_per_cu;
          auto memory = std::make_shared<MemoryKernelModel>(fused_memory, spec_, res, state);
          memory->store_to_peers(plan.bytes_sent);
          workgroups = memory->workgroups();
          producer = std::move(memory);
        }
        l.fused_bytes_sent = plan.bytes_sent;
        auto model = std::make_shared<FusedKernelModel>(std::move(producer), workgroups, plan,
                                                        k.fused.messages_per_workgroup, spec_, res);
        engine::KernelDesc d{fmt::format("fused:{}", k.name),
                             workgroups,
                             1,
                             s_to_ps(spec_.model.dispatch.kernel_launch_latency),
                             engine::FlowOwner{i, owner_kind},
                             holds_cus};
        l.id = gpu.launch(stream, d, model, [&finished, i](TimePs now) { finished(i, now); });
        break;
      }
      case wl::KernelKind::dma_copy: {
        l.copy = std::make_unique<DmaCopy>(sim, res, spec_, k.dma, fmt::format("copy {}", k.name),
                                           engine::FlowOwner{i, engine::KernelKind::dma_transfer});
        l.copy->start([&finished, i](TimePs now) { finished(i, now); });
        break;
      }
    }
  };

  // Kernels that become ready at the same instant (several waits met by one kernel's end) reach
  // the dispatcher in host launch order: the order the host enqueued them.
  release_ready = [&] {
    for (;;) {
      int pick = -1;
      size_t pick_stream = 0;
      for (size_t s = 0; s < on_stream.size(); ++s) {
        if (next_on_stream[s] >= on_stream[s].size()) continue;
        const int i = on_stream[s][next_on_stream[s]];
        const wl::ProgramKernel& k = p.kernels[static_cast<size_t>(i)];
        if (!host_launched[static_cast<size_t>(i)]) continue;
        bool deps = true;
        for (const int a : waits_for[static_cast<size_t>(i)])
          deps = deps && live[static_cast<size_t>(a)].ended;
        if (!deps) continue;
        if (next_on_stream[s] > 0) {
          const auto prev = static_cast<size_t>(on_stream[s][next_on_stream[s] - 1]);
          // Behind a kernel still held at its start gate, the stream waits (launch order on it).
          if (live[prev].gated) continue;
          const bool both_cu = on_dispatcher(k) && on_dispatcher(p.kernels[prev]);
          const bool held = prev < knobs.hold_stream.size() && knobs.hold_stream[prev];
          if ((!both_cu || held) && !live[prev].ended) continue;
        }
        if (pick < 0 || i < pick) {
          pick = i;
          pick_stream = s;
        }
      }
      if (pick < 0) return;
      ++next_on_stream[pick_stream];
      release(pick);
    }
  };

  // Engine time is the ranks' common clock: this rank's host starts at its start_us.
  const TimePs first_launch = us_to_ps(p.start_us);
  TimePs t = first_launch;
  const TimePs default_gap =
      p.launch_gap_us ? us_to_ps(*p.launch_gap_us) : s_to_ps(spec_.model.dispatch.c3_launch_gap);
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) t += p.kernels[i].gap_us ? us_to_ps(*p.kernels[i].gap_us) : default_gap;
    live[i].launch = t;
    sim.at(t, [&, i] {
      host_launched[i] = true;
      release_ready();
    });
  }

  sim.run();

  ProgramRun out;
  if (power_window) {
    out.power_start = knobs.power_start;
    out.power_end = power_window->average();
  }
  out.kernels.reserve(n);
  const std::vector<int> prev_on_stream = wl::stream_predecessors(p);
  TimePs last = 0;
  for (size_t i = 0; i < n; ++i) {
    const Live& l = live[i];
    if (!l.ended) {
      throw ModelError(fmt::format("program '{}': kernel '{}' never finished (deadlock in dispatch?)", p.name,
                                   p.kernels[i].name));
    }
    // A CU kernel is handed to the dispatcher behind its stream predecessor; it is ready when
    // that one has ended.
    TimePs ready = l.ready;
    if (const int prev = prev_on_stream[i]; prev >= 0)
      ready = std::max(ready, live[static_cast<size_t>(prev)].end);
    TimePs start = ready;
    if (l.id >= 0) start = gpu.stats(l.id).first_dispatch;
    if (l.dma && !l.dma->transfers().empty()) {
      const TimePs first = l.dma->transfers().front().start;
      start = l.id >= 0 ? std::min(start, first) : first;
    }
    KernelRun r;
    r.name = p.kernels[i].name;
    r.kind = p.kernels[i].kind;
    r.stream = p.kernels[i].stream;
    r.launch_us = ps_to_us(l.launch);
    r.ready_us = ps_to_us(ready);
    r.start_us = ps_to_us(start);
    r.end_us = ps_to_us(l.end);
    r.launch_ps = l.launch;
    r.ready_ps = ready;
    r.end_ps = l.end;
    r.body_end_ps = l.body_end;
    // Dispatch as a profiler sees it: a CU kernel from the dispatcher's own stats; a DMA
    // collective from its first copy (its CU phase, if any, counts as the arrival).
    r.arrived_ps = l.id >= 0 ? gpu.stats(l.id).arrived : l.began;
    r.first_dispatch_ps = l.id >= 0 ? gpu.stats(l.id).first_dispatch : -1;
    if (l.dma && !l.dma->transfers().empty()) r.first_dispatch_ps = l.dma->transfers().front().start;
    if (l.id >= 0) r.workgroups = gpu.stats(l.id).workgroups;
    if (l.gemm_workgroups > 0) {
      r.workgroups = l.gemm_workgroups;
      r.llc_bytes = l.gemm_llc_bytes;
      r.hbm_bytes = l.gemm_hbm_bytes;
    }
    if (l.plan) {
      const bool cu = p.kernels[i].collective.impl == wl::CollectiveImpl::cu;
      r.workgroups = cu ? l.plan->workgroups : 0;
      r.bytes_sent = l.plan->bytes_sent;
      r.llc_bytes = l.plan->bytes_sent * l.plan->llc_bytes_per_byte(cu);
    }
    if (l.fused_bytes_sent > 0) r.bytes_sent = l.fused_bytes_sent;
    if (l.dma) r.engines = l.dma->engines_used();
    out.kernels.push_back(r);
    last = std::max(last, l.end);
  }
  out.step_us = ps_to_us(last - first_launch);
  if (knobs.tally) out.tally = bottlenecks.tally();
  return out;
}

double ProgramSimulator::isolated_us(const wl::Program& p, int kernel) {
  const wl::ProgramKernel& k = p.kernels.at(static_cast<size_t>(kernel));
  wl::Program alone;
  alone.name = "isolated";
  alone.gpus = p.gpus.value_or(spec_.interconnect.gpus);
  alone.nodes = p.nodes;
  wl::ProgramStream s = *p.stream(k.stream);
  alone.streams = {s};
  wl::ProgramKernel only = k;
  // One name for every isolated kernel, and no trace kernel name: the memo key ignores what does
  // not change the run (and writing a long `source` into every kernel's key was a visible share
  // of a long program's run).
  only.name = std::string(1, 'k');
  only.measured.source.clear();
  only.after.clear();
  only.gap_us.reset();
  alone.kernels = {only};
  const std::string key = wl::programs_to_yaml({alone});
  if (auto it = iso_cache_.find(key); it != iso_cache_.end()) return it->second;
  const double t = simulate(alone).step_us;
  iso_cache_[key] = t;
  return t;
}

CacheInterference ProgramSimulator::cache_interference(const wl::Program& p) {
  const ProgramRun full = simulate(p);
  ProgramKnobs isolated;
  isolated.isolate_caches = true;
  const ProgramRun alone = simulate(p, isolated);
  const size_t n = p.kernels.size();
  CacheInterference out;
  out.from_us.resize(n);
  for (size_t i = 0; i < n; ++i)
    out.total_us.push_back(full.kernels[i].duration_us() - alone.kernels[i].duration_us());
  for (size_t j = 0; j < n; ++j) {
    if (p.kernels[j].kind != wl::KernelKind::gemm) continue;
    ProgramKnobs hide;
    hide.hide_from_caches = {static_cast<std::int32_t>(j)};
    const ProgramRun without = simulate(p, hide);
    for (size_t i = 0; i < n; ++i) {
      const double d = full.kernels[i].duration_us() - without.kernels[i].duration_us();
      if (i != j && d != 0) out.from_us[i][p.kernels[j].name] = d;
    }
  }
  return out;
}

double ProgramSimulator::ideal_us(const wl::Program& p) {
  std::vector<double> iso(p.kernels.size());
  for (size_t i = 0; i < iso.size(); ++i) iso[i] = isolated_us(p, static_cast<int>(i));
  return ideal_us(p, iso);
}

double ProgramSimulator::ideal_us(const wl::Program& p, const std::vector<double>& iso) {
  wl::validate_program(p);
  const std::vector<double> launch = launch_times_us(p);
  std::vector<double> end(p.kernels.size(), 0);
  const std::vector<int> prev_on_stream = wl::stream_predecessors(p);
  const std::vector<std::vector<int>> waits_for = wl::dependency_indices(p);
  double step = 0;
  for (int i : wl::topological_order(p)) {
    const auto u = static_cast<size_t>(i);
    double ready = launch[u];
    if (prev_on_stream[u] >= 0) ready = std::max(ready, end[static_cast<size_t>(prev_on_stream[u])]);
    for (const int a : waits_for[u]) ready = std::max(ready, end[static_cast<size_t>(a)]);
    end[u] = ready + iso[u];
    step = std::max(step, end[u]);
  }
  return step - p.start_us;
}

ProgramResult ProgramSimulator::run(const wl::Program& p, const std::string& policy,
                                    const wl::Program* baseline, engine::TraceRecorder* trace,
                                    bool attribution) {
  const wl::Program& base = baseline != nullptr ? *baseline : p;
  ProgramResult r;
  r.program = p.name;
  r.policy = policy;
  ProgramKnobs knobs;
  knobs.trace = trace;
  knobs.tally = attribution;
  const ProgramRun run = simulate(p, knobs);
  r.step_us = run.step_us;
  for (size_t i = 0; i < run.kernels.size(); ++i) {
    r.kernels.push_back(KernelResult{run.kernels[i], isolated_us(p, static_cast<int>(i)), std::nullopt});
  }
  if (attribution) {
    std::vector<double> iso;
    for (const KernelResult& k : r.kernels) iso.push_back(k.iso_us);
    const std::vector<Attribution> causes = attribute_slowdowns(*this, p, run, iso);
    for (size_t i = 0; i < causes.size(); ++i) r.kernels[i].attribution = causes[i];
  }
  // Each isolated time once: a memo hit still writes the kernel's key.
  std::vector<double> base_iso(base.kernels.size());
  for (size_t i = 0; i < base.kernels.size(); ++i) {
    base_iso[i] = isolated_us(base, static_cast<int>(i));
    r.serial_us += base_iso[i];
  }
  r.ideal_us = ideal_us(base, base_iso);
  return r;
}

}  // namespace c3sim::models
