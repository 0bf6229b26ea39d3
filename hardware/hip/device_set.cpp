#include "hardware/hip/device_set.h"

#include "hardware/hip/check.h"

namespace c3sim::bench {

DeviceSet::DeviceSet() {
  int n = 0;
  C3_HIP(hipGetDeviceCount(&n));
  if (n < 1) throw DeviceError("c3bench: no GPU is visible");
  gpus_.resize(static_cast<std::size_t>(n));
  for (int g = 0; g < n; ++g) {
    C3_HIP(hipSetDevice(g));
    C3_HIP(hipDeviceGetAttribute(&gpus_[g].compute_units, hipDeviceAttributeMultiprocessorCount, g));
    for (int peer = 0; peer < n; ++peer) {
      if (peer == g) continue;
      int can = 0;
      C3_HIP(hipDeviceCanAccessPeer(&can, g, peer));
      if (!can) {
        throw DeviceError("c3bench: GPU " + std::to_string(g) + " cannot access GPU " + std::to_string(peer) +
                          " directly; c3bench needs a fully connected node");
      }
      const hipError_t e = hipDeviceEnablePeerAccess(peer, 0);
      if (e == hipErrorPeerAccessAlreadyEnabled) {
        (void)hipGetLastError();  // clear the sticky-free "already enabled" status
      } else {
        C3_HIP(e);
      }
    }
  }
  int least = 0;
  C3_HIP(hipSetDevice(0));
  C3_HIP(hipDeviceGetStreamPriorityRange(&least, &highest_priority_));
  void* host = nullptr;
  C3_HIP(hipHostMalloc(&host, sizeof(int), hipHostMallocMapped | hipHostMallocPortable));
  timeout_flag_ = static_cast<int*>(host);
  *timeout_flag_ = 0;
  start_hold_ = std::make_unique<StartHold>(timeout_flag_);
}

DeviceSet::~DeviceSet() {
  // Destructors must not throw: release what we can and ignore errors at teardown.
  for (std::size_t g = 0; g < gpus_.size(); ++g) {
    (void)hipSetDevice(static_cast<int>(g));
    for (auto& [name, s] : gpus_[g].streams) (void)hipStreamDestroy(s);
    for (hipEvent_t e : gpus_[g].events) (void)hipEventDestroy(e);
  }
  start_hold_.reset();
  if (timeout_flag_ != nullptr) (void)hipHostFree(timeout_flag_);
}

hipStream_t DeviceSet::stream(int gpu, const std::string& name, int priority) {
  auto& streams = gpus_.at(gpu).streams;
  if (auto it = streams.find(name); it != streams.end()) return it->second;
  C3_HIP(hipSetDevice(gpu));
  hipStream_t s = nullptr;
  C3_HIP(hipStreamCreateWithPriority(&s, hipStreamNonBlocking, priority));
  streams.emplace(name, s);
  return s;
}

std::vector<StreamRef> DeviceSet::streams(const std::string& name, int priority) {
  std::vector<StreamRef> out;
  for (int g = 0; g < count(); ++g) out.push_back({g, stream(g, name, priority)});
  return out;
}

hipEvent_t DeviceSet::event(int gpu, std::size_t index) {
  auto& events = gpus_.at(gpu).events;
  while (events.size() <= index) {
    C3_HIP(hipSetDevice(gpu));
    hipEvent_t e = nullptr;
    C3_HIP(hipEventCreateWithFlags(&e, hipEventDefault));
    events.push_back(e);
  }
  return events[index];
}

void DeviceSet::synchronize_all() {
  for (int g = 0; g < count(); ++g) {
    C3_HIP(hipSetDevice(g));
    C3_HIP(hipDeviceSynchronize());
  }
}

}  // namespace c3sim::bench
