#pragma once
// What is resident on the GPU right now, as far as the cache model cares: each kernel's
// workgroups per XCD (a GEMM's with its tile geometry, so the others can see its footprint), the
// per-XCD sums by class, and the LLC footprint of running collectives (CU or DMA).
// Updated from the dispatcher's residency listener and by collectives as they start and stop.
//
// Costs: set_resident O(1) (plus a sorted insert or erase in the resident-GEMM list when a GEMM
// starts or stops being resident); set_load O(1) (plus a sorted insert or erase in the loaded list
// when a kernel gains or loses its load); memory_load_of_others / hbm_load_of_others O(kernels
// with a load), not O(kernels of the program). Memory per kernel id: ~40 B + 4 B x XCDs of
// residency, 17 B of loads.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/node/cache_model.h"

namespace c3sim::models {

struct InterferenceState {
  // Kept as sums over kernels, updated by set_resident with each change (never recomputed):
  std::vector<int> gemm_tiles;     // per XCD: workgroups (tiles) of every resident GEMM
  std::vector<int> comm_wgs;       // per XCD: workgroups of every resident non-GEMM kernel
  double llc_pollution_bytes = 0;  // LLC footprint of running collectives' streams
  // By program kernel id (FlowOwner::kernel): the utilization each kernel's own traffic puts on
  // the last memory level it queues at (LLC, or HBM without one). A kernel's memory requests
  // queue behind everyone else's, so its exposed memory latency grows with
  // memory_load_of_others(it): the sum over every other running kernel (with two kernels, the
  // GEMM sees the collective's load and the collective the GEMM's). Written through set_load().
  std::vector<double> memory_load;
  // By kernel, as memory_load: the utilization each kernel's traffic puts on HBM behind the LLC.
  // Filled only where there is an LLC (without one, memory_load already is HBM's). Requests that
  // miss the LLC queue at the HBM channels too (models/node/queueing_utilization.h). Written through
  // set_load().
  std::vector<double> hbm_load;
  // Counterfactual for attribution: hit rates as if each kernel ran alone.
  bool isolate_caches = false;
  // Counterfactual for attribution: no kernel's memory latency queues behind the other's traffic.
  bool isolate_queueing = false;
  // Counterfactual for attribution by source: GEMMs (kernel ids) whose footprint the other
  // kernels' caches do not see.
  std::vector<std::int32_t> cache_hidden;

  // One kernel's residency, by kernel id.
  struct Residency {
    std::optional<GemmGeometry> gemm;  // set for GEMMs: their tiles count in gemm_tiles
    std::vector<int> per_xcd;
    int total = 0;
  };

  explicit InterferenceState(int xcds = 1)
      : gemm_tiles(static_cast<size_t>(xcds), 0), comm_wgs(static_cast<size_t>(xcds), 0) {}

  // Kernel `kernel` is a GEMM of this tile geometry (before any of its workgroups are resident).
  void declare_gemm(std::int32_t kernel, const GemmGeometry& g) { slot(kernel).gemm = g; }

  // Kernel `kernel` has `count` workgroups on XCD `xcd` now. O(1) plus, when a GEMM starts or
  // stops being resident, the resident-GEMM list (a handful of entries).
  void set_resident(std::int32_t kernel, int xcd, int count) {
    Residency& r = slot(kernel);
    int& here = r.per_xcd[static_cast<size_t>(xcd)];
    const int delta = count - here;
    if (delta == 0) return;
    const bool was = r.total > 0;
    here = count;
    r.total += delta;
    (r.gemm ? gemm_tiles : comm_wgs)[static_cast<size_t>(xcd)] += delta;
    if (r.gemm && was != (r.total > 0)) {
      const auto at = std::lower_bound(resident_gemms_.begin(), resident_gemms_.end(), kernel);
      if (r.total > 0) {
        resident_gemms_.insert(at, kernel);
      } else {
        resident_gemms_.erase(at);
      }
    }
  }

