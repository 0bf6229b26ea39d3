#include "sim/engine/gpu_dispatcher.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "sim/base/errors.h"
#include "sim/engine/trace_recorder.h"

namespace c3sim::engine {

GpuDispatcher::GpuDispatcher(Simulation& sim, GpuConfig config) : sim_(sim), config_(config) {
  if (config_.xcds <= 0 || config_.cus_per_xcd <= 0 || config_.slots_per_cu <= 0 ||
      config_.max_cohort_size <= 0 ||
      !(config_.later_kernel_share >= 0 && config_.later_kernel_share <= 0.5)) {
    throw ModelError("GpuDispatcher: invalid configuration");
  }
  free_slots_.assign(static_cast<size_t>(total_cus()), config_.slots_per_cu);
  if (config_.cus_per_xcd <= 64) {
    const std::uint64_t all =
        config_.cus_per_xcd == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << config_.cus_per_xcd) - 1;
    idle_cus_.assign(static_cast<size_t>(config_.xcds), all);
  }
}

StreamId GpuDispatcher::add_stream(StreamConfig config) {
  if (!config.mask.empty_mask() && config.mask.size() != total_cus()) {
    throw ModelError(fmt::format("stream '{}': CU mask has {} bits, GPU has {} CUs", config.name,
                                 config.mask.size(), total_cus()));
  }
  std::vector<int> free_here(static_cast<size_t>(config_.xcds), 0);
  for (int cu = 0; cu < total_cus(); ++cu) {
    if (config.mask.allows(cu))
      free_here[static_cast<size_t>(cu / config_.cus_per_xcd)] += free_slots_[static_cast<size_t>(cu)];
  }
  std::vector<char> allow(static_cast<size_t>(total_cus()));
  std::vector<std::uint64_t> allow_bits(static_cast<size_t>(config_.xcds), 0);
  for (int cu = 0; cu < total_cus(); ++cu) {
    allow[static_cast<size_t>(cu)] = config.mask.allows(cu) ? 1 : 0;
    if (allow[static_cast<size_t>(cu)] && config_.cus_per_xcd <= 64)
      allow_bits[static_cast<size_t>(cu / config_.cus_per_xcd)] |= std::uint64_t{1}
                                                                   << (cu % config_.cus_per_xcd);
  }
  streams_.push_back(
      Stream{std::move(config), {}, 0, std::move(free_here), std::move(allow), std::move(allow_bits)});
  return static_cast<StreamId>(streams_.size() - 1);
}

KernelId GpuDispatcher::launch(StreamId stream, KernelDesc desc, std::shared_ptr<WorkgroupModel> model,
                               KernelDone done) {
  if (stream < 0 || static_cast<size_t>(stream) >= streams_.size())
    throw ModelError("launch on unknown stream");
  if (desc.workgroups <= 0) throw ModelError(fmt::format("kernel '{}' has no workgroups", desc.name));
  if (desc.slots_per_wg <= 0 || desc.slots_per_wg > config_.slots_per_cu) {
    throw ModelError(fmt::format("kernel '{}': a workgroup needs {} slots, a CU has {}", desc.name,
                                 desc.slots_per_wg, config_.slots_per_cu));
  }
  const KernelId id = static_cast<KernelId>(kernels_.size());
  Kernel k;
  k.desc = std::move(desc);
  k.model = std::move(model);
  k.done = std::move(done);
  k.stream = stream;
  k.stats.enqueued = sim_.now();
  k.stats.workgroups = k.desc.workgroups;
  k.dispatched.assign(static_cast<size_t>(config_.xcds), 0);
  // Workgroup i belongs to XCD i mod X: XCD x's share, computed once (place() reads it per XCD on
  // every dispatch round, and a 64-bit division each time showed in profiles).
  const std::int64_t X = config_.xcds;
  k.xcd_share.resize(static_cast<size_t>(X));
  for (std::int64_t x = 0; x < X; ++x)
    k.xcd_share[static_cast<size_t>(x)] = (k.desc.workgroups - x + X - 1) / X;
  k.share_credit.assign(static_cast<size_t>(config_.xcds), 0.0);
  kernels_.push_back(std::move(k));
  resident_.emplace_back(static_cast<size_t>(config_.xcds), 0);
  Stream& s = streams_[static_cast<size_t>(stream)];
  s.queue.push_back(id);
  if (s.queue.size() - s.head == 1) start_head(stream);
  return id;
}

