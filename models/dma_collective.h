#pragma once
// DMA-offloaded collective (ConCCL-like, paper Section VI-B): the collective becomes per-peer
// transfers placed on copy engines. The host submits them one after another (each costs
// `submit_latency` on the single host thread), each transfer is capped by its engine and its link
// and shares LLC/HBM (MI300X engines sit beyond the XCD L2s, so no L2 or XCD-fabric traffic), and
// the collective ends when the last copy's completion signal has reached the host.
// Small sizes come out launch-bound from these costs, not from a size rule.
//
// `batched` models a vendor copy-engine path (NCCL zero-CTA via cudaMemcpyBatchAsync): one
// submission for all transfers.
//
// With model.dma.completion_needs_cu (Hopper) and a dispatcher given, the completion signal is a
// one-workgroup kernel (`completion_latency` long) on its own stream: beside a persistent kernel
// that holds every CU it waits until that kernel ends, so the bytes move during the GEMM but the
// collective completes after it (hardware/measurements/README.md). A batched vendor path also
// starts with such a barrier kernel (NCCL zero-CTA's inter-GPU barrier), so its copies wait too.
#include <functional>
#include <vector>

#include "models/collective_plan.h"
#include "models/interference_state.h"
#include "models/node_resources.h"
#include "sim/engine/gpu_dispatcher.h"
#include "sim/engine/simulation.h"

namespace c3sim::models {

struct DmaOptions {
  int engines_used = 0;  // 0 = one per peer, capped at the engines present
  bool batched = false;
  engine::GpuDispatcher* gpu = nullptr;  // where sync kernels run (completion_needs_cu)
  engine::StreamId sync_stream = -1;     // the collective's stream on `gpu`
  std::int32_t kernel = -1;              // program kernel id its copies and sync kernels carry
};

struct DmaTransferRecord {
  int engine = 0;
  int peer = 0;
  double bytes = 0;
  TimePs start = 0;
  TimePs end = 0;
};

class DmaCollective {
public:
  DmaCollective(engine::Simulation& sim, const NodeResources& res, const hw::NodeSpec& spec,
                CollectivePlan plan, InterferenceState& state, DmaOptions options);

  // Starts host-side submission now; `done` runs when the host has seen completion.
  void start(std::function<void(TimePs)> done);

  [[nodiscard]] const std::vector<DmaTransferRecord>& transfers() const { return records_; }
  // Re-derives running transfers' rate caps from the memory load of the other running kernels
  // (InterferenceState::memory_load_of_others): an engine's reads and writes queue behind their
  // traffic like any other requester's.
  void refresh_queueing();
  [[nodiscard]] int engines_used() const { return engines_used_; }

private:
  void submit_transfers(TimePs submit);
  void transfer_done(TimePs now);
  [[nodiscard]] bool sync_on_cu() const;
  // Launches a one-workgroup sync kernel now; `then` runs when it ends.
  void launch_sync(const char* name, std::function<void(TimePs)> then);

  engine::Simulation& sim_;
  const NodeResources& res_;
  const hw::NodeSpec& spec_;
  CollectivePlan plan_;
  InterferenceState& state_;
  DmaOptions options_;
  int engines_used_ = 0;
  int outstanding_ = 0;
  std::vector<DmaTransferRecord> records_;
  std::vector<engine::FlowId> flows_;  // parallel to records_ (invalid until started)
  [[nodiscard]] double rate_cap() const;
  std::function<void(TimePs)> done_;
};

}  // namespace c3sim::models
