#pragma once
// Owning device allocation on one GPU (hipMalloc), movable, freed on destruction.
#include <cstddef>
#include <utility>

namespace c3sim::bench {

class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(int gpu, std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    DeviceBuffer(std::move(o)).swap(*this);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  [[nodiscard]] void* get() const { return ptr_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  [[nodiscard]] int gpu() const { return gpu_; }

private:
  void swap(DeviceBuffer& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    std::swap(gpu_, o.gpu_);
  }
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  int gpu_ = -1;
};

}  // namespace c3sim::bench
