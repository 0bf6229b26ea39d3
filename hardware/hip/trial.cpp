#include "hardware/hip/trial.h"

#include <algorithm>
#include <cstdint>

#include "hardware/hip/check.h"

namespace c3sim::bench {

TrialTimes run_timed(DeviceSet& devices, const std::vector<Part>& parts) {
  const int n = devices.count();
  *devices.timeout_flag() = 0;
  StartHold& hold = devices.start_hold();
  hold.arm();
  // Event 0 of each GPU marks when its first work may start: behind the hold for GPUs the first
  // part runs on, else when that GPU's first work reached it.
  std::vector<bool> started(static_cast<std::size_t>(n), false);
  std::vector<std::vector<std::size_t>> end_events(parts.size());
  std::vector<std::size_t> next_event(static_cast<std::size_t>(n), 1);
  auto record_ends = [&](std::size_t p) {
    for (const StreamRef& s : parts[p].streams) {
      C3_HIP(hipSetDevice(s.gpu));
      const std::size_t idx = next_event[static_cast<std::size_t>(s.gpu)]++;
      C3_HIP(hipEventRecord(devices.event(s.gpu, idx), s.stream));
      end_events[p].push_back(idx);
    }
  };
  if (!parts.empty()) {
    const ReleaseOnExit release(hold);
    std::vector<hipStream_t> held;
    for (const StreamRef& s : parts[0].streams) {
      if (std::find(held.begin(), held.end(), s.stream) != held.end()) continue;
      held.push_back(s.stream);
      hold.hold(s.gpu, s.stream);
      if (started[static_cast<std::size_t>(s.gpu)]) continue;
      started[static_cast<std::size_t>(s.gpu)] = true;
      C3_HIP(hipEventRecord(devices.event(s.gpu, 0), s.stream));
    }
    parts[0].enqueue();
    record_ends(0);
  }
  for (std::size_t p = 1; p < parts.size(); ++p) {
    for (const StreamRef& s : parts[p].streams) {
      if (started[static_cast<std::size_t>(s.gpu)]) continue;
      started[static_cast<std::size_t>(s.gpu)] = true;
      C3_HIP(hipSetDevice(s.gpu));
      C3_HIP(hipEventRecord(devices.event(s.gpu, 0), s.stream));
    }
    parts[p].enqueue();
    record_ends(p);
  }

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
        "c3bench: a device-side wait timed out (a copy's completion signal or the start hold's "
        "release never came); timings of this trial are void");
  }
  return out;
}

void run_untimed(DeviceSet& devices, const std::vector<Part>& parts) {
  for (const Part& p : parts) p.enqueue();
  devices.synchronize_all();
}

}  // namespace c3sim::bench
