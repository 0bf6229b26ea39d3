#include "models/policies/ficco_heuristic.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "models/kernels/collective_plan.h"
#include "models/kernels/gemm_kernel.h"
#include "sim/base/errors.h"

namespace c3sim::models {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// What the estimate knows of one kernel: its isolated run and its plan, nothing co-run.
struct Cost {
  double iso_us = 0;
  bool gemm = false;
  bool collective = false;
  bool cu_collective = false;  // holds CUs while it runs
  bool on_cus = false;         // dispatched to CUs (GEMM, memory kernel, CU collective)
  std::int64_t grid = 0;       // GEMM: workgroups (tiles, or the persistent grid); CU collective: channels
  int cus = 0;                 // CUs its stream may use
  double hbm_per_us = 0;       // isolated HBM demand, bytes per us
  double stall_fraction = 0;   // the preset's memory_stall_fraction for its kind
};

Cost cost_of(ProgramSimulator& sim, const wl::Program& p, int i) {
  const hw::NodeSpec& spec = sim.spec();
  const wl::ProgramKernel& k = p.kernels[static_cast<size_t>(i)];
  const wl::ProgramStream& s = *p.stream(k.stream);
  Cost c;
  c.iso_us = sim.isolated_us(p, i);
  c.cus = s.cus.value_or(spec.compute.total_cus());
  c.on_cus = k.kind == wl::KernelKind::gemm || k.kind == wl::KernelKind::memory ||
             k.kind == wl::KernelKind::measured || k.kind == wl::KernelKind::fused ||
             (k.kind == wl::KernelKind::collective && k.collective.impl == wl::CollectiveImpl::cu);
  double bytes = 0;
  if (k.kind == wl::KernelKind::gemm) {
    const GemmPlan plan = plan_gemm(k.gemm, spec, c.cus, s.cus.has_value());
    c.gemm = true;
    c.grid = plan.workgroups;
    c.stall_fraction = spec.model.gemm.memory_stall_fraction;
    // Compulsory traffic: A and B read once, C written once (a lower bound on what it moves).
    const GemmGeometry& g = plan.geometry;
    bytes =
        g.a_bytes + g.b_bytes + static_cast<double>(k.gemm.m) * static_cast<double>(k.gemm.n) * g.elt_bytes;
  } else if (k.kind == wl::KernelKind::collective) {
    const CollectivePlan plan = plan_collective(k.collective, spec, p.gpus.value_or(spec.interconnect.gpus),
                                                k.collective.max_workgroups);
    c.collective = true;
    c.cu_collective = k.collective.impl == wl::CollectiveImpl::cu;
    c.grid = c.cu_collective ? plan.workgroups : 0;
    c.stall_fraction =
        c.cu_collective ? spec.model.collective.memory_stall_fraction : spec.model.dma.memory_stall_fraction;
    bytes = plan.bytes_sent * plan.hbm_bytes_per_byte();
  }
  c.hbm_per_us = c.iso_us > 0 ? bytes / c.iso_us : 0;
  return c;
}

// One kernel placed in the estimated schedule.
struct Placed {
  double start = 0, end = 0;
  double last_dispatch = 0;  // GEMM: when its last workgroup got a CU
  int free_after = 0;        // GEMM: CUs free at that instant (beside it and the CU collectives)
  // GEMM: the workgroups placed by then, (end, count), in end order.
  std::vector<std::pair<double, std::int64_t>> cohorts;
};

// A CU collective's CUs, held over [start, end).
struct Hold {
  double start = 0, end = 0;
  std::int64_t cus = 0;
};

// The GEMM's workgroups on the CUs its stream leaves beside `holds`, oldest first: each workgroup
// lasts the isolated wave time (isolated time / ceil(grid / CUs)), so wave quantization falls out
// of how many CUs are free when each one starts.
Placed run_waves(const Cost& g, double start, const std::vector<Hold>& all_holds) {
  std::vector<Hold> holds;  // only those still held at the GEMM's start can matter
  std::copy_if(all_holds.begin(), all_holds.end(), std::back_inserter(holds),
               [start](const Hold& h) { return h.end > start; });
  Placed out;
  out.start = start;
  const std::int64_t waves = (g.grid + g.cus - 1) / g.cus;
  const double wave_us = g.iso_us / static_cast<double>(std::max<std::int64_t>(waves, 1));
  std::vector<std::pair<double, std::int64_t>> running;  // end, workgroups
  std::int64_t pending = g.grid;
  double t = start;
  while (pending > 0) {
    std::int64_t busy = 0;
    for (const auto& [e, n] : running) busy += e > t ? n : 0;
    std::int64_t held = 0;
    for (const Hold& h : holds) held += h.start <= t && t < h.end ? h.cus : 0;
    const std::int64_t free = g.cus - busy - held;
    if (free > 0) {
      const std::int64_t n = std::min(free, pending);
      running.emplace_back(t + wave_us, n);
      pending -= n;
      if (pending == 0) {
        out.last_dispatch = t;
        out.free_after = static_cast<int>(free - n);
        break;
      }
    }
    double next = kInf;
    for (const auto& r : running) {
      if (r.first > t) next = std::min(next, r.first);
    }
    for (const Hold& h : holds) {
      if (h.end > t) next = std::min(next, h.end);
    }
    if (next == kInf) break;  // unreachable: a hold or a workgroup always ends
    t = next;
  }
  out.end = start;
  for (const auto& r : running) {
    out.end = std::max(out.end, r.first);
    if (r.first > out.last_dispatch) out.cohorts.push_back(r);
  }
  std::sort(out.cohorts.begin(), out.cohorts.end());
  return out;
}

// A CU collective ready at `ready` beside GEMM `g` placed before it: dispatch is oldest first, so
// while g has workgroups waiting it takes every CU that frees up; from its last dispatch on, this
// kernel starts as soon as a CU is free beside it (those g left, then those its workgroups free).
double starved_until(const Placed& g, double ready) {
  if (g.end <= ready) return ready;
  double at = std::max(ready, g.last_dispatch);
  std::int64_t free = g.free_after;
  for (const auto& [end, count] : g.cohorts) {
    if (end <= at) {
      free += count;
    } else if (free <= 0) {
      at = end;
      free += count;
    }
  }
  return at;
}

// Memory beside each other: a GEMM and a collective that overlap run no faster than their share
// of HBM bandwidth (isolated demands summed over the preset's bandwidth: max(compute, shared
// bandwidth)), and each waits longer for memory the more the other loads it (1 + the preset's
// memory_stall_fraction x the other's utilization). The overlap stretches each by the larger
// factor; `me` was just placed, `other` before it.
void share_memory(const Cost& mine, Placed& me, const Cost& theirs, Placed& other, double hbm_per_us) {
  if (!(mine.gemm || mine.collective) || !(theirs.gemm || theirs.collective) || mine.gemm == theirs.gemm)
    return;
  const double overlap = std::min(me.end, other.end) - std::max(me.start, other.start);
  if (overlap <= 0) return;
  const double shared = (mine.hbm_per_us + theirs.hbm_per_us) / hbm_per_us;
  const double f_me = std::max(shared, 1 + mine.stall_fraction * theirs.hbm_per_us / hbm_per_us);
  const double f_other = std::max(shared, 1 + theirs.stall_fraction * mine.hbm_per_us / hbm_per_us);
  me.end += overlap * std::max(f_me - 1, 0.0);
  other.end += overlap * std::max(f_other - 1, 0.0);
}

}  // namespace

