#include "models/kernels/gemm_kernel.h"

#include <algorithm>
#include <cmath>

#include "models/node/queueing_utilization.h"
#include "sim/base/errors.h"

namespace c3sim::models {

double gemm_efficiency(const wl::Gemm& gemm, const hw::NodeSpec& spec) {
  // A shape the library data lists runs at its own measured efficiency.
  if (const hw::GemmLibraryEntry* e = spec.gemm_library.find(gemm.m, gemm.n, gemm.k, gemm.dtype)) {
    return e->efficiency;
  }
  const auto& lib = spec.model.gemm;
  const auto it = lib.dtype_efficiency.find(gemm.dtype);
  return it != lib.dtype_efficiency.end() ? it->second : lib.matrix_efficiency;
}

GemmPlan plan_gemm(const wl::Gemm& gemm, const hw::NodeSpec& spec, int cus_available, bool beside_partition) {
  if (gemm.m <= 0 || gemm.n <= 0 || gemm.k <= 0) throw ModelError("plan_gemm: non-positive GEMM size");
  const auto peak = spec.compute.peak_flops.find(gemm.dtype);
  if (peak == spec.compute.peak_flops.end()) {
    throw ModelError(std::string("hardware '") + spec.name + "' has no peak rate for dtype " +
                     hw::to_string(gemm.dtype));
  }
  GemmPlan p;
  p.gemm = gemm;
  const double elt = hw::dtype_bytes(gemm.dtype);
  GemmGeometry& g = p.geometry;
  g.tiles_m = (gemm.m + spec.model.gemm.macro_tile_m - 1) / spec.model.gemm.macro_tile_m;
  // The library picks its kernels per dtype: a dtype's own macro-tile width and efficiency where the
  // preset gives them, bf16's otherwise.
  const auto& lib = spec.model.gemm;
  const auto tile_n_it = lib.dtype_macro_tile_n.find(gemm.dtype);
  const int macro_tile_n = tile_n_it != lib.dtype_macro_tile_n.end() ? tile_n_it->second : lib.macro_tile_n;
  const double efficiency = gemm_efficiency(gemm, spec);
  g.tiles_n = (gemm.n + macro_tile_n - 1) / macro_tile_n;
  // Edge tiles are smaller; the average tile carries the exact total work.
  g.tile_m = static_cast<double>(gemm.m) / static_cast<double>(g.tiles_m);
  g.tile_n = static_cast<double>(gemm.n) / static_cast<double>(g.tiles_n);
  g.k = static_cast<double>(gemm.k);
  g.elt_bytes = elt;
  g.a_bytes = static_cast<double>(gemm.m) * g.k * elt;
  g.b_bytes = g.k * static_cast<double>(gemm.n) * elt;
  p.flops_per_tile = 2.0 * g.tile_m * g.tile_n * g.k;
  if (const auto e = spec.model.power.dtype_energy.find(gemm.dtype); e != spec.model.power.dtype_energy.end())
    p.energy_scale = e->second;
  p.write_bytes_per_tile = g.tile_m * g.tile_n * elt;
  p.cu_flop_rate = peak->second / spec.compute.total_cus() * efficiency *
                   (beside_partition ? spec.model.gemm.beside_partition_efficiency : 1.0);
  // Small K: the mainloop is short beside the tile's output store, and the part of the store the
  // kernel does not overlap with the next tile's loads adds to every tile. All CUs store at once, so
  // one drains at its share of HBM bandwidth.
  p.exposed_store_s = lib.epilogue_exposed * p.write_bytes_per_tile /
                      (spec.model.memory.hbm_bw / static_cast<double>(spec.compute.total_cus()));
  p.persistent = spec.model.gemm.persistent;
  const std::int64_t tiles = g.tiles();
  if (p.persistent && spec.model.gemm.dynamic_tiles) {
    p.workgroups = tiles;
    p.tiles_per_wg = 1.0;
    p.holds_cus = true;
  } else if (p.persistent) {
    p.workgroups = std::min<std::int64_t>(tiles, std::max(1, cus_available));
    p.tiles_per_wg = static_cast<double>(tiles) / static_cast<double>(p.workgroups);
  } else {
    p.workgroups = tiles;
    p.tiles_per_wg = 1.0;
  }
  return p;
}

GemmWorkgroupModel::GemmWorkgroupModel(GemmPlan plan, const hw::NodeSpec& spec, const CacheModel& cache,
                                       const NodeResources& res, const InterferenceState& state)
    : plan_(std::move(plan)),
      cache_(cache),
      res_(res),
      state_(state),
      stall_fraction_(spec.model.gemm.memory_stall_fraction),
      workgroups_only_(spec.model.gemm.memory_stall_workgroups_only),
      cu_miss_bw_(spec.model.gemm.cu_miss_bw),
      hbm_latency_ratio_(spec.model.gemm.hbm_miss_latency_ratio),
      hbm_queueing_(spec.model.memory.hbm_queueing && spec.memory.llc_bytes > 0) {}

GemmWorkgroupModel::TrafficInputs GemmWorkgroupModel::inputs(const engine::CohortContext& ctx) const {
  const auto xcd = static_cast<size_t>(ctx.xcd);
  const std::int32_t own = ctx.owner.kernel;
  TrafficInputs in;
  // Panel reuse comes from this GEMM's own resident tiles only (cache_model.h, several GEMMs).
  in.tiles_here = std::max(ctx.count, state_.resident(own, ctx.xcd));
  in.comm_here = state_.isolate_caches ? 0 : state_.comm_wgs[xcd];
  in.tiles_total = std::max(state_.resident_total(own), ctx.count);
  // Every other resident GEMM takes capacity: its live panels in this XCD's L2, its working set
  // in the LLC. Summed in kernel-id order (deterministic bits).
  double other_l2 = 0, other_llc = 0;
  if (!state_.isolate_caches) {
    for (const std::int32_t k : state_.resident_gemms()) {
      if (k == own || state_.hidden_from_caches(k)) continue;
      const InterferenceState::Residency& r = state_.residency(k);
      // Its tiles on this XCD as in a wave from the XCD's first tile (workgroup x lands on XCD x).
      other_l2 += cache_.l2_panel_footprint(*r.gemm, ctx.xcd, r.per_xcd[xcd]);
      other_llc += cache_.llc_working_set(*r.gemm, r.total);
    }
  }
  in.other_l2 = other_l2;
  in.pollution = state_.isolate_caches ? 0.0 : state_.llc_pollution_bytes + other_llc;
  in.memory_load_by_others = state_.memory_load_of_others(ctx.owner.kernel, workgroups_only_);
  in.hbm_load_by_others = state_.hbm_load_of_others(ctx.owner.kernel, workgroups_only_);
  return in;
}

GemmTraffic GemmWorkgroupModel::traffic(const engine::CohortContext& ctx) const {
  return traffic(ctx, inputs(ctx));
}

GemmTraffic GemmWorkgroupModel::traffic(const engine::CohortContext& ctx, const TrafficInputs& in) const {
  GemmTraffic t;
  const GemmGeometry& g = plan_.geometry;
  // A persistent workgroup walks tiles wg, wg + grid, ...: its resident set is `grid` consecutive
  // tiles, the same shape as a non-persistent wave.
  t.hits.l2 = cache_.l2_hit(g, ctx.first_wg, in.tiles_here, in.comm_here, in.other_l2);
  t.hits.llc = cache_.llc_hit(g, t.hits.l2, in.tiles_total, in.pollution);
  t.l2_read = g.read_bytes_per_tile();
  const double miss = t.l2_read * (1.0 - t.hits.l2);
  t.read_miss = miss;
  t.fabric = miss + plan_.write_bytes_per_tile;
  t.llc = miss + plan_.write_bytes_per_tile;
  t.hbm = miss * (1.0 - t.hits.llc) + plan_.write_bytes_per_tile;
  t.memory_load_by_others = in.memory_load_by_others;
  t.hbm_load_by_others = in.hbm_load_by_others;
  return t;
}

engine::CohortWork GemmWorkgroupModel::work_for(const GemmTraffic& t, int xcd) const {
  const MemoryResources& m = res_.memory(KernelClass::gemm);
  engine::CohortWork w;
  w.work_per_wg = plan_.tiles_per_wg;
  // Contention: a tile's memory waits lengthen with the utilization u that other kernels put on the
  // memory level it misses to; to first order the tile stretches by 1 + f * u. (First order on
  // purpose: the loss then scales with the bytes the other kernel moves, not with how fast it moves
  // them, so a faster collective never hurts the GEMM more in total.) Behind an LLC, u weighs the
  // LLC's and HBM's loads by the share of the misses' latency spent at each (queueing_utilization.h).
  const double u_seen = hbm_queueing_ ? queueing_utilization(t.memory_load_by_others, t.hbm_load_by_others,
                                                             t.hits.llc, hbm_latency_ratio_)
                                      : t.memory_load_by_others;
  const double u = state_.isolate_queueing ? 0.0 : std::clamp(u_seen, 0.0, 1.0);
  const double stretch = 1.0 + stall_fraction_ * u;
  // Tiles per second on one CU: its matrix units, and, where the preset sets it, how fast one CU can
  // have its L2 misses served: a fixed number in flight over their latency (Little's law), which is
  // longer for the share the LLC passes on to HBM, and stretches under load like the rest of the
  // tile's memory waits. So losing the LLC hits a collective's streams evict slows the tile too.
  double bound = 1.0 / (plan_.flops_per_tile / plan_.cu_flop_rate + plan_.exposed_store_s);
  if (cu_miss_bw_ > 0 && t.read_miss > 0) {
    const double latency_weight = t.hits.llc + (1.0 - t.hits.llc) * hbm_latency_ratio_;
    bound = std::min(bound, cu_miss_bw_ / (t.read_miss * latency_weight));
  }
  w.bound_per_wg = bound / stretch;
  const auto x = static_cast<size_t>(xcd);
  w.demands.reserve(4);
  w.demands.push_back({m.l2[x], t.l2_read});
  w.demands.push_back({m.fabric[x], t.fabric});
  if (m.llc >= 0) w.demands.push_back({m.llc, t.llc});
  w.demands.push_back({m.hbm, t.hbm});
  res_.add_power_demand(w.demands, plan_.flops_per_tile * plan_.energy_scale);
  return w;
}

engine::CohortWork GemmWorkgroupModel::cohort_work(const engine::CohortContext& ctx) {
  own_ = ctx.owner.kernel;
  const TrafficInputs in = inputs(ctx);
  const GemmTraffic t = traffic(ctx, in);
  const double tiles = plan_.tiles_per_wg * ctx.count;
  bytes_.llc += tiles * t.llc;
  bytes_.hbm += tiles * t.hbm;
  // Round unknown: the state may have moved since the last begin_refresh (a dispatch round
  // starts cohorts before the residency listener updates it).
  handed_out(ctx.slot) = HandedOut{in, t, 0};
  return work_for(t, ctx.xcd);
}

void GemmWorkgroupModel::read_shared(SharedState& out) const {
  out.comm = state_.comm_wgs;
  out.resident.resize(out.comm.size());
  for (size_t x = 0; x < out.resident.size(); ++x)
    out.resident[x] = state_.resident(own_, static_cast<int>(x));
  out.other_gemms.clear();
  for (const std::int32_t k : state_.resident_gemms()) {
    if (k == own_) continue;
    const InterferenceState::Residency& r = state_.residency(k);
    out.other_gemms.push_back(k);
    out.other_gemms.push_back(r.total);
    out.other_gemms.insert(out.other_gemms.end(), r.per_xcd.begin(), r.per_xcd.end());
  }
  out.total = state_.resident_total(own_);
  out.pollution = state_.llc_pollution_bytes;
  out.memory_load_by_others = state_.memory_load_of_others(own_, workgroups_only_);
  out.hbm_load_by_others = state_.hbm_load_of_others(own_, workgroups_only_);
}

bool GemmWorkgroupModel::shared_unchanged() const {
  // The cheap scalars first: most rounds that differ differ there.
  if (shared_.total != state_.resident_total(own_) || shared_.pollution != state_.llc_pollution_bytes ||
      shared_.memory_load_by_others != state_.memory_load_of_others(own_, workgroups_only_) ||
      shared_.hbm_load_by_others != state_.hbm_load_of_others(own_, workgroups_only_) ||
      shared_.comm != state_.comm_wgs) {
    return false;
  }
  for (size_t x = 0; x < shared_.resident.size(); ++x) {
    if (shared_.resident[x] != state_.resident(own_, static_cast<int>(x))) return false;
  }
  size_t at = 0;
  for (const std::int32_t k : state_.resident_gemms()) {
    if (k == own_) continue;
    const InterferenceState::Residency& r = state_.residency(k);
    if (at + 2 + r.per_xcd.size() > shared_.other_gemms.size() || shared_.other_gemms[at] != k ||
        shared_.other_gemms[at + 1] != r.total ||
        !std::equal(r.per_xcd.begin(), r.per_xcd.end(),
                    shared_.other_gemms.begin() + static_cast<std::ptrdiff_t>(at + 2))) {
      return false;
    }
    at += 2 + r.per_xcd.size();
  }
  return at == shared_.other_gemms.size();
}

void GemmWorkgroupModel::begin_refresh() {
  if (shared_unchanged()) return;
  read_shared(shared_);
  ++round_;
}

GemmWorkgroupModel::HandedOut& GemmWorkgroupModel::handed_out(std::int32_t slot) {
  const auto i = static_cast<size_t>(slot);
  if (handed_out_.size() <= i) handed_out_.resize(i + 1);
  return handed_out_[i];
}

std::optional<engine::CohortWork> GemmWorkgroupModel::refresh(const engine::CohortContext& ctx) {
  // cohort_work wrote this cohort's entry when it started (the dispatcher refreshes running
  // cohorts only, each round after begin_refresh).
  HandedOut& entry = handed_out_[static_cast<size_t>(ctx.slot)];
  if (entry.round == round_) return std::nullopt;  // read this round: the same inputs
  const TrafficInputs in = inputs(ctx);
  if (entry.inputs == in) {
    entry.round = round_;
    return std::nullopt;  // nothing it depends on changed
  }
  const GemmTraffic t = traffic(ctx, in);
  const GemmTraffic& was = entry.traffic;
  // work_for reads read_miss and the LLC hit rate beside these: read_miss is fabric less the
  // (fixed) output write, and with equal misses equal hbm means an equal LLC hit rate.
  const bool same = was.fabric == t.fabric && was.llc == t.llc && was.hbm == t.hbm &&
                    was.memory_load_by_others == t.memory_load_by_others &&
                    was.hbm_load_by_others == t.hbm_load_by_others;
  entry = HandedOut{in, t, round_};
  if (same) return std::nullopt;  // same demands: leave the flow (and the solver) alone
  return work_for(t, ctx.xcd);
}

}  // namespace c3sim::models