void GpuDispatcher::start_head(StreamId s) {
  Stream& st = streams_[static_cast<size_t>(s)];
  if (st.head >= st.queue.size()) return;
  const KernelId k = st.queue[st.head];
  sim_.after(kernels_[static_cast<size_t>(k)].desc.launch_latency, [this, k] { arrive(k); });
}

void GpuDispatcher::arrive(KernelId k) {
  Kernel& kern = kernels_[static_cast<size_t>(k)];
  kern.arrived = true;
  kern.stats.arrived = sim_.now();
  if (try_dispatch() && listener_) listener_(*this);
}

int GpuDispatcher::busy_cus() const {
  int n = 0;
  for (int s : free_slots_) n += (s < config_.slots_per_cu) ? 1 : 0;
  return n;
}

bool GpuDispatcher::try_dispatch() {
  if (dispatching_) return false;  // re-entry from a callback; the outer call covers it
  dispatching_ = true;
  std::vector<KernelId>& ready = ready_;
  ready.clear();
  for (const Stream& s : streams_) {
    if (s.head < s.queue.size()) {
      const KernelId k = s.queue[s.head];
      const Kernel& kern = kernels_[static_cast<size_t>(k)];
      if (kern.arrived && kern.next_wg < kern.desc.workgroups) ready.push_back(k);
    }
  }
  std::sort(ready.begin(), ready.end(), [this](KernelId a, KernelId b) {
    const int pa = stream_priority(a);
    const int pb = stream_priority(b);
    if (pa != pb) return pa > pb;
    const Kernel& ka = kernels_[static_cast<size_t>(a)];
    const Kernel& kb = kernels_[static_cast<size_t>(b)];
    if (ka.stats.arrived != kb.stats.arrived) return ka.stats.arrived < kb.stats.arrived;
    return a < b;
  });
  bool placed_any = false;
  for (size_t i = 0; i < ready.size();) {
    size_t j = i;
    while (j < ready.size() && stream_priority(ready[j]) == stream_priority(ready[i])) ++j;
    level_.assign(ready.begin() + static_cast<std::ptrdiff_t>(i),
                  ready.begin() + static_cast<std::ptrdiff_t>(j));
    placed_any = place_level(level_) || placed_any;
    i = j;
  }
  start_claims();
  dispatching_ = false;
  return placed_any;
}

bool GpuDispatcher::place_level(const std::vector<KernelId>& level) {
  bool placed_any = false;
  const double share = config_.later_kernel_share;
  if (level.size() > 1 && share > 0) {
    // A later kernel's entitlement on an XCD is `share` of the slots free there before anyone
    // places, plus the fraction it was owed last time. The oldest (level[0]) takes whatever the
    // later ones leave, in the pass below.
    const int X = config_.xcds;
    // Scratch kept across rounds (a round runs after every retire): rows per kernel of the level.
    std::vector<std::vector<std::int64_t>>& limits = level_limits_;
    std::vector<std::vector<double>>& entitled = level_entitled_;
    if (limits.size() < level.size()) {
      limits.resize(level.size(), std::vector<std::int64_t>(static_cast<size_t>(X)));
      entitled.resize(level.size(), std::vector<double>(static_cast<size_t>(X)));
    }
    for (size_t r = 1; r < level.size(); ++r) {
      const Kernel& kern = kernels_[static_cast<size_t>(level[r])];
      for (int x = 0; x < X; ++x) {
        const auto xs = static_cast<size_t>(x);
        entitled[r][xs] = kern.share_credit[xs] + share * static_cast<double>(free_capacity(level[r], x));
        limits[r][xs] = static_cast<std::int64_t>(entitled[r][xs]);
      }
    }
    for (size_t r = level.size(); r-- > 1;) {
      Kernel& kern = kernels_[static_cast<size_t>(level[r])];
      std::vector<std::int64_t>& before = level_before_;
      before.assign(kern.dispatched.begin(), kern.dispatched.end());
      placed_any = place(level[r], &limits[r]) || placed_any;
      for (size_t xs = 0; xs < static_cast<size_t>(X); ++xs) {
        // The fraction not yet granted carries over; less than one slot, so a kernel that could
        // not use its share (nothing pending there) builds up no claim.
        const auto taken = static_cast<double>(kern.dispatched[xs] - before[xs]);
        kern.share_credit[xs] = std::clamp(entitled[r][xs] - taken, 0.0, 0.999999);
      }
    }
  }
  // Whatever is still free goes in arrival order (the whole dispatch when share is 0).
  for (KernelId k : level) placed_any = place(k) || placed_any;
  return placed_any;
}

