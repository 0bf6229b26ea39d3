#include "hardware/hip/clock_probe.h"

#include <algorithm>

#include "hardware/hip/check.h"

#if defined(C3BENCH_NVIDIA)
#include <dlfcn.h>
#endif

namespace c3sim::bench {

#if defined(C3BENCH_NVIDIA)
// The few NVML entry points used, by their C signatures (nvml.h); nvmlDevice_t is an opaque
// pointer, nvmlReturn_t an int (0 = NVML_SUCCESS).
struct ClockProbe::Api {
  using Init = int (*)();
  using Shutdown = int (*)();
  using ByBusId = int (*)(const char*, void**);
  using ClockInfo = int (*)(void*, int, unsigned*);
  using Reasons = int (*)(void*, unsigned long long*);
  using Power = int (*)(void*, unsigned*);
  Init init = nullptr;
  Shutdown shutdown = nullptr;
  ByBusId by_bus_id = nullptr;
  ClockInfo clock_info = nullptr;
  Reasons reasons = nullptr;
  Power power = nullptr;
};

namespace {
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

template <typename F>
F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}
}  // namespace

ClockProbe::ClockProbe(DeviceSet& devices) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    why_not_ = "libnvidia-ml.so.1 not found";
    return;
  }
  api_ = std::make_unique<Api>();
  api_->init = symbol<Api::Init>(library_, "nvmlInit_v2");
  api_->shutdown = symbol<Api::Shutdown>(library_, "nvmlShutdown");
  api_->by_bus_id = symbol<Api::ByBusId>(library_, "nvmlDeviceGetHandleByPciBusId_v2");
  api_->clock_info = symbol<Api::ClockInfo>(library_, "nvmlDeviceGetClockInfo");
  api_->power = symbol<Api::Power>(library_, "nvmlDeviceGetPowerUsage");
  // Renamed in CUDA 12.x drivers; the old name is kept as an alias.
  api_->reasons = symbol<Api::Reasons>(library_, "nvmlDeviceGetCurrentClocksEventReasons");
  if (api_->reasons == nullptr) {
    api_->reasons = symbol<Api::Reasons>(library_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  if (api_->init == nullptr || api_->by_bus_id == nullptr || api_->clock_info == nullptr) {
    why_not_ = "libnvidia-ml.so.1 lacks nvmlInit_v2/nvmlDeviceGetHandleByPciBusId_v2/nvmlDeviceGetClockInfo";
    return;
  }
  if (api_->init() != 0) {
    why_not_ = "nvmlInit_v2 failed";
    api_->shutdown = nullptr;
    return;
  }
  std::vector<void*> handles;
  for (int g = 0; g < devices.count(); ++g) {
    char bus[64] = {};
    C3_HIP(hipDeviceGetPCIBusId(bus, sizeof bus, g));
    void* h = nullptr;
    if (api_->by_bus_id(bus, &h) != 0) {
      why_not_ = std::string("NVML has no device at PCI bus id ") + bus;
      return;
    }
    handles.push_back(h);
  }
  handles_ = std::move(handles);
}

ClockProbe::~ClockProbe() {
  if (api_ != nullptr && api_->shutdown != nullptr) api_->shutdown();
  if (library_ != nullptr) dlclose(library_);
}

std::vector<ClockReading> ClockProbe::read() const {
  std::vector<ClockReading> out;
  for (void* h : handles_) {
    ClockReading r;
    unsigned mhz = 0;
    if (api_->clock_info(h, kNvmlClockSm, &mhz) == 0) r.sm_mhz = mhz;
    unsigned long long reasons = 0;
    if (api_->reasons != nullptr && api_->reasons(h, &reasons) == 0) r.event_reasons = reasons;
    unsigned mw = 0;
    if (api_->power != nullptr && api_->power(h, &mw) == 0) r.power_w = mw / 1000.0;
    out.push_back(r);
  }
  return out;
}

#else  // AMD: no clock source wired in yet (rocm-smi's library would be the one); no readings.

struct ClockProbe::Api {};

ClockProbe::ClockProbe(DeviceSet& /*devices*/) : why_not_("no clock source on this platform") {}
ClockProbe::~ClockProbe() = default;
std::vector<ClockReading> ClockProbe::read() const { return {}; }

#endif

ClockReading slowest_gpu(const std::vector<ClockReading>& per_gpu) {
  ClockReading out;
  bool first = true;
  for (const ClockReading& r : per_gpu) {
    out.sm_mhz = first ? r.sm_mhz : std::min(out.sm_mhz, r.sm_mhz);
    out.power_w = std::max(out.power_w, r.power_w);
    out.event_reasons |= r.event_reasons;
    first = false;
  }
  return out;
}

}  // namespace c3sim::bench
