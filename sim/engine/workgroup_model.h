#pragma once
// The narrow interface between the dispatcher and the models: when the dispatcher places a cohort
// of identical workgroups on one XCD, it asks the kernel's model what one workgroup's work is and
// what it demands of the shared resources. The engine knows nothing about GEMMs or collectives.
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/engine/fluid_solver.h"
#include "sim/engine/identity.h"

namespace c3sim::engine {

using KernelId = std::int32_t;

struct CohortContext {
  int gpu = 0;
  int xcd = 0;
  int count = 0;              // workgroups in this cohort
  std::int64_t first_wg = 0;  // global index of the cohort's first workgroup (the next on its XCD)
  KernelId kernel = -1;
  FlowOwner owner;  // the kernel's owner tag (KernelDesc::owner)
  // Dense id of the running cohort on its dispatcher, in [0, most cohorts ever running at once):
  // unique among running cohorts, reused after one retires, so a model can keep per-cohort state
  // in a vector indexed by it (it writes the entry in cohort_work, before any refresh).
  std::int32_t slot = 0;
  // The cohort's phase: 0 from its dispatch; n after next_phase() gave it an n-th sequel.
  int phase = 0;
};

struct CohortWork {
  double work_per_wg = 1.0;          // units of work per workgroup (e.g. 1 tile, or bytes)
  std::vector<Demand> demands;       // resource units per unit of work
  double bound_per_wg = kUnbounded;  // max rate of one workgroup, work units per second
  TimePs startup_latency = 0;        // held CUs but no progress yet (protocol handshakes)
  // How a phase after the first is drawn in traces ("send" makes "send <kernel> x<count>", drawn as
  // `phase_kind`); phase 0 keeps the kernel's name and kind.
  const char* phase_label = nullptr;
  KernelKind phase_kind = KernelKind::other;
  // A phase after the first that needs no CU (stores in flight draining after the workgroup
  // exited): the cohort's CUs are given back when it starts, and the kernel ends only when every
  // detached phase has. A detached phase is the cohort's last; it is never refreshed.
  bool detached = false;
};

class WorkgroupModel {
public:
  virtual ~WorkgroupModel() = default;
  WorkgroupModel() = default;
  WorkgroupModel(const WorkgroupModel&) = delete;
  WorkgroupModel& operator=(const WorkgroupModel&) = delete;

  [[nodiscard]] virtual CohortWork cohort_work(const CohortContext& ctx) = 0;
  // Called once per refresh round (GpuDispatcher::refresh_all), before refresh() is asked for any
  // of the kernel's running cohorts, so a model can tell once per round, rather than once per
  // cohort, whether anything it reads has changed since the last round.
  virtual void begin_refresh() {}
  // Asked again whenever residency changes on the GPU (other cohorts arrive or leave), so cache
  // pressure can change the demands of a running cohort. nullopt = unchanged.
  [[nodiscard]] virtual std::optional<CohortWork> refresh(const CohortContext& ctx) {
    (void)ctx;
    return std::nullopt;
  }
  // A workgroup that does its work in phases (compute its tile, then write it to the peers): when
  // a cohort's current phase ends, the dispatcher asks for the next, with ctx.phase already the
  // next phase's number. A phase is its own flow with its own work, demands, bound and startup
  // latency; the cohort keeps its CUs throughout. nullopt = the workgroups are done (they retire).
  [[nodiscard]] virtual std::optional<CohortWork> next_phase(const CohortContext& ctx) {
    (void)ctx;
    return std::nullopt;
  }
  // The cohort's workgroups have finished (before the dispatcher's next round and residency
  // update), so a model that counts its running workgroups can stop counting them.
  virtual void cohort_retired(const CohortContext& ctx) { (void)ctx; }
};

}  // namespace c3sim::engine