int GpuDispatcher::stream_priority(KernelId k) const {
  return streams_[static_cast<size_t>(kernels_[static_cast<size_t>(k)].stream)].config.priority;
}

std::int64_t GpuDispatcher::free_capacity(KernelId k, int xcd) const {
  const Kernel& kern = kernels_[static_cast<size_t>(k)];
  const Stream& st = streams_[static_cast<size_t>(kern.stream)];
  const int free_here = st.free_slots[static_cast<size_t>(xcd)];
  // One-slot workgroups (the usual configuration) fit once per free slot the mask allows.
  if (kern.desc.slots_per_wg == 1) return free_here;
  if (free_here < kern.desc.slots_per_wg) return 0;
  const CuMask& mask = st.config.mask;
  std::int64_t capacity = 0;
  for (int c = 0; c < config_.cus_per_xcd; ++c) {
    const int cu = xcd * config_.cus_per_xcd + c;
    if (mask.allows(cu)) capacity += free_slots_[static_cast<size_t>(cu)] / kern.desc.slots_per_wg;
  }
  return capacity;
}

bool GpuDispatcher::place(KernelId k, const std::vector<std::int64_t>* limits) {
  Kernel& kern = kernels_[static_cast<size_t>(k)];
  const std::vector<char>& allow = streams_[static_cast<size_t>(kern.stream)].allow;
  const int need = kern.desc.slots_per_wg;
  const int X = config_.xcds;
  const int C = config_.cus_per_xcd;

  // Workgroup i belongs to XCD i mod X (strict round-robin, as in single-partition mode): each XCD
  // dispatches its own share as its CUs free up, so a busy XCD never pushes work onto another.
  std::vector<int>& take = take_;
  take.assign(static_cast<size_t>(X), 0);
  std::int64_t batch = 0;
  for (int x = 0; x < X; ++x) {
    const std::int64_t pending =
        kern.xcd_share[static_cast<size_t>(x)] - kern.dispatched[static_cast<size_t>(x)];
    if (pending <= 0) continue;
    std::int64_t capacity = free_capacity(k, x);
    if (limits != nullptr) capacity = std::min(capacity, (*limits)[static_cast<size_t>(x)]);
    take[static_cast<size_t>(x)] = static_cast<int>(std::min(pending, capacity));
    batch += take[static_cast<size_t>(x)];
  }
  if (batch == 0) return false;

  if (kern.next_wg == kern.finished_wgs)
    running_.insert(std::lower_bound(running_.begin(), running_.end(), k), k);
  kern.next_wg += batch;
  if (kern.stats.first_dispatch < 0) kern.stats.first_dispatch = sim_.now();
  kern.stats.last_dispatch = sim_.now();

  for (int xi = 0; xi < X; ++xi) {
    const int n = take[static_cast<size_t>(xi)];
    if (n == 0) continue;
    // Claims of one kernel on one XCD within a dispatch round are consecutive workgroups placed at
    // the same instant: they become one claim, so arbitration passes never split a cohort.
    const auto open_end = claims_.begin() + static_cast<std::ptrdiff_t>(open_claims_);
    auto it = std::find_if(claims_.begin(), open_end,
                           [k, xi](const Claim& c) { return c.kernel == k && c.xcd == xi; });
    if (it == open_end) {
      // Global index of the claim's first workgroup: the XCD's next one in round-robin order.
      const std::int64_t first_here =
          xi + static_cast<std::int64_t>(X) * kern.dispatched[static_cast<size_t>(xi)];
      // Claim entries (and their workgroup lists) are reused across rounds: a round runs after
      // every cohort retires, and fresh vectors each time would be a visible share of a run.
      if (open_claims_ == claims_.size()) claims_.emplace_back();
      it = claims_.begin() + static_cast<std::ptrdiff_t>(open_claims_++);
      it->kernel = k;
      it->xcd = xi;
      it->first_wg = first_here;
      it->workgroups.clear();
    }
    kern.dispatched[static_cast<size_t>(xi)] += n;
    resident_[static_cast<size_t>(k)][static_cast<size_t>(xi)] += n;
    // Spread over the CUs with the most free slots first (ties: lowest CU index). A workgroup
    // that fills a whole CU (the usual case) just takes the free CUs in order.
    if (need == config_.slots_per_cu && !idle_cus_.empty()) {
      // The same CUs in the same order as the scan below, read off bit masks of idle CUs.
      std::uint64_t avail = idle_cus_[static_cast<size_t>(xi)] &
                            streams_[static_cast<size_t>(kern.stream)].allow_bits[static_cast<size_t>(xi)];
      // Each CU taken goes from idle to full: the slot counts are settled once for the batch.
      std::uint64_t taken = 0;
      int placed = 0;
      for (; placed < n && avail != 0; ++placed) {
        const int c = std::countr_zero(avail);
        avail &= avail - 1;
        taken |= std::uint64_t{1} << c;
        const int cu = xi * C + c;
        free_slots_[static_cast<size_t>(cu)] -= need;
        it->workgroups.push_back(cu);
      }
      if (placed != n) throw ModelError("GpuDispatcher: capacity accounting out of sync");
      idle_cus_[static_cast<size_t>(xi)] &= ~taken;
      for (Stream& st : streams_)
        st.free_slots[static_cast<size_t>(xi)] -=
            need * std::popcount(taken & st.allow_bits[static_cast<size_t>(xi)]);
      continue;
    }
    if (need == config_.slots_per_cu) {
      int placed = 0;
      for (int c = 0; c < C && placed < n; ++c) {
        const int cu = xi * C + c;
        if (!allow[static_cast<size_t>(cu)] || free_slots_[static_cast<size_t>(cu)] < need) continue;
        take_slots(cu, need);
        it->workgroups.push_back(cu);
        ++placed;
      }
      if (placed != n) throw ModelError("GpuDispatcher: capacity accounting out of sync");
      continue;
    }
    for (int w = 0; w < n; ++w) {
      int best = -1;
      for (int c = 0; c < C; ++c) {
        const int cu = xi * C + c;
        if (!allow[static_cast<size_t>(cu)] || free_slots_[static_cast<size_t>(cu)] < need) continue;
        if (best < 0 || free_slots_[static_cast<size_t>(cu)] > free_slots_[static_cast<size_t>(best)])
          best = cu;
      }
      if (best < 0) throw ModelError("GpuDispatcher: capacity accounting out of sync");
      take_slots(best, need);
      it->workgroups.push_back(best);
    }
  }
  return true;
}