std::vector<std::string> ficco_candidates() {
  std::vector<std::string> out{"base"};
  for (const char* v : {"ficco", "ficco_dma"}) {
    for (int k : {2, 4, 8}) out.push_back(fmt::format("{}:{}", v, k));
  }
  return out;
}

double estimate_step_us(ProgramSimulator& sim, const wl::Program& p) {
  wl::validate_program(p);
  const size_t n = p.kernels.size();
  const std::vector<double> launch = sim.launch_times_us(p);
  const std::vector<int> prev_on_stream = wl::stream_predecessors(p);
  std::vector<Cost> cost;
  for (size_t i = 0; i < n; ++i) cost.push_back(cost_of(sim, p, static_cast<int>(i)));
  const double hbm_per_us = sim.spec().model.memory.hbm_bw * 1e-6;

  std::vector<Placed> placed(n);
  std::vector<bool> done(n, false);
  std::vector<Hold> holds;
  // When kernel u may start, and whether it was queued on the device by then: a CU kernel behind
  // a CU kernel of its stream is handed to the dispatcher before that one ends (both arrive from
  // the stream queue), while a kernel whose last wait is an event is launched only once it fires.
  struct Ready {
    double at = kInf;
    bool queued = false;
  };
  const auto ready_of = [&](size_t u) {
    Ready r;
    double released = launch[u];
    for (const auto& a : p.kernels[u].after) {
      const size_t d = p.kernel_at(a);
      if (!done[d]) return r;
      released = std::max(released, placed[d].end);
    }
    r.at = released;
    if (const int prev = prev_on_stream[u]; prev >= 0) {
      const auto v = static_cast<size_t>(prev);
      if (!done[v]) return Ready{};
      r.queued = cost[u].on_cus && cost[v].on_cus && released < placed[v].end;
      r.at = std::max(r.at, placed[v].end);
    }
    return r;
  };
  for (size_t step = 0; step < n; ++step) {
    // Next: the earliest ready kernel; at one instant a queued one first (it reaches the
    // dispatcher while the event-released one is still being launched), then program order.
    size_t u = n;
    Ready ready;
    for (size_t i = 0; i < n; ++i) {
      if (done[i]) continue;
      const Ready r = ready_of(i);
      if (r.at == kInf) continue;
      if (u == n || r.at < ready.at || (r.at == ready.at && r.queued && !ready.queued)) {
        u = i;
        ready = r;
      }
    }
    // validate_program rejects cycles, so some kernel is always ready.
    if (u == n) throw ModelError(fmt::format("program '{}': no kernel ready in the estimate", p.name));
    const Cost& c = cost[u];
    Placed& me = placed[u];
    if (c.gemm) {
      me = run_waves(c, ready.at, holds);
    } else {
      double start = ready.at;
      if (c.cu_collective) {
        for (size_t v = 0; v < n; ++v) {
          if (done[v] && cost[v].gemm) start = starved_until(placed[v], start);
        }
        holds.push_back(Hold{start, start + c.iso_us, c.grid});
      }
      me.start = start;
      me.end = start + c.iso_us;
    }
    for (size_t v = 0; v < n; ++v) {
      if (done[v]) share_memory(c, me, cost[v], placed[v], hbm_per_us);
    }
    if (c.cu_collective) holds.back().end = me.end;
    done[u] = true;
  }
  double step = 0;
  for (const Placed& pl : placed) step = std::max(step, pl.end);
  return step;
}

