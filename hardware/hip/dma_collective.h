#pragma once
// The project's own DMA collectives (the paper's ConCCL): all-gather and all-to-all by the direct
// algorithm on a fully connected node, every transfer a copy-engine copy issued by the host.
//   push: GPU g writes its data into every peer's receive buffer (and its own block locally);
//   pull: GPU g reads every peer's data into its own receive buffer.
// Transfers are cut into `chunks` pieces per peer and spread round-robin over `engines` queues
// per GPU. NVIDIA: each queue is a stream whose pieces go out as one cudaMemcpyBatchAsync
// (stream-ordered sources, prefer-overlap-with-compute), which lets the driver spread one
// submission over several copy engines; `batched = false` issues one cudaMemcpyAsync per piece
// instead (the plain baseline). AMD (HSA runtime with hsa_amd_memory_async_copy_on_engine): every
// piece is pinned to one SDMA engine of the copying GPU (push: the sender's, pull: the receiver's),
// `engines` engines per peer, the first being the runtime's recommended engine for that pair
// (ROCm >= 7.0), else a distinct idle engine per peer (hsa_amd_memory_copy_engine_status), or the
// engine C3BENCH_SDMA_ENGINE_MAP names (hsa_sdma.h); every engine's status is checked before its
// first copy of a collective, and HSA signals start and complete the copies (hsa_sdma.h). Without
// that API (HSA AMD interface < 1.2), one hipMemcpyAsync per piece on per-queue streams.
#include <memory>
#include <string>
#include <vector>

#include "hardware/hip/coll_buffers.h"
#include "hardware/hip/device_set.h"

namespace c3sim::bench {

struct DmaOptions {
  int engines = 1;  // NVIDIA: queues (streams) per GPU; AMD: SDMA engines per peer
  int chunks = 1;   // pieces per peer transfer
  bool pull = false;
  bool batched = true;                         // NVIDIA: cudaMemcpyBatchAsync per queue
  [[nodiscard]] std::string describe() const;  // "push,e1,c1,batch"
};

class DmaCollectives {
public:
  explicit DmaCollectives(DeviceSet& devices);
  ~DmaCollectives();
  DmaCollectives(const DmaCollectives&) = delete;
  DmaCollectives& operator=(const DmaCollectives&) = delete;

  // The streams a collective with these options uses on every GPU (part of a trial's Part).
  std::vector<StreamRef> streams(const DmaOptions& options);
  void enqueue(const CollShape& shape, const CollBuffers& buffers, const DmaOptions& options);

private:
  DeviceSet& devices_;
  struct Sdma;                  // AMD engine-pinned copies: signals, agents, chosen engines
  std::unique_ptr<Sdma> sdma_;  // null where the build does not pin engines
};

}  // namespace c3sim::bench