void GpuDispatcher::take_slots(int cu, int slots) {
  free_slots_[static_cast<size_t>(cu)] -= slots;
  const auto xcd = static_cast<size_t>(cu / config_.cus_per_xcd);
  if (!idle_cus_.empty()) {
    const std::uint64_t bit = std::uint64_t{1} << (cu % config_.cus_per_xcd);
    if (free_slots_[static_cast<size_t>(cu)] == config_.slots_per_cu) {
      idle_cus_[xcd] |= bit;
    } else {
      idle_cus_[xcd] &= ~bit;
    }
  }
  for (Stream& st : streams_) {
    if (st.allow[static_cast<size_t>(cu)]) st.free_slots[xcd] -= slots;
  }
}

void GpuDispatcher::start_claims() {
  // In claim order, so flows (and the solver's tie-breaks) are created deterministically.
  for (size_t ci = 0; ci < open_claims_; ++ci) {
    const Claim& claim = claims_[ci];
    Kernel& kern = kernels_[static_cast<size_t>(claim.kernel)];
    const int need = kern.desc.slots_per_wg;
    const auto total = static_cast<std::int64_t>(claim.workgroups.size());
    for (std::int64_t from = 0; from < total;) {
      const int n = static_cast<int>(std::min<std::int64_t>(total - from, config_.max_cohort_size));
      // A retired cohort's object (and its CU list's storage) is reused: one is started per retire.
      std::unique_ptr<Cohort> cohort;
      if (spare_cohorts_.empty()) {
        cohort = std::make_unique<Cohort>();
        cohort->slot = cohorts_made_++;
      } else {
        cohort = std::move(spare_cohorts_.back());
        spare_cohorts_.pop_back();
        cohort->cus.clear();
        cohort->flow = FlowId{};
      }
      cohort->cus.reserve(static_cast<size_t>(n));
      cohort->kernel = claim.kernel;
      cohort->started = sim_.now();
      cohort->ctx =
          CohortContext{config_.index,   claim.xcd,    n, claim.first_wg + config_.xcds * from, claim.kernel,
                        kern.desc.owner, cohort->slot, 0};
      for (std::int64_t w = from; w < from + n; ++w) {
        const int cu = claim.workgroups[static_cast<size_t>(w)];
        // A workgroup that fills a CU is the only one on it: no entry to merge with.
        auto held = need == config_.slots_per_cu
                        ? cohort->cus.end()
                        : std::find_if(cohort->cus.begin(), cohort->cus.end(),
                                       [cu](const auto& p) { return p.first == cu; });
        if (held == cohort->cus.end()) {
          cohort->cus.emplace_back(cu, need);
        } else {
          held->second += need;
        }
      }
      from += n;
      CohortWork w = kern.model->cohort_work(cohort->ctx);
      Cohort* raw = cohort.get();
      cohorts_.push_back(std::move(cohort));
      start_phase(raw, std::move(w));
    }
  }
  open_claims_ = 0;
}

