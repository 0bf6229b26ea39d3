#include "sim/engine/identity.h"

namespace c3sim::engine {

std::string_view to_string(KernelKind kind) {
  switch (kind) {
    case KernelKind::gemm: return "gemm";
    case KernelKind::cu_collective: return "cu_collective";
    case KernelKind::dma_transfer: return "dma_transfer";
    case KernelKind::collective_sync: return "collective_sync";
    case KernelKind::memory: return "memory";
    case KernelKind::other: return "other";
  }
  return "other";
}

std::string_view to_string(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::cu: return "cu";
    case ResourceKind::l2: return "l2";
    case ResourceKind::xcd_fabric: return "xcd_fabric";
    case ResourceKind::llc: return "llc";
    case ResourceKind::hbm: return "hbm";
    case ResourceKind::link: return "link";
    case ResourceKind::dma_engine: return "dma_engine";
    case ResourceKind::host: return "host";
    case ResourceKind::other: return "other";
  }
  return "other";
}

}  // namespace c3sim::engine
