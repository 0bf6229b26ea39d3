#pragma once
// One GPU's command processor and workgroup dispatcher.
//
// - Streams are hardware queues with a priority (larger = more urgent) and an optional CU mask.
//   Kernels on one stream run in order.
// - A kernel becomes dispatchable `launch_latency` after it reaches the head of its stream.
// - Dispatch: kernels with pending workgroups are served by (priority desc, arrival time asc). A
//   higher priority level takes every slot it can use first. Within one level, a kernel that
//   arrived later wins only `later_kernel_share` of the slots freed while an earlier kernel still
//   has workgroups pending (0: the earlier kernel claims everything; 0.5: fair round robin), plus
//   whatever the earlier one cannot use (masked CUs, nothing left to dispatch). The share is kept
//   as a per-XCD credit, so it is the same whether slots free one at a time or a cohort at once.
//   This is the starvation that schedule prioritization removes.
// - Workgroup i belongs to XCD i mod #XCDs (strict round-robin, MI300X single-partition mode);
//   each XCD dispatches its share as its own CUs free up, to the CU with the most free slots. The workgroups
//   a batch places on one XCD form a cohort that moves as one fluid flow; `max_cohort_size = 1` gives
//   per-workgroup fidelity.
// - Persistent kernels are ordinary kernels whose workgroups each carry many tiles: they hold
//   their CUs until done. A kernel with `holds_cus` (a persistent kernel whose workgroups take
//   tiles from a shared queue) is launched with one workgroup per tile instead: the CU a finished
//   workgroup frees goes straight back to the same kernel while it has workgroups pending, before
//   any other queue of any priority (the workgroup fetching its next tile), but a workgroup that
//   could not start for want of CUs takes its tiles only when it gets one.
// - A workgroup may work in phases (WorkgroupModel::next_phase): its cohort runs one flow per phase
//   in turn on the same CUs; a detached last phase (stores draining after the workgroup exited)
//   gives the CUs back when it starts, and the kernel ends when every such phase has.
//
// Costs (S streams, X XCDs, C CUs per XCD, R running kernels, H running cohorts):
// - launch: O(X) for the kernel's per-XCD counters, amortized O(1) append to its stream's queue;
//   memory per kernel ~ 200 B + 40 B x X for its record (a finished kernel's model and callback
//   are released: the record keeps its name and statistics).
// - a dispatch round (after every arrival and every instant's retires): O(S log S) to order the
//   stream heads, O(X) per ready kernel, O(workgroups placed) (O(1) per whole-CU workgroup from
//   per-XCD idle bit masks, O(C) otherwise).
// - retire: O(CUs the cohort held) + O(S) to settle free counts + O(H) to unlist the cohort.
// - refresh_all: O(R + H) model calls (the running-kernel list, sorted, O(R) to update on a
//   kernel's first placement and last retire).
// - resident(k, x), stats(k): O(1).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/cu_mask.h"
#include "sim/engine/simulation.h"
#include "sim/engine/workgroup_model.h"

namespace c3sim::engine {

using StreamId = std::int32_t;

struct GpuConfig {
  int index = 0;
  int xcds = 1;
  int cus_per_xcd = 1;
  int slots_per_cu = 1;           // occupancy units per CU (a workgroup takes slots_per_wg)
  int max_cohort_size = 1 << 30;  // 1 = per-workgroup simulation
  double later_kernel_share = 0;  // see the header comment; in [0, 0.5]
};

struct StreamConfig {
  std::string name;
  int priority = 0;
  CuMask mask;  // empty = all CUs
};

struct KernelDesc {
  std::string name;
  std::int64_t workgroups = 0;
  int slots_per_wg = 1;
  TimePs launch_latency = 0;
  FlowOwner owner;         // the program kernel it is and its kind; every cohort's flow carries it
  bool holds_cus = false;  // see the header comment
};

struct KernelStats {
  TimePs enqueued = -1;  // launch call
  TimePs arrived = -1;   // dispatchable
  TimePs first_dispatch = -1;
  TimePs last_dispatch = -1;
  TimePs finished = -1;
  std::int64_t workgroups = 0;
  double cu_seconds = 0;  // integral of CUs held over time
};

struct Cohort {
  KernelId kernel = -1;
  CohortContext ctx;
  FlowId flow;
  std::vector<std::pair<int, int>> cus;  // (cu, slots) held
  TimePs started = 0;
  std::int32_t slot = 0;  // CohortContext::slot: kept by the object, which is reused
  // The current phase (ctx.phase > 0: WorkgroupModel::next_phase): since when, and how traces draw it.
  TimePs phase_started = 0;
  const char* phase_label = nullptr;
  KernelKind phase_kind = KernelKind::other;
};

class GpuDispatcher {
public:
  using KernelDone = std::function<void(TimePs)>;
  using ResidencyListener = std::function<void(GpuDispatcher&)>;

  GpuDispatcher(Simulation& sim, GpuConfig config);

  StreamId add_stream(StreamConfig config);
  // Enqueues a kernel on a stream now.
  KernelId launch(StreamId stream, KernelDesc desc, std::shared_ptr<WorkgroupModel> model, KernelDone done);

  void set_residency_listener(ResidencyListener l) { listener_ = std::move(l); }

