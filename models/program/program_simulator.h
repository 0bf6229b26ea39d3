#pragma once
// Runs a program (wl::Program: kernels on streams with dependencies and a host launch order) on
// one representative GPU of the simulated node: the one simulator. The GEMM + collective pair is a
// two-kernel program (models/run/c3_simulator.h builds it), and an isolated kernel a one-kernel one.
// Kernel models: GemmWorkgroupModel, CuCollectiveModel, DmaCollective, memory-bound, DMA-copy
// and measured kernels. Any number of kernels co-run. Cache residency is per kernel
// (docs/programs.md): each GEMM's hits come from its own tiles, every other resident GEMM's panels
// and working set and every running collective's workgroups and LLC streams are pollution; memory
// queueing is per kernel.
//
// Host model: kernel i is enqueued gap_i after kernel i-1; it is released to its stream when
// every kernel in its `after` list has ended, and behind the previous kernel of its stream (the
// dispatcher keeps CU kernels of one stream in order; a DMA kernel, driven by the host, waits for
// its stream predecessor to end, and so does a CU kernel behind a DMA one).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hardware/node_spec.h"
#include "models/node/bottleneck_tally.h"
#include "models/node/cache_model.h"
#include "models/program/attribution.h"
#include "sim/engine/trace_recorder.h"
#include "workloads/program.h"

namespace c3sim::models {

// Counterfactual switches (as in the pair's attribution) and tracing for one run.
struct ProgramKnobs {
  bool private_memory = false;
  bool isolate_caches = false;
  bool isolate_queueing = false;
  std::vector<std::int32_t> hide_from_caches;  // GEMMs (kernel indices) the others' caches do not see
  bool tally = false;  // integrate which shared resources held each kernel back (ProgramRun::tally)
  engine::TraceRecorder* trace = nullptr;
  // All-GPU mode (models/program/all_gpu_simulator.h): per kernel, in program order, the earliest
  // engine time its work may start (a collective's data movement waits for every rank's arrival)
  // and may end (every rank's instance ends together); empty = no gates. A gate at or before the
  // kernel's own instant changes nothing, so a rank gated by its own times runs as ungated.
  std::vector<TimePs> start_gate;
  std::vector<TimePs> end_gate;
  // Per kernel: hold the next CU kernel of its stream until this one's gated end (a collective
  // kernel waiting for a slower peer still occupies its stream); empty = none.
  std::vector<bool> hold_stream;
  // With a power window (model.power.window): the averaged dynamic power at the run's start (W
  // above model.power.static; 0 = a rested board). A `steady_state` program finds its own unless
  // `power_start_fixed` (all-GPU mode finds each rank's once, then holds it while the ranks' gates
  // settle: a start re-found every round would move them by picoseconds).
  double power_start = 0;
  bool power_start_fixed = false;
};

struct KernelRun {
  std::string name;
  wl::KernelKind kind = wl::KernelKind::gemm;
  std::string stream;
  double launch_us = 0;  // host enqueue
  double ready_us = 0;   // launched, dependencies met, stream predecessor ended
  double start_us = 0;   // first workgroup on a CU, or first DMA transfer
  double end_us = 0;
  TimePs launch_ps = 0;  // the same instants in exact engine time
  TimePs ready_ps = 0;
  TimePs end_ps = 0;
  TimePs body_end_ps = 0;  // the kernel's own work done (end_ps unless an end gate held it)
  // Dispatch: when the kernel became dispatchable on the GPU (a host-driven DMA kernel: when the
  // host started it) and when its first workgroup or copy started; -1 = never.
  TimePs arrived_ps = -1;
  TimePs first_dispatch_ps = -1;
  // What it did: CU workgroups (GEMM tiles, collective channels, ...), copy engines (DMA
  // collectives), LLC and HBM bytes over the whole kernel (GEMMs, collectives), bytes sent to peers
  // (collectives).
  std::int64_t workgroups = 0;
  int engines = 0;
  double llc_bytes = 0;
  double hbm_bytes = 0;
  double bytes_sent = 0;
  [[nodiscard]] double duration_us() const { return end_us - ready_us; }
};

struct ProgramRun {
  std::vector<KernelRun> kernels;  // program order
  double step_us = 0;              // first launch (the program's start_us) to last end
  BottleneckTally tally;           // with ProgramKnobs::tally; by kernel index
  // With a power window: the averaged dynamic power (W above static) at the run's start and end.
  double power_start = 0;
  double power_end = 0;
};

struct KernelResult {
  KernelRun run;
  double iso_us = 0;                       // the kernel alone on its stream (its mask, implementation)
  std::optional<Attribution> attribution;  // its slowdown against iso_us by cause, when asked
  [[nodiscard]] double slowdown() const { return iso_us > 0 ? run.duration_us() / iso_us : 0; }
};

struct ProgramResult {
  std::string program;
  std::string policy;
  double step_us = 0;
  double serial_us = 0;  // the untransformed program's kernels one after another, each isolated
  double ideal_us = 0;   // its critical path with every kernel at its isolated time (launch gaps kept)
  std::vector<KernelResult> kernels;
  std::string chosen;  // for *_best sweeps: the transformation that won
  // All-GPU mode (models/program/all_gpu_simulator.h); empty for a representative-GPU run. Then
  // `kernels`, serial and ideal are the straggler's.
  std::vector<double> rank_step_us;
  int straggler = 0;
  std::vector<std::string> critical_path;
  // Share of the possible overlap realized: (serial - step) / (serial - ideal), in percent;
  // nullopt when the untransformed program is one dependency chain (serial == ideal). A chunked
  // schedule can beat that ideal: it is a different, finer graph.
  [[nodiscard]] std::optional<double> overlap_percent() const {
    if (!(serial_us > ideal_us * (1 + 1e-12))) return std::nullopt;
    return 100.0 * (serial_us - step_us) / (serial_us - ideal_us);
  }
};

// Cache interference per kernel, by source. total_us[i]: kernel i's duration in the run less its
// duration with every cache priced as if it ran alone (isolate_caches). from_us[i][name]: its
// duration less its duration with GEMM `name`'s footprint hidden from the caches (each GEMM that
// changes it). What the GEMM sources leave of total_us is the collectives' share (plus the
// second-order overlap of sources).
struct CacheInterference {
  std::vector<double> total_us;
  std::vector<std::map<std::string, double>> from_us;
};

// The nodes `program` spans: its `nodes:`, else the hardware's cluster.nodes, else 1.
int program_nodes(const wl::Program& program, const hw::NodeSpec& spec);
// InputError (at the program, key "<program>.nodes") when the program spans more than one node on
// hardware without a cluster section, or (key "<program>.kernels.<k>.impl") when a collective over
// several nodes is not on CUs.
void check_program_nodes(const wl::Program& program, const hw::NodeSpec& spec);

class ProgramSimulator {
public:
  explicit ProgramSimulator(hw::NodeSpec spec, int max_cohort_size = 1 << 30);

