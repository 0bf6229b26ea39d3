#pragma once
// Reads each GPU's SM clock, board power and clock-event (throttle) reasons, so every timed trial
// can say what state the GPU was in before and after it (bench.h records them per trial).
//
// Why: on H200 a long GEMM runs 7-15% slower once the board reaches its power limit and the SM
// clock falls from 1980 to about 1500 MHz, and a short one 2-6x slower right after an idle gap
// (hardware/measurements/clocks/README.md). Isolated and concurrent trials taken in different
// clock states differ for reasons that are not interference; the readings let a reader check.
//
// NVIDIA: NVML, opened with dlopen("libnvidia-ml.so.1") at run time so that building c3bench
// needs no NVML; GPUs are matched by PCI bus id (NVML and CUDA may number them differently).
// AMD, or no NVML: available() is false and readings are absent (records then carry no clocks).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hardware/hip/device_set.h"

namespace c3sim::bench {

struct ClockReading {
  unsigned sm_mhz = 0;
  double power_w = 0;
  // NVML clocks-event reasons (nvmlClocksEventReason*): 0x4 software power cap, 0x8 hardware
  // slowdown, 0x20/0x40 software/hardware thermal, 0x80 power brake; 0x1 GPU idle.
  std::uint64_t event_reasons = 0;
};

class ClockProbe {
public:
  explicit ClockProbe(DeviceSet& devices);
  ~ClockProbe();
  ClockProbe(const ClockProbe&) = delete;
  ClockProbe& operator=(const ClockProbe&) = delete;

  [[nodiscard]] bool available() const { return !handles_.empty(); }
  // Why readings are absent (empty when available()).
  [[nodiscard]] const std::string& unavailable_reason() const { return why_not_; }
  // One reading per GPU, in DeviceSet order; empty when not available. A GPU whose reading fails
  // reports sm_mhz 0.
  [[nodiscard]] std::vector<ClockReading> read() const;

private:
  struct Api;
  [[maybe_unused]] void* library_ = nullptr;  // unused in the AMD build, where NVML is absent
  std::unique_ptr<Api> api_;
  std::vector<void*> handles_;  // nvmlDevice_t per GPU
  std::string why_not_;
};

// The summary of one reading of all GPUs a record keeps: the lowest SM clock, the highest power,
// and the reasons of every GPU or-ed together.
ClockReading slowest_gpu(const std::vector<ClockReading>& per_gpu);

}  // namespace c3sim::bench
