#include "hardware/hip/dma_collective.h"

#include <cstdint>

#include "hardware/hip/check.h"

namespace c3sim::bench {
namespace {

struct Copy {
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;
};

std::uint8_t* at(void* base, std::size_t offset) { return static_cast<std::uint8_t*>(base) + offset; }

// Whole per-peer transfers issued by GPU `me`, starting with the next peer so that at any moment
// the GPUs target different peers (the direct algorithm's usual rotation).
std::vector<Copy> transfers(const CollShape& shape, const CollBuffers& b, int me, bool pull) {
  const std::size_t block = shape.block_bytes();
  const bool ag = shape.op == wl::CollectiveOp::all_gather;
  std::vector<Copy> out;
  for (int step = 1; step <= shape.ranks; ++step) {
    const int peer = (me + step) % shape.ranks;  // last step: peer == me, the local block
    const int src_rank = pull ? peer : me;
    const int dst_rank = pull ? me : peer;
    const std::size_t src_off = ag ? 0 : static_cast<std::size_t>(dst_rank) * block;
    const std::size_t dst_off = static_cast<std::size_t>(src_rank) * block;
    out.push_back({at(b.recv(dst_rank), dst_off), at(b.send(src_rank), src_off), block});
  }
  return out;
}

void submit(hipStream_t stream, const std::vector<Copy>& pieces, bool batched) {
  if (pieces.empty()) return;
#if defined(C3BENCH_NVIDIA) && CUDART_VERSION >= 12080
  if (batched) {
    std::vector<void*> dsts;
    std::vector<const void*> srcs;
    std::vector<std::size_t> sizes;
    for (const Copy& c : pieces) {
      dsts.push_back(c.dst);
      srcs.push_back(c.src);
      sizes.push_back(c.bytes);
    }
    cudaMemcpyAttributes attr{};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
    std::size_t attr_index = 0;
    C3_HIP(cudaMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), pieces.size(), &attr, &attr_index, 1,
                                stream));
    return;
  }
#else
  (void)batched;
#endif
  for (const Copy& c : pieces) C3_HIP(hipMemcpyAsync(c.dst, c.src, c.bytes, hipMemcpyDefault, stream));
}

}  // namespace

std::string DmaOptions::describe() const {
  return std::string(pull ? "pull" : "push") + ",e" + std::to_string(engines) + ",c" +
         std::to_string(chunks) + (batched ? ",batch" : ",single");
}

std::vector<StreamRef> DmaCollectives::streams(const DmaOptions& options) {
  std::vector<StreamRef> out;
  for (int g = 0; g < devices_.count(); ++g) {
    for (int e = 0; e < options.engines; ++e) {
      out.push_back({g, devices_.stream(g, "dma" + std::to_string(e))});
    }
  }
  return out;
}

void DmaCollectives::enqueue(const CollShape& shape, const CollBuffers& buffers, const DmaOptions& options) {
  if (shape.op != wl::CollectiveOp::all_gather && shape.op != wl::CollectiveOp::all_to_all) {
    throw DeviceError(std::string("c3bench: DMA ") + wl::to_string(shape.op) +
                      " is not possible (copy engines cannot reduce); all_gather and all_to_all are");
  }
  const auto chunks = static_cast<std::size_t>(options.chunks);
  // Host submission is serialized on this thread, GPU by GPU, as ConCCL's is.
  for (int g = 0; g < devices_.count(); ++g) {
    const std::vector<Copy> whole = transfers(shape, buffers, g, options.pull);
    std::vector<std::vector<Copy>> queues(static_cast<std::size_t>(options.engines));
    std::size_t next_queue = 0;
    for (std::size_t piece = 0; piece < chunks; ++piece) {
      for (const Copy& c : whole) {
        const std::size_t begin = c.bytes * piece / chunks / 16 * 16;
        const std::size_t end = piece + 1 == chunks ? c.bytes : c.bytes * (piece + 1) / chunks / 16 * 16;
        if (end <= begin) continue;
        queues[next_queue].push_back({static_cast<std::uint8_t*>(c.dst) + begin,
                                      static_cast<const std::uint8_t*>(c.src) + begin, end - begin});
        next_queue = (next_queue + 1) % queues.size();
      }
    }
    C3_HIP(hipSetDevice(g));
    for (int e = 0; e < options.engines; ++e) {
      submit(devices_.stream(g, "dma" + std::to_string(e)), queues[static_cast<std::size_t>(e)],
             options.batched);
    }
  }
}

}  // namespace c3sim::bench
