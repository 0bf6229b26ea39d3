#pragma once
// A program: what one GPU runs in a training or inference step, as kernels on named streams with
// dependencies and a host launch order. The GEMM + collective pair (wl::Scenario) is its shortest
// form (program_from_scenario). Loaded from program YAML (workloads/program_io.h).
//
// Semantics (those of HIP/CUDA streams launched from one host thread):
// - `kernels` is the host launch order. Kernel i is enqueued gap_i after kernel i-1 (the first at
//   t = 0); the gap defaults to the program's launch_gap_us, or the hardware's measured launch gap
//   (model.dispatch.c3_launch_gap) when that is unset too.
// - Kernels on one stream run in launch order. `after: [k, ...]` makes a kernel wait for the end
//   of each named kernel (an event recorded after k and waited on by this kernel's stream).
// - A stream may carry a priority and a CU mask (`cus`); a masked stream that holds a GEMM runs it
//   in the units left beside another stream's partition (as under the rp policies).
// - Every GPU runs the same program (symmetric) unless the program gives per-rank differences
//   (`imbalance`, `rank_overrides`): a symmetric program runs one representative GPU, as for the
//   pair; an asymmetric one (or any program with `all_gpus`) runs every rank
//   (models/program/all_gpu_simulator.h, docs/programs.md "All-GPU mode").
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "workloads/collective.h"
#include "workloads/gemm.h"
#include "workloads/scenario.h"

