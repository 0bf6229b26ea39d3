#pragma once
// Capacity model of GEMM hit rates in the XCD L2 and the memory-side LLC.
//
// L2 (per XCD). Workgroups go round-robin over XCDs, tiles are numbered row-major (n fastest), so
// the tiles resident on one XCD share some A row-panels and B column-panels: every xcds-th tile,
// or, where the library remaps workgroups (model.gemm.workgroup_remap: xcd_contiguous), a
// contiguous run of tiles. Sharing turns reads
// into hits only while the shared panel stays in L2: the live footprint is the unique panels'
// K-slices of depth `l2_reuse_depth_k`, plus what collective workgroups on the same XCD stage
// through L2. hit = (1 - unique/total panel reads) * min(1, L2 / footprint). Fewer resident tiles
// (fewer CUs) means a smaller footprint and more hits: why memory-bound GEMMs can speed up when
// CUs are taken away (paper, Fig. 5 and footnote 3).
//
// LLC. L2 misses that re-read data (B panels are re-read once per row of tiles) hit the LLC only
// while B plus the A panels of rows in flight, plus the streams of concurrent collectives, fit.
// Without an LLC (Hopper) the same rule is applied to the L2 itself as the last level.
//
// Several GEMMs at once. Each GEMM's hits come from its OWN tiles' panel sharing (two GEMMs share
// no panels); every other resident kernel only takes capacity: in the L2 of an XCD, another
// GEMM's live panel slices there (l2_panel_footprint of its tiles on that XCD) and collective
// workgroups' staging; in the LLC, another GEMM's working set (llc_working_set: its B plus its A
// rows in flight, the same term the LLC rule counts for the GEMM itself) and collectives' streams.
// Both enter the capacity factor min(1, capacity / footprint) as pollution, the rule this model
// already applied to collectives. Assumption: LRU-like sharing in proportion to footprint, no
// partitioning or priority between kernels in the caches.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "hardware/node_spec.h"

namespace c3sim::models {

struct GemmGeometry {
  std::int64_t tiles_m = 0, tiles_n = 0;
  double tile_m = 0, tile_n = 0;  // average tile size (rows, cols)
  double k = 0;
  double elt_bytes = 2;
  double a_bytes = 0, b_bytes = 0;
  [[nodiscard]] std::int64_t tiles() const { return tiles_m * tiles_n; }
  [[nodiscard]] double read_bytes_per_tile() const { return k * (tile_m + tile_n) * elt_bytes; }
};

struct HitRates {
  double l2 = 0;
  double llc = 0;
};

class CacheModel {
public:
  explicit CacheModel(const hw::NodeSpec& spec);

  // Panel-sharing and capacity for `tiles_on_xcd` resident tiles starting near tile `first_tile`
  // with `xcds` XCDs interleaved; `comm_wgs` collective workgroups share the L2, and
  // `other_bytes` of other kernels' data (other GEMMs' l2_panel_footprint) is live in it too.
  [[nodiscard]] double l2_hit(const GemmGeometry& g, std::int64_t first_tile, int tiles_on_xcd, int comm_wgs,
                              double other_bytes = 0.0) const;
  // `concurrent_tiles` of this GEMM over the whole GPU; `pollution_bytes` from concurrent
  // collectives and other GEMMs (their llc_working_set).
  [[nodiscard]] double llc_hit(const GemmGeometry& g, double l2_hit, int concurrent_tiles,
                               double pollution_bytes) const;
  // Bytes of L2 that `tiles_on_xcd` resident tiles from `first_tile` keep live: their unique
  // panels' K-slices of depth l2_reuse_depth_k.
  [[nodiscard]] double l2_panel_footprint(const GemmGeometry& g, std::int64_t first_tile,
                                          int tiles_on_xcd) const;
  // Bytes of the last level a GEMM with `concurrent_tiles` resident keeps live: B plus the A
  // panels of the rows in flight.
  [[nodiscard]] double llc_working_set(const GemmGeometry& g, int concurrent_tiles) const;

private:
  struct Sharing {
    double unique_rows = -1;
    double unique_cols = -1;
  };
  // Unique A row-panels and B column-panels among the tiles on one XCD; depends only on the tile
  // grid, the first tile and the count, so it is memoized (refreshes, and every policy of a sweep,
  // ask the same questions many times).
  [[nodiscard]] Sharing sharing(const GemmGeometry& g, std::int64_t first_tile, int tiles_on_xcd) const;

  // Per tile grid (tiles_m, tiles_n): an open-addressing hash table (linear probing, at most half
  // full) of (first tile, tile count) packed into one key. One flat array: asked for every cohort
  // started, where a table of per-tile vectors cost a heap allocation per new first tile and two
  // dependent cache misses per ask. Memory grows with the questions asked, not the tile count.
  struct SharingSlot {
    std::uint64_t key = kEmptySlot;
    Sharing value;
  };
  static constexpr std::uint64_t kEmptySlot = ~std::uint64_t{0};
  struct SharingTable {
    std::vector<SharingSlot> slots;
    std::size_t used = 0;
  };
  // The memo entry for a question in the current grid's table (inserted, not computed, if new);
  // nullptr when the question does not pack into a key.
  [[nodiscard]] Sharing* sharing_slot(std::int64_t first_tile, int tiles_on_xcd) const;
  // Where `key` is, or the empty slot where it goes.
  [[nodiscard]] static SharingSlot* sharing_slot_insert(SharingTable& table, std::uint64_t key);
  mutable std::map<std::pair<std::int64_t, std::int64_t>, SharingTable> sharing_memo_;
  mutable std::pair<std::int64_t, std::int64_t> last_grid_{-1, -1};
  mutable SharingTable* last_table_ = nullptr;
  mutable std::vector<std::int64_t> scratch_rows_, scratch_cols_;
  int xcds_;
  double l2_bytes_;
  double llc_bytes_;  // last-level capacity: the LLC, or the L2 when there is none
  int reuse_depth_k_;
  int swizzle_;
  hw::WorkgroupRemap remap_;
  double comm_wg_footprint_;
};

}  // namespace c3sim::models
