#pragma once
// The project's own DMA collectives (the paper's ConCCL): all-gather and all-to-all by the direct
// algorithm on a fully connected node, every transfer a copy-engine copy issued by the host.
//   push: GPU g writes its data into every peer's receive buffer (and its own block locally);
//   pull: GPU g reads every peer's data into its own receive buffer.
// Transfers are cut into `chunks` pieces per peer and spread round-robin over `engines` queues
// per GPU. NVIDIA: each queue is a stream whose pieces go out as one cudaMemcpyBatchAsync
// (stream-ordered sources, prefer-overlap-with-compute), which lets the driver spread one
// submission over several copy engines; `batched = false` issues one cudaMemcpyAsync per piece
// instead (the plain baseline). AMD: one hipMemcpyAsync per piece, queues = streams (HIP sends
// peer copies to SDMA engines by default); engine-pinned HSA copies are not implemented.
#include <string>
#include <vector>

#include "hardware/hip/coll_buffers.h"
#include "hardware/hip/device_set.h"

namespace c3sim::bench {

struct DmaOptions {
  int engines = 1;  // queues (streams) per GPU
  int chunks = 1;   // pieces per peer transfer
  bool pull = false;
  bool batched = true;                         // NVIDIA: cudaMemcpyBatchAsync per queue
  [[nodiscard]] std::string describe() const;  // "push,e1,c1,batch"
};

class DmaCollectives {
public:
  explicit DmaCollectives(DeviceSet& devices) : devices_(devices) {}

  // The streams a collective with these options uses on every GPU (part of a trial's Part).
  std::vector<StreamRef> streams(const DmaOptions& options);
  void enqueue(const CollShape& shape, const CollBuffers& buffers, const DmaOptions& options);

private:
  DeviceSet& devices_;
};

}  // namespace c3sim::bench
