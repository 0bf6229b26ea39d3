#pragma once
// Every visible GPU of the node, driven from one host thread: peer access between all pairs,
// named streams per GPU (created on first use) and timing events. One process drives all GPUs, so
// launches reach them in one host order and host-driven DMA submission is serialized on one
// thread, as in the paper's ConCCL.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hardware/hip/gpu_runtime.h"
#include "hardware/hip/start_hold.h"

namespace c3sim::bench {

struct StreamRef {
  int gpu = 0;
  hipStream_t stream = nullptr;
};

class DeviceSet {
public:
  DeviceSet();
  ~DeviceSet();
  DeviceSet(const DeviceSet&) = delete;
  DeviceSet& operator=(const DeviceSet&) = delete;

  [[nodiscard]] int count() const { return static_cast<int>(gpus_.size()); }
  [[nodiscard]] int compute_units(int gpu) const { return gpus_.at(gpu).compute_units; }
  [[nodiscard]] int highest_priority() const { return highest_priority_; }

  // A stream on `gpu` named `name` (same name, same stream), created non-blocking with
  // `priority` on first use (0 = normal, highest_priority() = most urgent).
  hipStream_t stream(int gpu, const std::string& name, int priority = 0);
  // Streams named `name` on every GPU, in GPU order.
  std::vector<StreamRef> streams(const std::string& name, int priority = 0);
  // The i-th timing event of `gpu` (created on first use; reused across trials).
  hipEvent_t event(int gpu, std::size_t index);

  // Set to nonzero by a device-side wait that gave up (the AMD DMA collective's wait on its HSA
  // signal): a device-visible pointer to host-mapped memory, so a lost completion fails the trial
  // (trial.cpp checks it) instead of hanging the GPU.
  [[nodiscard]] int* timeout_flag() const { return timeout_flag_; }

  // Holds a timed trial's first part on the GPUs until the host has queued it (start_hold.h).
  [[nodiscard]] StartHold& start_hold() { return *start_hold_; }

  void synchronize_all();

private:
  struct Gpu {
    int compute_units = 0;
    std::map<std::string, hipStream_t> streams;
    std::vector<hipEvent_t> events;
  };
  int* timeout_flag_ = nullptr;
  std::unique_ptr<StartHold> start_hold_;
  std::vector<Gpu> gpus_;
  int highest_priority_ = 0;
};

}  // namespace c3sim::bench
