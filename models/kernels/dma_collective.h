#pragma once
// DMA-offloaded collective (ConCCL-like, paper Section VI-B): the collective becomes per-peer
// transfers placed on copy engines. Each transfer is capped by its engine and its link and shares
// LLC/HBM (MI300X engines sit beyond the XCD L2s, so no L2 or XCD-fabric traffic); the collective
// ends when the last copy's completion signal has been seen. Small sizes come out launch-bound
// from the launch mechanism below, not from a size rule.
//
// Who launches the copies (model.dma.*, hardware/node_spec.h):
// - host-driven (default): one host thread makes the submissions one after another, each costing
//   `submit_latency`; a submission carries `transfers_per_doorbell` transfers (1 = one per copy).
// - gpu_initiated: a kernel or the command processor writes the descriptors, one writer per engine
//   queue, so queues fill in parallel; each submission costs `gpu_submit_latency` on its queue.
// - prelaunched: the copies were recorded ahead, gated on one signal; the launch is one trigger
//   submission by the initiator.
// Every transfer then costs its engine `engine_start_latency` before its first byte. Completion
// is seen by the host (`completion_latency`) or by a GPU poller (`gpu_completion_latency`).
//
// Placement over IODs (spec.dma.iods): a transfer whose engine sits on another IOD than the link
// to its peer crosses the IOD-IOD fabric, once per byte, out of the IOD the bytes leave: the
// engine's for a copy (it writes toward the link), the link's for a reduction (the engine reads the
// peer's contribution in through the link). Reads and writes of local HBM cross IODs the same way
// for every placement (the channels interleave over all IODs), so only this hop is charged.
//
// Arithmetic in the engine: with spec.dma.reduce_bandwidth > 0 a reduce-scatter is one reduce
// phase (each peer's engine reads my contribution over the link and sums it into its shard: read
// accumulator, add, write) and an all-reduce is a reduce phase on shards then an all-gather phase;
// `reduce_on_cu` (policy hybrid_ar) runs the reduce-scatter as a CU kernel and only the all-gather
// on the engines. Between phases the next phase's initiator must first see the previous end.
//
// The GPU's own block (out-of-place all-gather and all-to-all, wl::local_block_bytes) is one more
// copy, input -> output on this GPU: it loads the engine and HBM (read + write; the LLC unless the
// engine's writes bypass it) and no link. Where it runs mirrors the implementations:
// - per-peer engines (engine_map per_peer; c3bench's pinned SDMA path): on the first engine of the
//   set that no peer uses, beside the peer copies; with none free, on the first engine, after the
//   transfers queued there (c3bench: "else engine 0").
// - one queue feeding every peer (round_robin / all_on_one; c3bench's and NCCL's copies on one
//   CUDA stream): the queue runs its copies in order, one at a time, so the local block runs alone,
//   after the peer copies (c3bench pushes the peers first) or, for `batched` (NCCL's CE collectives
//   put the local copy first in the batch), before them. Measured on 2 x H200, 4 GiB all-gather:
//   peers 2 GiB at 391 GB/s (5.49 ms) + local 2 GiB at 2.14 TB/s (1.00 ms) = 6.49 ms vs 6.52 ms.
//
// `batched` models a vendor copy-engine path (NCCL zero-CTA via cudaMemcpyBatchAsync): one
// submission for all transfers. With model.dma.completion_needs_cu (Hopper) and a dispatcher
// given, the completion signal is a one-workgroup kernel (`completion_latency` long) on its own
// stream: beside a persistent kernel that holds every CU it waits until that kernel ends
// (hardware/measurements/README.md). A batched vendor path also starts with such a barrier kernel.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "models/kernels/collective_plan.h"
#include "models/node/interference_state.h"
#include "models/node/node_resources.h"
#include "sim/engine/gpu_dispatcher.h"
#include "sim/engine/simulation.h"

