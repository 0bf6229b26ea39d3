#include "hardware/hip/hsa_sdma.h"

#include "hardware/hip/check.h"
#include "sim/base/errors.h"

namespace c3sim::bench {
namespace {

// The signal's ABI block: hsa_signal_t's handle is its address (hsa/amd_hsa_signal.h).
amd_signal_t* abi(hsa_signal_t s) { return reinterpret_cast<amd_signal_t*>(s.handle); }

// wall_clock64() counts at 100 MHz on CDNA3 (as the gate kernel assumes).
__device__ std::uint64_t device_ns() { return wall_clock64() * 10ull; }

__global__ void signal_store_kernel(amd_signal_t* signal, std::int64_t value) {
  auto* word = const_cast<std::int64_t*>(&signal->value);
  __hip_atomic_store(word, value, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
  // An interrupt signal also has a mailbox: write its event id and raise the interrupt, as the
  // device library's signal store does, so that host waiters wake up too.
  if (signal->event_mailbox_ptr != 0) {
    auto* mailbox = reinterpret_cast<std::uint64_t*>(signal->event_mailbox_ptr);
    __hip_atomic_store(mailbox, static_cast<std::uint64_t>(signal->event_id), __ATOMIC_RELEASE,
                       __HIP_MEMORY_SCOPE_SYSTEM);
#if defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_s_sendmsg(
        1, static_cast<unsigned>(__builtin_amdgcn_readfirstlane(signal->event_id) & 0xffu));
#endif
  }
}

__global__ void signal_wait_zero_kernel(const amd_signal_t* signal, int* timed_out,
                                        std::uint64_t timeout_ns) {
  const auto* word = const_cast<const std::int64_t*>(&signal->value);
  const std::uint64_t start = device_ns();
  while (__hip_atomic_load(word, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) != 0) {
    if (device_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __builtin_amdgcn_s_sleep(1);
  }
}

}  // namespace

HsaSignal::HsaSignal(std::int64_t initial) { C3_HSA(hsa_signal_create(initial, 0, nullptr, &signal_)); }

HsaSignal::~HsaSignal() {
  if (signal_.handle != 0) (void)hsa_signal_destroy(signal_);
}

void HsaSignal::store(std::int64_t value) { hsa_signal_store_screlease(signal_, value); }

hsa_agent_t agent_owning(const void* ptr) {
  hsa_amd_pointer_info_t info{};
  info.size = sizeof info;
  C3_HSA(hsa_amd_pointer_info(ptr, &info, nullptr, nullptr, nullptr));
  if (info.type != HSA_EXT_POINTER_TYPE_HSA || info.agentOwner.handle == 0) {
    throw DeviceError("c3bench: the HSA runtime does not know the device allocation at " +
                      std::to_string(reinterpret_cast<std::uintptr_t>(ptr)) + " (pointer type " +
                      std::to_string(static_cast<int>(info.type)) + ")");
  }
  return info.agentOwner;
}

std::uint32_t idle_engines(hsa_agent_t copier, hsa_agent_t other) {
  std::uint32_t mask = 0;
  // (dst_agent, src_agent): the copy runs on the source agent's engines when it is a GPU, so the
  // copier is passed as the source whichever way the bytes flow. "Out of resources" = none idle.
  const hsa_status_t status = hsa_amd_memory_copy_engine_status(other, copier, &mask);
  if (status == HSA_STATUS_ERROR_OUT_OF_RESOURCES) return 0;
  C3_HSA(status);
  return mask;
}

std::uint32_t preferred_engines(hsa_agent_t copier, hsa_agent_t other) {
#if C3BENCH_HAVE_PREFERRED_COPY_ENGINE
  std::uint32_t mask = 0;
  C3_HSA(hsa_amd_memory_get_preferred_copy_engine(other, copier, &mask));
  return mask;
#else
  (void)copier;
  (void)other;
  return 0;
#endif
}

std::vector<int> engine_numbers(std::uint32_t mask) {
  std::vector<int> out;
  for (int i = 0; i < 32; ++i) {
    if ((mask >> i) & 1u) out.push_back(i);
  }
  return out;
}

std::vector<int> parse_engine_map(const std::string& text) {
  std::vector<int> out;
  std::string item;
  for (char c : text + ",") {
    if (c != ',') {
      item += c;
      continue;
    }
    if (item.empty() && text.empty()) break;
    const bool digits =
        !item.empty() && item.size() <= 2 && item.find_first_not_of("0123456789") == std::string::npos;
    const int engine = digits ? std::stoi(item) : -1;
    if (engine < 0 || engine > 15) {
      throw InputError({}, "C3BENCH_SDMA_ENGINE_MAP",
                       "'" + item + "' is not an SDMA engine number 0-15 (expected e.g. 2,3,4,5,6,7,8)");
    }
    out.push_back(engine);
    item.clear();
  }
  return out;
}

void launch_signal_store(hipStream_t stream, hsa_signal_t signal, std::int64_t value) {
  signal_store_kernel<<<1, 1, 0, stream>>>(abi(signal), value);
  C3_LAUNCHED();
}

void launch_signal_wait_zero(hipStream_t stream, hsa_signal_t signal, int* timed_out,
                             std::uint64_t timeout_ns) {
  signal_wait_zero_kernel<<<1, 1, 0, stream>>>(abi(signal), timed_out, timeout_ns);
  C3_LAUNCHED();
}

}  // namespace c3sim::bench