void GpuDispatcher::start_phase(Cohort* raw, CohortWork w) {
  const Kernel& kern = kernels_[static_cast<size_t>(raw->kernel)];
  FlowSpec spec;
  spec.work = w.work_per_wg * raw->ctx.count;
  spec.demands = std::move(w.demands);
  spec.bound = w.bound_per_wg * raw->ctx.count;
  spec.owner = kern.desc.owner;  // typed identity instead of a formatted label
  auto start = [this, raw, spec = std::move(spec)]() mutable {
    raw->flow = sim_.start_flow(std::move(spec), [this, raw](TimePs now) { phase_done(raw, now); });
  };
  if (w.startup_latency > 0) {
    // While it waits, residency may change without a refresh reaching it (refresh_all skips
    // flows not started): its model is asked again when the flow starts.
    sim_.after(w.startup_latency, [this, raw, start = std::move(start)]() mutable {
      start();
      WorkgroupModel& model = *kernels_[static_cast<size_t>(raw->kernel)].model;
      model.begin_refresh();
      if (auto again = model.refresh(raw->ctx)) {
        sim_.update_flow(raw->flow, std::move(again->demands), again->bound_per_wg * raw->ctx.count);
      }
    });
  } else {
    start();
  }
}

void GpuDispatcher::phase_done(Cohort* c, TimePs now) {
  Kernel& kern = kernels_[static_cast<size_t>(c->kernel)];
  CohortContext next = c->ctx;
  ++next.phase;
  std::optional<CohortWork> w = kern.model->next_phase(next);
  if (!w) {
    retire(c, now);
    return;
  }
  if (w->detached) {
    start_detached(*c, std::move(*w));
    retire(c, now);
    return;
  }
  trace_phase(*c, now);
  c->ctx.phase = next.phase;
  c->phase_started = now;
  c->phase_label = w->phase_label;
  c->phase_kind = w->phase_kind;
  start_phase(c, std::move(*w));
}