  [[nodiscard]] int resident(std::int32_t kernel, int xcd) const {
    const Residency* r = find(kernel);
    return r != nullptr ? r->per_xcd[static_cast<size_t>(xcd)] : 0;
  }
  [[nodiscard]] int resident_total(std::int32_t kernel) const {
    const Residency* r = find(kernel);
    return r != nullptr ? r->total : 0;
  }
  [[nodiscard]] const Residency& residency(std::int32_t kernel) const {
    return kernels_[static_cast<size_t>(kernel)];
  }
  // Kernel ids of the GEMMs with workgroups resident, ascending (so sums over them are
  // deterministic).
  [[nodiscard]] const std::vector<std::int32_t>& resident_gemms() const { return resident_gemms_; }

  [[nodiscard]] bool hidden_from_caches(std::int32_t kernel) const {
    return std::find(cache_hidden.begin(), cache_hidden.end(), kernel) != cache_hidden.end();
  }

  // Kernel `kernel`'s entries of memory_load and, where hbm_load reaches it, hbm_load (both sized
  // by the caller); `copy_engine`: its traffic comes from copy engines, not from workgroups on the
  // CUs. Keeps the list of kernels with a load, so the sums below visit only those: the vectors
  // are indexed by kernel id, and a long program's ended kernels leave zeros there.
  // O(loaded kernels) when a kernel gains or loses its load, O(1) otherwise.
  void set_load(std::int32_t kernel, double memory, double hbm, bool copy_engine = false) {
    const auto k = static_cast<size_t>(kernel);
    memory_load[k] = memory;
    if (k < hbm_load.size()) hbm_load[k] = hbm;
    if (copy_engine_.size() <= k) copy_engine_.resize(k + 1, 0);
    copy_engine_[k] = copy_engine ? 1 : 0;
    const bool loaded = memory != 0 || (k < hbm_load.size() && hbm != 0);
    const auto at = std::lower_bound(loaded_.begin(), loaded_.end(), kernel);
    const bool listed = at != loaded_.end() && *at == kernel;
    if (loaded && !listed) loaded_.insert(at, kernel);
    if (!loaded && listed) loaded_.erase(at);
  }
  // Kernel ids with a nonzero memory_load or hbm_load entry, ascending.
  [[nodiscard]] const std::vector<std::int32_t>& loaded_kernels() const { return loaded_; }

  // `workgroups_only`: leave out the copy engines' traffic (model.gemm.memory_stall_workgroups_only).
  [[nodiscard]] double memory_load_of_others(std::int32_t kernel, bool workgroups_only = false) const {
    return others(memory_load, kernel, workgroups_only);
  }
  [[nodiscard]] double hbm_load_of_others(std::int32_t kernel, bool workgroups_only = false) const {
    return others(hbm_load, kernel, workgroups_only);
  }

private:
  Residency& slot(std::int32_t kernel) {
    const auto k = static_cast<size_t>(kernel);
    if (kernels_.size() <= k) kernels_.resize(k + 1);
    Residency& r = kernels_[k];
    if (r.per_xcd.empty()) r.per_xcd.assign(gemm_tiles.size(), 0);
    return r;
  }
  [[nodiscard]] const Residency* find(std::int32_t kernel) const {
    const auto k = static_cast<size_t>(kernel);
    return k < kernels_.size() && !kernels_[k].per_xcd.empty() ? &kernels_[k] : nullptr;
  }
  // Summed in kernel-id order, so the same loads always give the same bits (the zeros of the
  // kernels not listed would add nothing: every load is >= 0).
  [[nodiscard]] double others(const std::vector<double>& load, std::int32_t kernel,
                              bool workgroups_only) const {
    double sum = 0;
    for (const std::int32_t k : loaded_) {
      const auto i = static_cast<size_t>(k);
      if (workgroups_only && i < copy_engine_.size() && copy_engine_[i] != 0) continue;
      if (k != kernel && i < load.size()) sum += load[i];
    }
    return sum;
  }

  std::vector<Residency> kernels_;
  std::vector<std::int32_t> loaded_;       // see loaded_kernels()
  std::vector<std::uint8_t> copy_engine_;  // by kernel id: 1 where set_load said copy engines move its bytes
  std::vector<std::int32_t> resident_gemms_;
};

}  // namespace c3sim::models
