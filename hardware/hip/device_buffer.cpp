#include "hardware/hip/device_buffer.h"

#include "hardware/hip/check.h"

namespace c3sim::bench {

DeviceBuffer::DeviceBuffer(int gpu, std::size_t bytes) : bytes_(bytes), gpu_(gpu) {
  C3_HIP(hipSetDevice(gpu));
  C3_HIP(hipMalloc(&ptr_, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ == nullptr) return;
  (void)hipSetDevice(gpu_);
  (void)hipFree(ptr_);
}

}  // namespace c3sim::bench