void GpuDispatcher::start_detached(const Cohort& c, CohortWork w) {
  const KernelId k = c.kernel;
  Kernel& kern = kernels_[static_cast<size_t>(k)];
  ++kern.detached_running;
  FlowSpec spec;
  spec.work = w.work_per_wg * c.ctx.count;
  spec.demands = std::move(w.demands);
  spec.bound = w.bound_per_wg * c.ctx.count;
  spec.owner = kern.desc.owner;
  const std::string label = sim_.trace() != nullptr
                                ? fmt::format("{} {} x{}", w.phase_label != nullptr ? w.phase_label : "phase",
                                              kern.desc.name, c.ctx.count)
                                : std::string();
  auto start = [this, k, xcd = c.ctx.xcd, kind = w.phase_kind, label, spec = std::move(spec)]() mutable {
    const TimePs began = sim_.now();
    (void)sim_.start_flow(std::move(spec), [this, k, xcd, kind, label, began](TimePs now) {
      if (TraceRecorder* tr = sim_.trace())
        tr->span(fmt::format("gpu{}", config_.index), TraceTrack::xcd(xcd), label, began, now, {kind});
      Kernel& owner = kernels_[static_cast<size_t>(k)];
      --owner.detached_running;
      if (owner.finished_wgs == owner.desc.workgroups && owner.detached_running == 0) finish_kernel(k, now);
    });
  };
  if (w.startup_latency > 0) {
    sim_.after(w.startup_latency, std::move(start));
  } else {
    start();
  }
}

void GpuDispatcher::trace_phase(const Cohort& c, TimePs now) {
  TraceRecorder* tr = sim_.trace();
  if (tr == nullptr) return;
  const Kernel& kern = kernels_[static_cast<size_t>(c.kernel)];
  const bool first = c.ctx.phase == 0;
  tr->span(fmt::format("gpu{}", config_.index), TraceTrack::xcd(c.ctx.xcd),
           first ? fmt::format("{} x{}", kern.desc.name, c.ctx.count)
                 : fmt::format("{} {} x{}", c.phase_label != nullptr ? c.phase_label : "phase",
                               kern.desc.name, c.ctx.count),
           first ? c.started : c.phase_started, now, {first ? kern.desc.owner.kind : c.phase_kind});
}

void GpuDispatcher::retire(Cohort* c, TimePs now) {
  Kernel& kern = kernels_[static_cast<size_t>(c->kernel)];
  const KernelId held_by = c->kernel;
  const int held_xcd = c->ctx.xcd;
  const int held_count = c->ctx.count;
  const int cus_held = static_cast<int>(c->cus.size());
  const bool whole_cus = std::all_of(
      c->cus.begin(), c->cus.end(), [this](const auto& held) { return held.second == config_.slots_per_cu; });
  if (whole_cus && !idle_cus_.empty()) {
    // Every CU held goes back to idle; all are on the cohort's XCD (a claim is per XCD), so the
    // streams' free counts are settled once for the set, as place() takes them.
    const auto xs = static_cast<size_t>(held_xcd);
    const int first_cu = held_xcd * config_.cus_per_xcd;  // a subtraction per CU, not a division
    std::uint64_t freed = 0;
    for (auto [cu, slots] : c->cus) {
      free_slots_[static_cast<size_t>(cu)] += slots;
      freed |= std::uint64_t{1} << (cu - first_cu);
    }
    idle_cus_[xs] |= freed;
    for (Stream& st : streams_)
      st.free_slots[xs] += config_.slots_per_cu * std::popcount(freed & st.allow_bits[xs]);
  } else {
    for (auto [cu, slots] : c->cus) take_slots(cu, -slots);
  }
  kern.stats.cu_seconds += cus_held * ps_to_s(now - c->started);
  kern.model->cohort_retired(c->ctx);
  resident_[static_cast<size_t>(c->kernel)][static_cast<size_t>(c->ctx.xcd)] -= c->ctx.count;
  kern.finished_wgs += c->ctx.count;
  if (kern.finished_wgs == kern.next_wg)
    running_.erase(std::lower_bound(running_.begin(), running_.end(), held_by));
  trace_phase(*c, now);
  auto it = std::find_if(cohorts_.begin(), cohorts_.end(), [c](const auto& p) { return p.get() == c; });
  spare_cohorts_.push_back(std::move(*it));
  cohorts_.erase(it);

  if (kern.finished_wgs == kern.desc.workgroups) {
    if (kern.detached_running == 0) finish_kernel(held_by, now);
  } else if (kern.desc.holds_cus && kern.next_wg < kern.desc.workgroups) {
    // The finished workgroups' CUs stay with their kernel: as many as just finished on this XCD.
    if (held_.size() < kernels_.size()) held_.resize(kernels_.size());
    std::vector<std::int64_t>& limits = held_[static_cast<size_t>(held_by)];
    if (limits.empty()) {
      limits.assign(static_cast<size_t>(config_.xcds), 0);
      held_kernels_.push_back(held_by);
    }
    limits[static_cast<size_t>(held_xcd)] += held_count;
  }
  // Every cohort finishing at this instant retires first; then one dispatch round and one
  // residency update see them all (Simulation::defer).
  if (!flush_pending_) {
    flush_pending_ = true;
    sim_.defer([this] { after_retires(); });
  }
}

