#include "hardware/hip/trial.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "hardware/hip/check.h"
#include "hardware/hip/kernels.h"

namespace c3sim::bench {
namespace {

// A gate that is never released fails the trial after this long instead of hanging the GPUs.
constexpr std::uint64_t kGateTimeoutNs = 60ull * 1000 * 1000 * 1000;

void set_flag(volatile int* flag, int value) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *flag = value;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace

TrialTimes run_gated(DeviceSet& devices, const std::vector<Part>& parts) {
  const int n = devices.count();
  set_flag(devices.release_flag(), 0);
  *devices.timeout_flag() = 0;
  // Event 0 of each GPU marks its release.
  for (int g = 0; g < n; ++g) {
    C3_HIP(hipSetDevice(g));
    hipStream_t gate = devices.stream(g, "gate");
    launch_gate(gate, devices.release_flag(), devices.timeout_flag(), kGateTimeoutNs);
    C3_HIP(hipEventRecord(devices.event(g, 0), gate));
  }
  std::vector<std::vector<std::size_t>> end_events(parts.size());
  std::vector<std::size_t> next_event(static_cast<std::size_t>(n), 1);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    for (const StreamRef& s : parts[p].streams) {
      C3_HIP(hipSetDevice(s.gpu));
      C3_HIP(hipStreamWaitEvent(s.stream, devices.event(s.gpu, 0), 0));
    }
    parts[p].enqueue();
    for (const StreamRef& s : parts[p].streams) {
      C3_HIP(hipSetDevice(s.gpu));
      const std::size_t idx = next_event[s.gpu]++;
      C3_HIP(hipEventRecord(devices.event(s.gpu, idx), s.stream));
      end_events[p].push_back(idx);
    }
  }
  set_flag(devices.release_flag(), 1);

  TrialTimes out;
  out.part_us.assign(parts.size(), 0.0);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    for (std::size_t i = 0; i < parts[p].streams.size(); ++i) {
      const int g = parts[p].streams[i].gpu;
      hipEvent_t end = devices.event(g, end_events[p][i]);
      C3_HIP(hipEventSynchronize(end));
      float ms = 0;
      C3_HIP(hipEventElapsedTime(&ms, devices.event(g, 0), end));
      out.part_us[p] = std::max(out.part_us[p], 1000.0 * static_cast<double>(ms));
    }
    out.total_us = std::max(out.total_us, out.part_us[p]);
  }
  devices.synchronize_all();
  if (*devices.timeout_flag() != 0) {
    throw DeviceError(
        "c3bench: a gate kernel timed out before release (a launch blocked on the "
        "GPU while the gate held it); timings of this trial are void");
  }
  return out;
}

void run_ungated(DeviceSet& devices, const std::vector<Part>& parts) {
  for (const Part& p : parts) p.enqueue();
  devices.synchronize_all();
}

}  // namespace c3sim::bench