std::string pick_ficco_schedule(ProgramSimulator& sim, const TransformRegistry& registry,
                                const wl::Program& program) {
  std::string best;
  double best_us = 0;
  for (const auto& name : ficco_candidates()) {
    const double t = estimate_step_us(sim, registry.apply(name, program, sim.spec(), program.location));
    if (best.empty() || t < best_us) {
      best = name;
      best_us = t;
    }
  }
  return best;
}

HeuristicScore score_ficco_heuristic(ProgramSimulator& sim, const TransformRegistry& registry,
                                     const std::vector<wl::Program>& programs) {
  HeuristicScore s;
  double regret_sum = 0;
  double error_sum = 0;
  int candidates = 0;
  for (const wl::Program& p : programs) {
    std::string best;
    double best_us = 0;
    double picked_us = 0;
    const std::string pick = pick_ficco_schedule(sim, registry, p);
    for (const auto& name : ficco_candidates()) {
      const wl::Program q = registry.apply(name, p, sim.spec(), p.location);
      const double t = sim.simulate(q).step_us;
      const double error = std::abs(estimate_step_us(sim, q) / t - 1.0);
      error_sum += error;
      ++candidates;
      s.worst_estimate_error = std::max(s.worst_estimate_error, error);
      if (best.empty() || t < best_us) {
        best = name;
        best_us = t;
      }
      if (name == pick) picked_us = t;
    }
    const double regret = picked_us / best_us - 1.0;
    ++s.programs;
    s.exact += pick == best ? 1 : 0;
    s.within_2pct += regret <= 0.02 ? 1 : 0;
    s.worst_regret = std::max(s.worst_regret, regret);
    regret_sum += regret;
  }
  s.mean_regret = s.programs > 0 ? regret_sum / s.programs : 0;
  s.mean_estimate_error = candidates > 0 ? error_sum / candidates : 0;
  return s;
}

}  // namespace c3sim::models