void GpuDispatcher::finish_kernel(KernelId k, TimePs now) {
  Kernel& kern = kernels_[static_cast<size_t>(k)];
  kern.stats.finished = now;
  Stream& s = streams_[static_cast<size_t>(kern.stream)];
  s.head++;
  if (TraceRecorder* tr = sim_.trace()) {
    const std::string gpu = fmt::format("gpu{}", config_.index);
    tr->span(gpu, TraceTrack::stream(s.config.name), kern.desc.name, kern.stats.arrived, now,
             {kern.desc.owner.kind});
    // Nested under the kernel: the time it sat in its queue before any workgroup got a CU, the
    // cost of launch order and priorities a trace reader should see at a glance.
    if (kern.stats.first_dispatch > kern.stats.arrived) {
      tr->span(gpu, TraceTrack::stream(s.config.name), "waiting for CUs", kern.stats.arrived,
               kern.stats.first_dispatch, {kern.desc.owner.kind, /*waiting=*/true});
    }
  }
  // The stream's next kernel is on its way before anything this end releases through events:
  // the queue's successor is already at the front end, an event waiter on another stream must
  // first see the event (2 x H200: successor ready 2.8 us after the end, a waiter released by
  // the same end 6.1 us; hardware/measurements/h200x2_programs2_ag_gemm.jsonl, ficco:2). With
  // equal launch latencies the successor therefore arrives first.
  // The callback may launch kernels (a program releasing what waited on this one), which can
  // grow kernels_ and move `kern`: read what is needed before it.
  const StreamId stream = kern.stream;
  const std::function<void(TimePs)> done = std::move(kern.done);
  // Nothing asks a finished kernel's model again (refresh_all visits running kernels only): its
  // memory goes now, not at the end of a long program.
  kern.done = nullptr;
  kern.model.reset();
  start_head(stream);
  if (done) done(now);
}

void GpuDispatcher::after_retires() {
  flush_pending_ = false;
  for (const KernelId k : held_kernels_) {
    std::vector<std::int64_t>& limits = held_[static_cast<size_t>(k)];
    const Kernel& kern = kernels_[static_cast<size_t>(k)];
    if (kern.next_wg < kern.desc.workgroups) {
      dispatching_ = true;
      (void)place(k, &limits);
      start_claims();
      dispatching_ = false;
    }
    limits.clear();
  }
  held_kernels_.clear();
  try_dispatch();
  if (listener_) listener_(*this);  // residency changed whether or not anything new was placed
}

void GpuDispatcher::refresh_all() {
  // Kernels with workgroups dispatched and not all finished have running cohorts.
  for (const KernelId k : running_) kernels_[static_cast<size_t>(k)].model->begin_refresh();
  for (const auto& c : cohorts_) {
    if (!sim_.solver().alive(c->flow)) continue;  // still in its startup latency
    Kernel& kern = kernels_[static_cast<size_t>(c->kernel)];
    if (auto w = kern.model->refresh(c->ctx)) {
      sim_.update_flow(c->flow, std::move(w->demands), w->bound_per_wg * c->ctx.count);
    }
  }
}

}  // namespace c3sim::engine