namespace c3sim::wl {

enum class KernelKind { gemm, collective, memory, dma_copy, measured, fused };
inline constexpr KernelKind kKernelKinds[] = {KernelKind::gemm,     KernelKind::collective,
                                              KernelKind::memory,   KernelKind::dma_copy,
                                              KernelKind::measured, KernelKind::fused};
const char* to_string(KernelKind k);  // "gemm", "collective", "memory", "dma_copy", "measured", "fused"

// How a memory kernel reads: a gather (an embedding lookup) reads `rows_per_item` rows at random
// per item and writes one row, each thread one 16-byte vector of an item: its index load, then its
// rows, two dependent round trips (models/kernels/memory_kernel.h).
struct GatherAccess {
  int rows_per_item = 1;   // rows read (and summed) per row written: an embedding bag's pooling
  int threads_per_cu = 0;  // the kernel's resident threads per CU (its occupancy: blocks x threads)
  // The same kernel fused with its collective's sends (FusedKernel): its own resident threads per
  // CU, as measured for that variant (its registers differ); nullopt = threads_per_cu.
  std::optional<int> fused_threads_per_cu;
};

// A memory-bound kernel on the CUs (elementwise op, copy, norm, embedding lookup): `bytes` read
// plus written, streamed, or gathered where `gather` says so.
struct MemoryKernel {
  std::int64_t bytes = 0;
  std::optional<int> workgroups;  // grid; nullopt = one per CU (a grid-stride loop)
  std::optional<GatherAccess> gather;
};

// One copy on a copy engine, local (device to device) or to a peer GPU.
struct DmaCopy {
  std::int64_t bytes = 0;
  bool to_peer = false;
};

// A kernel known only by its measured duration (an imported trace's attention, elementwise,
// optimizer or copy kernel): it holds min(workgroups, CUs) CUs for time_us and asks nothing of the
// memory system. Alone it takes exactly time_us; with fewer CUs free it runs in more waves. With
// `blocks_per_cu` (how many of its workgroups one CU holds at once: its occupancy) it runs as
// ceil(workgroups / (CUs x blocks_per_cu)) waves that each hold its CUs for their share of time_us,
// so between waves another stream's kernel can take CUs, as the hardware's block scheduler lets it.
struct MeasuredKernel {
  double time_us = 0;
  std::optional<int> workgroups;     // nullopt = one per CU
  std::optional<int> blocks_per_cu;  // nullopt = one wave over its CUs
  std::string source;                // what it was (the trace's kernel name); informational
};

// The waves a measured kernel runs in over `cus` CUs: ceil(workgroups / (cus x blocks_per_cu))
// with blocks_per_cu, else 1 (one wave over its CUs). The model and c3bench's replay both split
// time_us over them.
std::int64_t measured_waves(const MeasuredKernel& k, int cus);

// A producer kernel (a GEMM, or a memory kernel such as an embedding lookup) fused with the
// collective that consumes its output: each workgroup computes its tile or rows, then writes its
// share of the collective's bytes straight into the peers' buffers (models/kernels/fused_kernel.h).
// The kernel's `gemm` or `memory` fields are the producer's, its `collective` the collective's.
struct FusedKernel {
  KernelKind producer = KernelKind::gemm;  // gemm or memory
  int messages_per_workgroup = 1;          // peer writes (stores + a completion flag) per workgroup
};

struct ProgramKernel {
  std::string name;  // unique in the program
  KernelKind kind = KernelKind::gemm;
  std::string stream;
  Gemm gemm;                       // kind == gemm
  Collective collective;           // kind == collective
  MemoryKernel memory;             // kind == memory
  DmaCopy dma;                     // kind == dma_copy
  MeasuredKernel measured;         // kind == measured
  FusedKernel fused;               // kind == fused (with gemm or memory, and collective)
  std::vector<std::string> after;  // kernels whose end this one waits for
  std::optional<double> gap_us;    // host time before this launch (after the previous one)
  // An imported trace's duration of this kernel as it ran there (YAML `traced_us`): never an input
  // to the simulation; `c3sim validate` compares each kernel's prediction with it.
  std::optional<double> traced_us;
  // When the kernel started in that trace, relative to the start of its rank's first kernel (YAML
  // `traced_start_us`): like traced_us never an input; `c3sim validate --page` draws the traced
  // timeline from it.
  std::optional<double> traced_start_us;
  SourceLocation location;
};

// The GPU an imported trace ran on (the profiler's deviceProperties): `c3sim run` picks the
// matching hardware preset when no --hardware is given and warns when --hardware differs.
struct ProgramDevice {
  std::string name;                          // "NVIDIA H200", "AMD Instinct MI300X"
  std::optional<int> cus;                    // SMs / CUs
  std::optional<std::int64_t> memory_bytes;  // device memory
  SourceLocation location;
};

// Per-rank work scaling (MoE routing imbalance): rank r runs each named kernel with factors[r]
// times its work: a GEMM's `dim` (m, n or k; the token dimension), a memory or DMA copy kernel's
// bytes, a measured kernel's time. Sizes round to the nearest whole unit, at least 1.
struct RankImbalance {
  std::vector<std::string> kernels;
  char dim = 'm';
  std::vector<double> factors;  // one per rank of the program
  SourceLocation location;
};

// One rank's replacement for one size of one kernel (the fields set replace the program's).
struct RankOverride {
  int rank = 0;
  std::string kernel;
  std::optional<std::int64_t> m, n, k;  // GEMM
  std::optional<std::int64_t> bytes;    // memory or dma_copy kernel
  std::optional<double> time_us;        // measured kernel
  SourceLocation location;
};

// One rank's own kernel list (a step imported from every rank's trace): what rank `rank` runs, and
// when its host issued its first launch on the clock all ranks share (the earliest rank at 0), so
// that skew between ranks comes from their own timelines. Collectives match across ranks by their
// order among the rank's collectives (the n-th collective of every rank is one instance): the
// ranks must have the same sequence of collective ops and sizes.
struct RankKernels {
  int rank = 0;
  double start_us = 0;
  std::vector<ProgramKernel> kernels;  // host launch order, on the program's streams
  SourceLocation location;
};

struct ProgramStream {
  std::string name;
  int priority = 0;        // larger = more urgent
  std::optional<int> cus;  // CU mask size; nullopt = all CUs
  SourceLocation location;
  // A masked stream that holds a GEMM runs it in the units another stream's partition left (as
  // under the rp policies: model.gemm.beside_partition_efficiency). `own_group`: the mask is a
  // group of the stream's own instead (a green context alone, a CU-count sweep).
  bool own_group = false;
};

struct Program {
  std::string name;
  std::string source;       // "LLaMA-70B FSDP", "pair", ...
  std::optional<int> gpus;  // GPUs per node; nullopt = every GPU of the node
  // Nodes the program spans (`nodes:`; nullopt = the hardware's cluster.nodes, else 1): every node
  // runs the program on `gpus` GPUs and a collective spans all nodes x gpus ranks
  // (models/kernels/network_plan.h). More than one needs a hardware file with a cluster section.
  std::optional<int> nodes;
  std::optional<double> launch_gap_us;
  std::vector<ProgramStream> streams;
  std::vector<ProgramKernel> kernels;  // host launch order
  std::vector<std::string> policies;   // transformations to try; empty = the default set
  SourceLocation location;
  std::vector<SourceLocation> policy_locations;
  // An imported trace's own step time (first kernel start to last kernel end), shown beside the
  // prediction; and the profiler's step annotation span when the trace had one.
  std::optional<double> measured_step_us;
  std::optional<double> measured_profiler_step_us;
  std::optional<ProgramDevice> device;  // the traced GPU, when imported from a trace that names it
  // All-GPU mode: run every rank even when they are all alike; per-rank differences.
  bool all_gpus = false;
  // One iteration of a loop that runs back to back (`steady_state:`; a profiled training step): on
  // hardware with a power window, the board starts at the averaged power the previous iteration
  // left, not rested.
  bool steady_state = false;
  std::vector<RankImbalance> imbalance;
  std::vector<RankOverride> rank_overrides;
  // One kernel list per rank (`ranks:` in the file), every rank of the program once; then `kernels`
  // holds rank 0's list (the view of code that looks at one GPU) and `imbalance`/`rank_overrides`
  // are empty. program_for_rank picks a rank's list.
  std::vector<RankKernels> rank_kernels;
  // Host time of the first launch on the ranks' common clock (program_for_rank sets it from the
  // rank's `start_us`); the step is measured from it.
  double start_us = 0;