namespace c3sim::models {

struct DmaOptions {
  int engines_used = 0;  // 0 = one per peer, capped at the engines in the set below
  // The engine set this collective may use: engines [first_engine, first_engine + engine_count)
  // (engine_count 0 = all from first_engine). Concurrent collectives whose sets overlap share those
  // engines; each engine serves its queues round robin, a fair share of its rate to each.
  int first_engine = 0;
  int engine_count = 0;
  bool batched = false;
  bool reduce_on_cu = false;              // all-reduce: reduce-scatter on CUs, all-gather on engines
  engine::GpuDispatcher* gpu = nullptr;   // where sync kernels and a CU phase run
  engine::StreamId sync_stream = -1;      // the collective's stream on `gpu`
  std::int32_t kernel = -1;               // program kernel id its copies and sync kernels carry
  engine::KernelId* cu_kernel = nullptr;  // receives a CU phase's kernel id (residency tracking)
};

struct DmaTransferRecord {
  int engine = 0;
  int peer = 0;  // kLocalBlock: the GPU's own block, copied from its input to its output slot
  double bytes = 0;
  TimePs start = 0;
  TimePs end = 0;
};

inline constexpr int kLocalBlock = -1;

// One step of the collective: per-peer transfers on the engines, or a CU reduce-scatter kernel.
struct DmaPhase {
  double bytes_sent = 0;  // per GPU, over its outgoing links
  bool reduce = false;    // the engine sums into the destination (read, add, write)
  bool on_cu = false;     // a CU reduce-scatter kernel of output `cu_output_bytes`
  double cu_output_bytes = 0;
};

// The phases a collective takes on copy engines. Throws ModelError for a reduction without a way
// to reduce (the policy layer rejects that first, as an InputError).
std::vector<DmaPhase> dma_phases(const CollectivePlan& plan, const hw::NodeSpec& spec, bool reduce_on_cu);

class DmaCollective {
public:
  DmaCollective(engine::Simulation& sim, const NodeResources& res, const hw::NodeSpec& spec,
                CollectivePlan plan, InterferenceState& state, DmaOptions options);

  // Starts the launch now; `done` runs when the completion has been seen.
  void start(std::function<void(TimePs)> done);

  [[nodiscard]] const std::vector<DmaTransferRecord>& transfers() const { return records_; }
  // Re-derives running transfers' rate caps from the memory load of the other running kernels
  // (InterferenceState::memory_load_of_others): an engine's reads and writes queue behind their
  // traffic like any other requester's.
  void refresh_queueing();
  [[nodiscard]] int engines_used() const { return engines_used_; }

private:
  void start_phase(TimePs handoff);
  void flush_then_submit();
  void submit_transfers(TimePs per);
  // Where the local block goes and what it waits for (see the header comment).
  void place_local_block(size_t phase_begin, TimePs ready_at);
  void start_at(size_t rec, TimePs ready_at);  // starts record `rec`'s flow at ready_at (or now)
  void start_transfer(size_t rec);
  void transfer_ended(size_t rec, TimePs now);
  void transfer_done(TimePs now);
  void phase_done(TimePs now);
  [[nodiscard]] bool sync_on_cu() const;
  [[nodiscard]] TimePs completion_seen() const;
  // Launches a one-workgroup sync kernel now; `then` runs when it ends.
  void launch_sync(const char* name, std::function<void(TimePs)> then);
  [[nodiscard]] double rate_cap() const;
  [[nodiscard]] int engine_for(int index, int peer, int chunk) const;

  engine::Simulation& sim_;
  const NodeResources& res_;
  const hw::NodeSpec& spec_;
  CollectivePlan plan_;
  InterferenceState& state_;
  DmaOptions options_;
  std::vector<DmaPhase> phases_;
  size_t phase_ = 0;
  double polluting_ = 0;  // LLC footprint currently charged to state_
  int engines_used_ = 0;
  int outstanding_ = 0;
  std::vector<DmaTransferRecord> records_;
  std::vector<engine::FlowId> flows_;  // parallel to records_ (invalid until started)
  // This phase's bytes per moved byte: engine, LLC and HBM of a peer transfer.
  double engine_per_byte_ = 1, llc_per_byte_ = 2, hbm_per_byte_ = 2;
  bool reduce_ = false;
  // The local block of this phase, if any: its record, when it may start, and the peer transfers
  // it still waits for (on `local_waits_engine_`, or on any engine when that is -1).
  size_t local_rec_ = SIZE_MAX;
  TimePs local_ready_ = 0;
  int local_waits_ = 0;
  int local_waits_engine_ = -1;
  bool local_first_ = false;
  std::vector<std::pair<size_t, TimePs>> held_;  // peer transfers held until the local block ends
  std::function<void(TimePs)> done_;
};

}  // namespace c3sim::models
