#include "hardware/hip/coll_buffers.h"

#include "hardware/hip/check.h"
#include "hardware/hip/kernels.h"

namespace c3sim::bench {
namespace {
constexpr std::uint32_t kPoison = 0xDEADBEEFu;
// Window registration needs 4 KiB alignment of sizes; round capacities to 2 MiB pages.
std::size_t round_up(std::size_t bytes) {
  constexpr std::size_t kPage = 2ull << 20;
  return (bytes + kPage - 1) / kPage * kPage;
}
}  // namespace

CollBuffers::~CollBuffers() {
  try {
    release();
  } catch (...) {
    // Teardown: nothing useful to do with an error here.
  }
}

void* CollBuffers::allocate(int gpu, std::size_t bytes) {
  C3_HIP(hipSetDevice(gpu));
  void* p = nullptr;
#if C3BENCH_HAVE_NCCL_MEM_ALLOC
  if (symmetric_) {
    C3_NCCL(ncclMemAlloc(&p, bytes));
    return p;
  }
#endif
  // Without ncclMemAlloc (NCCL/RCCL < 2.19) there is no zero-CTA policy either (gpu_runtime.h),
  // so "symmetric" buffers are plain ones that nothing registers.
  C3_HIP(hipMalloc(&p, bytes));
  return p;
}

void CollBuffers::free_one(int gpu, void* p) {
  if (p == nullptr) return;
  C3_HIP(hipSetDevice(gpu));
#if C3BENCH_HAVE_NCCL_MEM_ALLOC
  if (symmetric_) {
    C3_NCCL(ncclMemFree(p));
    return;
  }
#endif
  C3_HIP(hipFree(p));
}

void CollBuffers::release() {
  for (int g = 0; g < static_cast<int>(gpus_.size()); ++g) {
    free_one(g, gpus_[g].send);
    free_one(g, gpus_[g].recv);
    if (gpus_[g].mismatches != nullptr) {
      C3_HIP(hipSetDevice(g));
      C3_HIP(hipFree(gpus_[g].mismatches));
    }
    gpus_[g] = PerGpu{};
  }
  send_capacity_ = recv_capacity_ = 0;
}

void CollBuffers::prepare(const CollShape& shape, std::uint64_t seed) {
  if (shape.send_bytes() > send_capacity_ || shape.recv_bytes() > recv_capacity_) {
    release();
    send_capacity_ = round_up(shape.send_bytes());
    recv_capacity_ = round_up(shape.recv_bytes());
    for (int g = 0; g < static_cast<int>(gpus_.size()); ++g) {
      gpus_[g].send = allocate(g, send_capacity_);
      gpus_[g].recv = allocate(g, recv_capacity_);
      C3_HIP(hipSetDevice(g));
      C3_HIP(hipMalloc(reinterpret_cast<void**>(&gpus_[g].mismatches), sizeof(unsigned long long)));
    }
    ++generation_;
  }
  for (int g = 0; g < static_cast<int>(gpus_.size()); ++g) {
    C3_HIP(hipSetDevice(g));
    if (shape.reduces()) {
      launch_fill_reduce_inputs(nullptr, static_cast<std::uint16_t*>(gpus_[g].send), shape.send_bytes() / 2,
                                seed, g);
    } else {
      launch_fill_words(nullptr, static_cast<std::uint32_t*>(gpus_[g].send), shape.send_bytes() / 4, seed, g,
                        0);
    }
    C3_HIP(hipDeviceSynchronize());
  }
  poison_recv(shape);
}

void CollBuffers::poison_recv(const CollShape& shape) {
  for (int g = 0; g < static_cast<int>(gpus_.size()); ++g) {
    C3_HIP(hipSetDevice(g));
    launch_fill_constant(nullptr, static_cast<std::uint32_t*>(gpus_[g].recv), shape.recv_bytes() / 4,
                         kPoison);
    C3_HIP(hipDeviceSynchronize());
  }
}

std::uint64_t CollBuffers::count_mismatches(const CollShape& shape, std::uint64_t seed) {
  std::uint64_t total = 0;
  const CollLayout layout =
      shape.op == wl::CollectiveOp::all_gather ? CollLayout::all_gather : CollLayout::all_to_all;
  for (int g = 0; g < static_cast<int>(gpus_.size()); ++g) {
    C3_HIP(hipSetDevice(g));
    C3_HIP(hipMemset(gpus_[g].mismatches, 0, sizeof(unsigned long long)));
    if (shape.reduces()) {
      launch_verify_reduce(nullptr, static_cast<const std::uint16_t*>(gpus_[g].recv), shape.recv_bytes() / 2,
                           shape.ranks, g, shape.op == wl::CollectiveOp::reduce_scatter, seed,
                           gpus_[g].mismatches);
    } else {
      launch_verify(nullptr, static_cast<const std::uint32_t*>(gpus_[g].recv), shape.recv_bytes() / 4,
                    shape.ranks, g, layout, seed, gpus_[g].mismatches);
    }
    unsigned long long bad = 0;
    C3_HIP(hipMemcpy(&bad, gpus_[g].mismatches, sizeof bad, hipMemcpyDeviceToHost));
    total += bad;
  }
  return total;
}

}  // namespace c3sim::bench
