#pragma once
// Typed identity across the engine seam: who a flow works for and what a resource is. Models and
// observers group flows and resources by these tags, never by parsing names, and the engine still
// knows nothing about what a GEMM or a collective does (SimGrid's lmm keeps typed back-pointers
// from its constraints and variables to their owners for the same reason).
#include <cstdint>
#include <string_view>

namespace c3sim::engine {

// What a kernel (or a kernel-less piece of work such as a DMA copy) is.
enum class KernelKind : std::uint8_t {
  gemm,             // a library GEMM
  cu_collective,    // a collective running on CUs (RCCL/NCCL-like)
  dma_transfer,     // a copy on a DMA/copy engine
  collective_sync,  // a DMA collective's barrier or completion kernel
  memory,           // a memory-bound elementwise or copy kernel
  other,
};

// What a shared resource is.
enum class ResourceKind : std::uint8_t { cu, l2, xcd_fabric, llc, hbm, link, dma_engine, host, other };

// The owner of a flow: the kernel of the program it belongs to (an id the model layer assigns,
// dense from 0, so observers can index arrays by it) and that kernel's kind. All flows of one
// kernel share one owner, whatever engine piece created them (cohorts, DMA copies, sync kernels).
struct FlowOwner {
  std::int32_t kernel = -1;
  KernelKind kind = KernelKind::other;
  bool operator==(const FlowOwner&) const = default;
};

// Stable lower-case names ("gemm", "cu_collective", "l2", "xcd_fabric", ...).
[[nodiscard]] std::string_view to_string(KernelKind kind);
[[nodiscard]] std::string_view to_string(ResourceKind kind);

}  // namespace c3sim::engine