  [[nodiscard]] const ProgramKernel* kernel(const std::string& name) const;
  [[nodiscard]] const ProgramStream* stream(const std::string& name) const;
  [[nodiscard]] int kernel_index(const std::string& name) const;  // -1 if absent
  [[nodiscard]] int stream_index(const std::string& name) const;  // -1 if absent
  // The index of kernel `name` / the stream kernel i runs on; ModelError when absent (for code
  // that runs after validate_program, where every name resolves).
  [[nodiscard]] std::size_t kernel_at(const std::string& name) const;
  [[nodiscard]] std::size_t stream_of(std::size_t kernel) const;
  [[nodiscard]] bool asymmetric() const {
    return !imbalance.empty() || !rank_overrides.empty() || !rank_kernels.empty();
  }
};

// What rank `rank` runs: the program with its imbalance factors and overrides applied, or its own
// kernel list and start time, and the per-rank fields cleared (check_program_fits first: ranks and
// lengths in range).
Program program_for_rank(const Program& p, int rank);

// The pair as a two-kernel program: streams gemm_stream then comm_stream, kernels gemm then
// collective (the `base` launch order), the scenario's policies. Names: "gemm", "coll".
Program program_from_scenario(const Scenario& s);

// Structural checks shared by the YAML reader and generated programs: unique kernel and stream
// names, every kernel on a declared stream, `after` naming declared kernels other than itself, no
// cycle through `after` and stream order, positive sizes, non-negative gaps, at least one kernel.
// Throws InputError at the offending kernel's location with key "<program>.kernels.<name>.<field>".
void validate_program(const Program& p);

// Checks of a program with one kernel list per rank (no-op without): ranks 0..gpus-1 each once
// (`gpus` defaults to the number of ranks), no imbalance or overrides beside them, every rank's
// list a valid program, and the same sequence of collectives (op and bytes) on every rank.
// Throws InputError naming the rank entry ("<program>.ranks[i].<field>").
void validate_rank_kernels(const Program& p);

// Checks that need the node: gpus <= node_gpus, collective bytes split into whole shards on the
// GPUs the program runs on, stream masks leave CUs, per-rank differences name existing kernels of
// a kind they fit, ranks below the program's GPU count and one imbalance factor per rank.
// Throws InputError.
void check_program_fits(const Program& p, int node_gpus, int node_cus);

// For each kernel (program order), the previous kernel of its stream, -1 for a stream's first.
std::vector<int> stream_predecessors(const Program& p);

// For each kernel (program order), the indices of the kernels its `after` names, in the order it
// names them (-1 for a name that is not a kernel of the program). O(total `after` entries) with
// one hash of each kernel name: for code that follows dependencies on every step, where
// kernel_at's scan would make a long program quadratic.
std::vector<std::vector<int>> dependency_indices(const Program& p);

// Kernel indices in an order that respects `after` and stream order (validate_program first).
std::vector<int> topological_order(const Program& p);

}  // namespace c3sim::wl
