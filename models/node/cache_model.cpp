#include "models/node/cache_model.h"

#include <algorithm>
#include <cmath>

namespace c3sim::models {

CacheModel::CacheModel(const hw::NodeSpec& spec)
    : xcds_(spec.compute.xcds),
      l2_bytes_(spec.memory.l2_bytes_per_xcd),
      llc_bytes_(spec.memory.llc_bytes > 0 ? spec.memory.llc_bytes
                                           : spec.memory.l2_bytes_per_xcd * spec.compute.xcds),
      reuse_depth_k_(spec.model.gemm.l2_reuse_depth_k),
      swizzle_(spec.model.gemm.tile_swizzle),
      remap_(spec.model.gemm.workgroup_remap),
      comm_wg_footprint_(spec.model.collective.l2_footprint_per_workgroup) {}

CacheModel::Sharing CacheModel::sharing(const GemmGeometry& g, std::int64_t first_tile,
                                        int tiles_on_xcd) const {
  const std::int64_t total = g.tiles();
  const std::int64_t first = first_tile % total;
  const std::pair<std::int64_t, std::int64_t> grid{g.tiles_m, g.tiles_n};
  if (last_table_ == nullptr || grid != last_grid_) {
    last_table_ = &sharing_memo_[grid];
    last_grid_ = grid;
  }
  Sharing scratch;  // a question too large to pack into a key is answered without the memo
  Sharing* slot = sharing_slot(first, tiles_on_xcd);
  Sharing& memo = slot != nullptr ? *slot : scratch;
  if (memo.unique_rows >= 0) return memo;
  // Tiles on this XCD. The cohort's workgroups are first_tile, first_tile + xcds, ... (workgroup i
  // runs on XCD i mod xcds). round_robin: workgroup i computes tile i, so the XCD holds every
  // xcds-th tile. xcd_contiguous: the kernel maps its j-th workgroup on XCD x to tile
  // x * ceil(tiles / xcds) + j (Tensile's WorkGroupMappingXCC), so the XCD holds consecutive tiles.
  const bool contiguous = remap_ == hw::WorkgroupRemap::xcd_contiguous;
  const std::int64_t per_xcd = (total + xcds_ - 1) / xcds_;
  const std::int64_t start = contiguous ? (first_tile % xcds_) * per_xcd + first_tile / xcds_ : first_tile;
  const std::int64_t stride = contiguous ? 1 : xcds_;
  scratch_rows_.clear();
  scratch_cols_.clear();
  for (int j = 0; j < tiles_on_xcd; ++j) {
    const std::int64_t t = (start + static_cast<std::int64_t>(j) * stride) % total;
    // Rasterization: bands of `swizzle_` rows walked column by column (1 = plain row-major).
    const std::int64_t band_rows = std::min<std::int64_t>(swizzle_, g.tiles_m);
    const std::int64_t band_size = band_rows * g.tiles_n;
    const std::int64_t band = t / band_size;
    const std::int64_t in_band = t % band_size;
    const std::int64_t rows_here = std::min<std::int64_t>(band_rows, g.tiles_m - band * band_rows);
    scratch_rows_.push_back(band * band_rows + in_band % rows_here);
    scratch_cols_.push_back(in_band / rows_here);
  }
  auto count_unique = [](std::vector<std::int64_t>& v) {
    std::sort(v.begin(), v.end());
    return static_cast<double>(std::unique(v.begin(), v.end()) - v.begin());
  };
  memo = Sharing{count_unique(scratch_rows_), count_unique(scratch_cols_)};
  return memo;
}

CacheModel::Sharing* CacheModel::sharing_slot(std::int64_t first_tile, int tiles_on_xcd) const {
  constexpr int kCountBits = 24;
  if (first_tile < 0 || first_tile >= (std::int64_t{1} << (64 - kCountBits)) || tiles_on_xcd < 0 ||
      tiles_on_xcd >= (1 << kCountBits))
    return nullptr;
  const std::uint64_t key =
      (static_cast<std::uint64_t>(first_tile) << kCountBits) | static_cast<std::uint64_t>(tiles_on_xcd);
  SharingTable& table = *last_table_;
  if (2 * (table.used + 1) > table.slots.size()) {
    // Grow to keep probes short; entries move, their values do not change.
    std::vector<SharingSlot> old = std::move(table.slots);
    table.slots.assign(std::max<std::size_t>(1024, 2 * old.size()), SharingSlot{});
    table.used = 0;
    for (const SharingSlot& s : old) {
      if (s.key == kEmptySlot) continue;
      *sharing_slot_insert(table, s.key) = s;
      ++table.used;
    }
  }
  SharingSlot* s = sharing_slot_insert(table, key);
  if (s->key == kEmptySlot) {
    s->key = key;
    ++table.used;
  }
  return &s->value;
}

CacheModel::SharingSlot* CacheModel::sharing_slot_insert(SharingTable& table, std::uint64_t key) {
  const std::size_t mask = table.slots.size() - 1;  // a power of two
  // Fibonacci hashing spreads consecutive first tiles over the table.
  std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
  while (table.slots[i].key != kEmptySlot && table.slots[i].key != key) i = (i + 1) & mask;
  return &table.slots[i];
}

double CacheModel::l2_panel_footprint(const GemmGeometry& g, std::int64_t first_tile,
                                      int tiles_on_xcd) const {
  if (tiles_on_xcd <= 0) return 0.0;
  const Sharing sh = sharing(g, first_tile, tiles_on_xcd);
  return (sh.unique_rows * g.tile_m + sh.unique_cols * g.tile_n) * reuse_depth_k_ * g.elt_bytes;
}

double CacheModel::l2_hit(const GemmGeometry& g, std::int64_t first_tile, int tiles_on_xcd, int comm_wgs,
                          double other_bytes) const {
  if (tiles_on_xcd <= 0) return 0.0;
  const Sharing sh = sharing(g, first_tile, tiles_on_xcd);
  const double unique_fraction =
      (sh.unique_rows * g.tile_m + sh.unique_cols * g.tile_n) / (tiles_on_xcd * (g.tile_m + g.tile_n));
  const double footprint =
      l2_panel_footprint(g, first_tile, tiles_on_xcd) + comm_wgs * comm_wg_footprint_ + other_bytes;
  const double capacity_factor = footprint > 0 ? std::min(1.0, l2_bytes_ / footprint) : 1.0;
  return std::clamp((1.0 - unique_fraction) * capacity_factor, 0.0, 1.0);
}

double CacheModel::llc_working_set(const GemmGeometry& g, int concurrent_tiles) const {
  const double rows_in_flight =
      std::ceil(static_cast<double>(std::max(concurrent_tiles, 1)) / static_cast<double>(g.tiles_n)) + 1.0;
  const double a_panel = g.tile_m * g.k * g.elt_bytes;
  return g.b_bytes + rows_in_flight * a_panel;
}

double CacheModel::llc_hit(const GemmGeometry& g, double l2_hit, int concurrent_tiles,
                           double pollution_bytes) const {
  const double miss_bytes = static_cast<double>(g.tiles()) * g.read_bytes_per_tile() * (1.0 - l2_hit);
  if (miss_bytes <= 0) return 0.0;
  // Compulsory misses (each input read once) can never hit.
  const double reusable = std::max(0.0, 1.0 - (g.a_bytes + g.b_bytes) / miss_bytes);
  const double footprint = llc_working_set(g, concurrent_tiles) + pollution_bytes;
  const double capacity_factor = std::min(1.0, llc_bytes_ / footprint);
  return std::clamp(reusable * capacity_factor, 0.0, 1.0);
}

}  // namespace c3sim::models
