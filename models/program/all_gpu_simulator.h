#pragma once
// All-GPU mode: every rank of a program simulated, for programs whose ranks differ (MoE routing
// imbalance: wl::RankImbalance, wl::RankOverride) or when asked (`--all-gpus`, `all_gpus: true`).
//
// Each rank runs its own program (wl::program_for_rank) on its own ProgramSimulator run: its own
// CUs, streams, caches, memory and link resources, the same kernel models as the representative
// GPU. Ranks meet at collectives, which are cross-rank synchronisation: a collective's data
// movement on every rank starts when the last rank has arrived at it (its `ready`; a CU
// collective's channels take their CUs at the rank's own arrival and spin there until the last
// rank's kernel is up, as a library kernel polling for its peers does), and every
// rank's instance ends when the slowest rank's own work for it ends (a ring or all-to-all cannot
// finish before the last peer's data lands): a CU collective's channels that have sent all their
// bytes wait on their CUs until then, and the rank's next CU kernel of that stream waits too (the
// collective kernel still occupies its queue).
//
// The coupled times are found by fixed-point iteration: run every rank with the current start and
// end gates (none at first), set each collective's gates to the latest arrival and latest own end
// over ranks, repeat until the gates no longer change (exactly, in engine picoseconds). A rank
// gated by its own times runs exactly as ungated, so a symmetric program converges in the second
// round to the representative-GPU result, to the picosecond. Ranks with identical programs are
// simulated once per round. Ranks may run different kernel lists (wl::RankKernels, every rank's
// trace of a step) and start at different host times on the common clock (wl::Program::start_us):
// collectives are matched across ranks by their order among each rank's collectives, so a rank
// that starts late arrives late at every collective and the others wait for it there. A
// `steady_state` rank on hardware with a power window starts each round from the averaged power
// its program alone settles at, found once before the rounds.
//
// Limits: each rank keeps the representative model's view of links and peers (what a peer sends
// it is priced as its own symmetric traffic; shared links are per rank, not one resource for the
// node); collectives move the same bytes on every rank (no all-to-all-v); a copy-engine collective
// waits at its start and end gates on the host side, holding no engine. The ranks are coupled on
// each instance's own data movement (ready, and the end of its sending), never on a held end, so a
// wait in one round cannot feed itself into the next.
#include <string>
#include <vector>

#include "models/program/program_simulator.h"
#include "sim/engine/trace_recorder.h"
#include "workloads/program.h"

namespace c3sim::models {

struct AllGpuRun {
  std::vector<ProgramRun> ranks;  // rank order; each rank's step is from its own first launch
  double step_us = 0;             // the earliest rank's first launch to the last end of any rank
  // The rank whose work set the step: where the critical path ends (ranks that end together at a
  // collective tie on their step; the one that arrived last, or whose own work ended last, holds).
  int straggler = 0;
  // From the first kernel to the straggler's last: "r<rank>:<kernel>", each entry the kernel
  // whose end released the next one (a collective's entry names the rank that arrived last, or
  // whose own work ended last when the instance was held at its end).
  std::vector<std::string> critical_path;
  int rounds = 0;  // fixed-point rounds run
};

// `ranks`: one program per rank with the same sequence of collectives (op and bytes; ModelError
// otherwise). `traces`:
// empty, or one recorder per rank for the converged run.
AllGpuRun simulate_all_gpus(ProgramSimulator& sim, const std::vector<wl::Program>& ranks,
                            const std::vector<engine::TraceRecorder*>& traces = {});

}  // namespace c3sim::models
