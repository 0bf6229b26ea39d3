#include "workloads/torch_trace_occupancy.h"

#include <algorithm>
#include <string>

namespace c3sim::wl {

namespace {

// Resident blocks per SM by compute capability (CUDA C++ Programming Guide, "Technical
// Specifications per Compute Capability").
int max_blocks_per_sm(int major, int minor) {
  if ((major == 7 && minor == 5) || (major == 8 && (minor == 6 || minor == 7))) return 16;
  if (major == 8 && minor == 9) return 24;
  return 32;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

std::optional<int> trace_blocks_per_sm(const TraceEvent& kernel, const TraceDevice& device) {
  if (kernel.block_threads <= 0 || !device.threads_per_cu || !device.compute_major ||
      !starts_with(device.name, "NVIDIA"))
    return std::nullopt;
  const std::int64_t threads = kernel.block_threads;
  std::int64_t blocks =
      std::min<std::int64_t>(max_blocks_per_sm(*device.compute_major, device.compute_minor.value_or(0)),
                             *device.threads_per_cu / threads);
  const std::int64_t warps = (threads + 31) / 32;
  if (kernel.registers > 0 && device.registers_per_cu) {
    const std::int64_t per_warp = (kernel.registers * 32 + 255) / 256 * 256;
    blocks = std::min(blocks, *device.registers_per_cu / (per_warp * warps));
  }
  if (kernel.shared_memory > 0 && device.shared_memory_per_cu) {
    constexpr std::int64_t kReservedPerBlock = 1024;
    blocks = std::min(blocks, *device.shared_memory_per_cu / (kernel.shared_memory + kReservedPerBlock));
  }
  return static_cast<int>(std::max<std::int64_t>(blocks, 1));
}

std::set<std::int64_t> fsdp2_high_priority_streams(const TraceEvents& trace, std::int64_t device,
                                                   const std::vector<const TraceEvent*>& kernels) {
  std::set<std::int64_t> out;
  bool fsdp2 = false;
  for (const TraceEvent& e : trace.events) {
    if (e.cat != TraceCategory::gpu_annotation) continue;
    fsdp2 = true;
    if (e.stream && starts_with(trace.strings.text(e.name), "FSDP::all_gather (")) out.insert(*e.stream);
  }
  if (!fsdp2) return out;
  for (const TraceEvent* k : kernels) {
    if (k->device.value_or(0) != device || !k->stream) continue;
    const std::string& name = trace.strings.text(k->name);
    if (starts_with(name, "ncclDevKernel_AllGather") || starts_with(name, "ncclDevKernel_ReduceScatter") ||
        starts_with(name, "ncclKernel_AllGather") || starts_with(name, "ncclKernel_ReduceScatter"))
      out.insert(*k->stream);
  }
  return out;
}

}  // namespace c3sim::wl
