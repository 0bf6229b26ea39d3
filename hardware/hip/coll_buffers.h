#pragma once
// Send and receive buffers of one collective on every GPU, their random fill (each word a hash of
// its writer and position, never zeros; bf16 small integers for reductions, so sums are exact), poisoning,
// and the byte-exact check of the output. Plain buffers come from hipMalloc; symmetric ones from
// ncclMemAlloc, as NCCL/RCCL window registration (zero-CTA policy) requires. Grow-only: generation() changes
// on reallocation so registrations can be renewed.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hardware/hip/device_set.h"
#include "workloads/collective.h"

namespace c3sim::bench {

struct CollShape {
  wl::CollectiveOp op = wl::CollectiveOp::all_gather;
  std::size_t bytes = 0;  // per-GPU output
  int ranks = 1;
  [[nodiscard]] std::size_t block_bytes() const { return bytes / static_cast<std::size_t>(ranks); }
  // The op's input (wl::input_bytes): all-gather sends its shard; all-to-all and all-reduce a whole
  // output-sized buffer; reduce-scatter one output-sized block for every rank.
  [[nodiscard]] std::size_t send_bytes() const { return wl::input_bytes(op, bytes, ranks); }
  [[nodiscard]] bool reduces() const { return wl::op_traits(op).reduces; }
  [[nodiscard]] std::size_t recv_bytes() const { return bytes; }
};

class CollBuffers {
public:
  CollBuffers(int gpus, bool symmetric) : symmetric_(symmetric), gpus_(static_cast<std::size_t>(gpus)) {}
  ~CollBuffers();
  CollBuffers(const CollBuffers&) = delete;
  CollBuffers& operator=(const CollBuffers&) = delete;

  // Makes room for `shape` and fills the send buffers (seed) and poisons the receive buffers.
  void prepare(const CollShape& shape, std::uint64_t seed);
  void poison_recv(const CollShape& shape);
  // Total words, over all GPUs, that differ from what the collective must have written.
  [[nodiscard]] std::uint64_t count_mismatches(const CollShape& shape, std::uint64_t seed);

  [[nodiscard]] void* send(int gpu) const { return gpus_.at(gpu).send; }
  [[nodiscard]] void* recv(int gpu) const { return gpus_.at(gpu).recv; }
  [[nodiscard]] std::size_t send_capacity() const { return send_capacity_; }
  [[nodiscard]] std::size_t recv_capacity() const { return recv_capacity_; }
  [[nodiscard]] int generation() const { return generation_; }
  [[nodiscard]] bool symmetric() const { return symmetric_; }

private:
  struct PerGpu {
    void* send = nullptr;
    void* recv = nullptr;
    unsigned long long* mismatches = nullptr;
  };
  void release();
  void* allocate(int gpu, std::size_t bytes);
  void free_one(int gpu, void* p);

  bool symmetric_ = false;
  std::vector<PerGpu> gpus_;
  std::size_t send_capacity_ = 0;
  std::size_t recv_capacity_ = 0;
  int generation_ = 0;
};

}  // namespace c3sim::bench