  [[nodiscard]] const hw::NodeSpec& spec() const { return spec_; }

  // Validates (InputError) then simulates the program once. A `steady_state` program on hardware
  // with a power window starts from the averaged power its own previous iteration leaves
  // (steady_power_start), unless the knobs fix the start.
  ProgramRun simulate(const wl::Program& program, const ProgramKnobs& knobs = {});
  // The average a `steady_state` program's iterations start from under `knobs`: the start whose
  // run ends where it began (within 0.1% of the limit). knobs.power_start for any other program or
  // hardware without a power window.
  double steady_power_start(const wl::Program& program, const ProgramKnobs& knobs);
  // Kernel k of the program alone on its stream, launched at t = 0: end time in us. Memoized.
  double isolated_us(const wl::Program& program, int kernel);
  // Step time, per-kernel timing and slowdown, and serial/ideal from `baseline` (the program
  // before transformation; `program` itself when null). `attribution`: each kernel's slowdown by
  // cause too (three counterfactual runs more: models/program/counterfactuals.h).
  ProgramResult run(const wl::Program& program, const std::string& policy,
                    const wl::Program* baseline = nullptr, engine::TraceRecorder* trace = nullptr,
                    bool attribution = false);
  // Counterfactual runs (1 + one per GEMM) naming what slows each kernel's caches.
  CacheInterference cache_interference(const wl::Program& program);
  // The critical path of `program` with each kernel at its isolated time.
  double ideal_us(const wl::Program& program);

  // Host enqueue time of each kernel (us), from the launch gaps.
  [[nodiscard]] std::vector<double> launch_times_us(const wl::Program& program) const;

private:
  ProgramRun simulate_once(const wl::Program& program, const ProgramKnobs& knobs);

  // The same with each kernel's isolated time given (in program order).
  double ideal_us(const wl::Program& program, const std::vector<double>& iso);

  hw::NodeSpec spec_;
  int max_cohort_size_;
  CacheModel cache_model_;
  std::map<std::string, double> iso_cache_;
};

}  // namespace c3sim::models
