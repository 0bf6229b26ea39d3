#pragma once
// The GEMM tile model: how a vendor library kernel splits C into macro-tiles, what one tile costs
// (FLOPs on its CU; panel reads through L2, misses to LLC/HBM; the output write), and the
// workgroup model the dispatcher uses to turn a cohort of tiles into a fluid flow. Wave
// quantization and tail effects are not in any formula: they come out of the dispatcher.
#include <cstdint>
#include <optional>
#include <vector>

#include "hardware/node_spec.h"
#include "models/node/cache_model.h"
#include "models/node/interference_state.h"
#include "models/node/node_resources.h"
#include "sim/engine/workgroup_model.h"
#include "workloads/gemm.h"

namespace c3sim::models {

struct GemmPlan {
  wl::Gemm gemm;
  GemmGeometry geometry;
  bool persistent = false;
  std::int64_t workgroups = 0;  // tiles, or the persistent grid
  double tiles_per_wg = 1.0;
  // Persistent with a shared tile queue (model.gemm.dynamic_tiles): launched as one workgroup per
  // tile whose CUs stay with the kernel (engine::KernelDesc::holds_cus), so a workgroup that starts
  // late takes the tiles left rather than a fixed share.
  bool holds_cus = false;
  double flops_per_tile = 0;
  // J per tile's FLOPs relative to model.power.energy_per_flop: the dtype's dtype_energy (1 for bf16).
  double energy_scale = 1;
  double write_bytes_per_tile = 0;
  double cu_flop_rate = 0;  // achieved FLOP/s of one CU on this dtype
  // model.gemm.epilogue_exposed: seconds per tile the output store adds after the mainloop (the
  // exposed share of the tile's write at one CU's share of HBM bandwidth).
  double exposed_store_s = 0;
};

// The compute efficiency (achieved / peak FLOP rate per CU) the library runs `gemm` at: the shape's
// own library entry (hardware/gemm_library.h), else the dtype's model.gemm.dtype_efficiency, else
// model.gemm.matrix_efficiency.
double gemm_efficiency(const wl::Gemm& gemm, const hw::NodeSpec& spec);

// `cus_available`: CUs the kernel may use (sets a persistent kernel's grid, like
// cublasSetSmCountTarget or a green context does).
// `beside_partition`: the GEMM runs in the units left beside another stream's partition (the rp
// policies), at model.gemm.beside_partition_efficiency of its compute rate.
GemmPlan plan_gemm(const wl::Gemm& gemm, const hw::NodeSpec& spec, int cus_available,
                   bool beside_partition = false);

struct GemmTraffic {
  double l2_read = 0;    // bytes per tile, CU <- L2
  double read_miss = 0;  // bytes per tile read past the L2 (latency-bound: see cu_miss_bandwidth)
  double fabric = 0;     // bytes per tile between the XCD and LLC/HBM
  double llc = 0;
  double hbm = 0;
  double memory_load_by_others = 0;  // the queueing inputs the bound was computed with: the queueing
  double hbm_load_by_others = 0;     //   level's (LLC, or HBM) and, behind an LLC, HBM's
  HitRates hits;
};

class GemmWorkgroupModel final : public engine::WorkgroupModel {
public:
  // `cache` is shared by the simulator's runs (its memo outlives one kernel); it must outlive the
  // model.
  GemmWorkgroupModel(GemmPlan plan, const hw::NodeSpec& spec, const CacheModel& cache,
                     const NodeResources& res, const InterferenceState& state);

  [[nodiscard]] engine::CohortWork cohort_work(const engine::CohortContext& ctx) override;
  void begin_refresh() override;
  [[nodiscard]] std::optional<engine::CohortWork> refresh(const engine::CohortContext& ctx) override;

  [[nodiscard]] const GemmPlan& plan() const { return plan_; }
  // Per-tile traffic for a cohort on `xcd` given the current residency.
  [[nodiscard]] GemmTraffic traffic(const engine::CohortContext& ctx) const;
  // Bytes the kernel moves at each level (for Fig. 6 and the op-to-byte class): every cohort's
  // tiles at the per-tile traffic it started with, summed over the cohorts started so far.
  // Not the last cohort's traffic times all tiles: which cohort is computed last, and against
  // which residency, is a tie-break of the dispatcher (the tail wave, or whichever of an
  // instant's cohorts went last), and it moved a GEMM's bytes by up to 1.8x.
  struct Bytes {
    double llc = 0;
    double hbm = 0;
  };
  [[nodiscard]] const Bytes& bytes() const { return bytes_; }

private:
  engine::CohortWork work_for(const GemmTraffic& t, int xcd) const;

  GemmPlan plan_;
  const CacheModel& cache_;
  const NodeResources& res_;
  const InterferenceState& state_;
  double stall_fraction_;
  bool workgroups_only_;  // model.gemm.memory_stall_workgroups_only: copy engines' traffic does not stall it
  double cu_miss_bw_;     // 0: no per-CU miss limit
  double hbm_latency_ratio_;
  bool hbm_queueing_;  // model.memory.hbm_queueing, with an LLC
  Bytes bytes_;
  // What a cohort's traffic depends on besides its own position and size.
  struct TrafficInputs {
    int tiles_here = -1, comm_here = -1, tiles_total = -1;
    double other_l2 = -1;  // bytes of other GEMMs' panels live in this XCD's L2
    double pollution = -1, memory_load_by_others = -1, hbm_load_by_others = -1;
    bool operator==(const TrafficInputs&) const = default;
  };
  [[nodiscard]] TrafficInputs inputs(const engine::CohortContext& ctx) const;
  [[nodiscard]] GemmTraffic traffic(const engine::CohortContext& ctx, const TrafficInputs& in) const;
  // Per running cohort (by its dispatcher slot, CohortContext::slot): the inputs and traffic last
  // handed out, so refreshes that change nothing skip the cache model and leave the solver alone.
  // A vector, not a map by first workgroup: a map's node per cohort would be a heap allocation on every
  // cohort start, and slots are few and reused.
  struct HandedOut {
    TrafficInputs inputs;
    GemmTraffic traffic;
    std::uint64_t round = 0;  // the shared-state round its inputs were read in (0: none known)
  };
  std::vector<HandedOut> handed_out_;
  HandedOut& handed_out(std::int32_t slot);
  // Everything inputs() reads besides the cohort's own place and size, as of the last
  // begin_refresh(); `round_` moves on whenever it differs from the round before. A cohort whose
  // inputs were read in the current round has the same inputs now: its refresh is skipped without
  // reading the state (most refreshes: a retired cohort's place is usually refilled at once).
  struct SharedState {
    std::vector<int> resident;     // per XCD: this GEMM's workgroups
    std::vector<int> comm;         // per XCD: non-GEMM workgroups
    std::vector<int> other_gemms;  // per other resident GEMM: id, total, per-XCD counts
    int total = 0;                 // this GEMM's workgroups on the GPU
    double pollution = 0, memory_load_by_others = 0, hbm_load_by_others = 0;
    bool operator==(const SharedState&) const = default;
  };
  void read_shared(SharedState& out) const;
  [[nodiscard]] bool shared_unchanged() const;
  std::int32_t own_ = -1;  // this GEMM's kernel id (CohortContext::owner), known from its first cohort
  SharedState shared_;
  std::uint64_t round_ = 1;
};

}  // namespace c3sim::models