  [[nodiscard]] const GpuConfig& config() const { return config_; }
  [[nodiscard]] int total_cus() const { return config_.xcds * config_.cus_per_xcd; }
  [[nodiscard]] const KernelStats& stats(KernelId k) const {
    return kernels_.at(static_cast<size_t>(k)).stats;
  }
  [[nodiscard]] const KernelDesc& desc(KernelId k) const { return kernels_.at(static_cast<size_t>(k)).desc; }
  [[nodiscard]] const std::vector<std::unique_ptr<Cohort>>& cohorts() const { return cohorts_; }
  // A queued or running kernel's model (a finished kernel's is released).
  [[nodiscard]] WorkgroupModel& model(KernelId k) const { return *kernels_.at(static_cast<size_t>(k)).model; }
  // Workgroups of kernel k resident on XCD x right now.
  // Inline: the residency listener reads every kernel x XCD after every retire.
  [[nodiscard]] int resident(KernelId k, int xcd) const {
    return resident_.at(static_cast<size_t>(k)).at(static_cast<size_t>(xcd));
  }
  [[nodiscard]] int busy_cus() const;
  // Kernels with workgroups resident now (dispatched and not all finished), ascending.
  [[nodiscard]] const std::vector<KernelId>& running_kernels() const { return running_; }

  // Re-asks every running cohort's model for its demands (cache pressure changed).
  void refresh_all();

private:
  struct Kernel {
    KernelDesc desc;
    std::shared_ptr<WorkgroupModel> model;
    KernelDone done;
    StreamId stream = -1;
    std::int64_t next_wg = 0;              // workgroups dispatched so far
    std::vector<std::int64_t> dispatched;  // per XCD
    std::vector<std::int64_t> xcd_share;   // per XCD: its workgroups (round-robin share)
    std::vector<double> share_credit;      // per XCD: slots owed under later_kernel_share
    std::int64_t finished_wgs = 0;
    int detached_running = 0;  // detached phases (CohortWork::detached) not yet done: the kernel waits
    bool arrived = false;
    KernelStats stats;
  };
  struct Stream {
    StreamConfig config;
    std::vector<KernelId> queue;  // kernels in launch order; front is running/arriving
    size_t head = 0;
    std::vector<int> free_slots;  // per XCD: free slots on the CUs its mask allows
    std::vector<char> allow;      // per CU: its mask allows it (the mask unpacked: read per workgroup)
    std::vector<std::uint64_t> allow_bits;  // per XCD: the mask's CUs there as bits (<= 64 CUs per XCD)
  };

  void arrive(KernelId k);
  void start_head(StreamId s);
  bool try_dispatch();  // true if any workgroup was placed
  // Claims free CUs for workgroups of k, at most limits[x] on XCD x when limits is given.
  bool place(KernelId k, const std::vector<std::int64_t>* limits = nullptr);
  // Takes (or, negative, returns) slots on one CU, keeping every stream's free count in step.
  void take_slots(int cu, int slots);
  // Turns this dispatch round's claims into running cohorts.
  void start_claims();
  // Splits one priority level's free slots between its kernels (sorted by arrival).
  bool place_level(const std::vector<KernelId>& level);
  [[nodiscard]] std::int64_t free_capacity(KernelId k, int xcd) const;
  [[nodiscard]] int stream_priority(KernelId k) const;
  // Starts the flow of a cohort's current phase (after its startup latency).
  void start_phase(Cohort* raw, CohortWork w);
  // A cohort's phase flow ended: its next phase starts, or it retires.
  void phase_done(Cohort* c, TimePs now);
  // A cohort's detached last phase: its own flow, the cohort's CUs already given back.
  void start_detached(const Cohort& c, CohortWork w);
  // The kernel's last workgroup and detached phase are done: its stream moves on, its callback runs.
  void finish_kernel(KernelId k, TimePs now);
  // The span of a cohort's current phase on its XCD's track, ending now.
  void trace_phase(const Cohort& c, TimePs now);
  void retire(Cohort* c, TimePs now);
  // Dispatch and residency update for every cohort retired at this instant (deferred by retire).
  void after_retires();

  Simulation& sim_;
  GpuConfig config_;
  std::vector<int> free_slots_;  // per CU
  // Per XCD, bit c: CU c has every slot free. Lets whole-CU placement pick the lowest idle allowed
  // CUs without scanning the XCD; empty (scan instead) above 64 CUs per XCD.
  std::vector<std::uint64_t> idle_cus_;
  std::vector<Kernel> kernels_;
  std::vector<Stream> streams_;
  std::vector<std::unique_ptr<Cohort>> cohorts_;
  std::vector<std::unique_ptr<Cohort>> spare_cohorts_;  // retired, kept for reuse
  std::int32_t cohorts_made_ = 0;
  std::vector<std::vector<int>> resident_;  // [kernel][xcd]
  // Kernels with workgroups dispatched and not all finished (so with cohorts), ascending: what
  // refresh_all() visits. Sorted insert/erase, O(running kernels), a handful.
  std::vector<KernelId> running_;
  // Workgroups placed in the current dispatch round, one entry per (kernel, XCD).
  struct Claim {
    KernelId kernel = -1;
    int xcd = 0;
    std::int64_t first_wg = 0;
    std::vector<int> workgroups;  // the CU each workgroup went to, in order
  };
  // holds_cus kernels with retired workgroups at this instant: per kernel, per XCD, the CUs that
  // go straight back to it (held_kernels_ in the order they first retired one).
  std::vector<std::vector<std::int64_t>> held_;
  std::vector<KernelId> held_kernels_;
  bool flush_pending_ = false;
  std::vector<Claim> claims_;  // the first open_claims_ are this round's
  size_t open_claims_ = 0;
  // Scratch reused by every dispatch round (dispatch runs after every cohort retires).
  std::vector<KernelId> ready_, level_;
  std::vector<int> take_;
  std::vector<std::vector<std::int64_t>> level_limits_;  // place_level(): per kernel, per XCD
  std::vector<std::vector<double>> level_entitled_;
  std::vector<std::int64_t> level_before_;
  ResidencyListener listener_;
  bool dispatching_ = false;
};

}  // namespace c3sim::engine
