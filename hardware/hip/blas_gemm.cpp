#include "hardware/hip/blas_gemm.h"

#include <string>

#include "hardware/hip/check.h"
#include "hardware/hip/kernels.h"

namespace c3sim::bench {
namespace {

// cuBLAS recommends 32 MiB on Hopper; hipBLASLt uses up to 32 MiB by default.
constexpr std::size_t kWorkspaceBytes = 64ull << 20;

void ensure(DeviceBuffer& buf, int gpu, std::size_t bytes) {
  if (buf.bytes() < bytes) buf = DeviceBuffer(gpu, bytes);
}

}  // namespace

BlasGemm::BlasGemm(int gpus) : gpus_(static_cast<std::size_t>(gpus)) {
  for (int g = 0; g < gpus; ++g) {
    C3_HIP(hipSetDevice(g));
    C3_BLAS(hipblasCreate(&gpus_[g].handle));
    gpus_[g].workspace = DeviceBuffer(g, kWorkspaceBytes);
  }
}

BlasGemm::~BlasGemm() {
  for (std::size_t g = 0; g < gpus_.size(); ++g) {
    (void)hipSetDevice(static_cast<int>(g));
    if (gpus_[g].handle != nullptr) (void)hipblasDestroy(gpus_[g].handle);
  }
}

void BlasGemm::prepare(const wl::Gemm& gemm) {
  if (gemm.dtype != Dtype::bf16) {
    throw DeviceError("c3bench: only bf16 GEMMs are implemented (scenario asks for another dtype)");
  }
  shape_ = gemm;
  const auto m = static_cast<std::size_t>(gemm.m);
  const auto n = static_cast<std::size_t>(gemm.n);
  const auto k = static_cast<std::size_t>(gemm.k);
  for (int g = 0; g < static_cast<int>(gpus_.size()); ++g) {
    PerGpu& p = gpus_[g];
    ensure(p.a, g, m * k * 2);
    ensure(p.b, g, k * n * 2);
    ensure(p.c, g, m * n * 2);
    C3_HIP(hipSetDevice(g));
    const std::uint64_t seed = 0x6E11ull + static_cast<std::uint64_t>(g);
    launch_fill_bf16(nullptr, static_cast<std::uint16_t*>(p.a.get()), m * k, seed);
    launch_fill_bf16(nullptr, static_cast<std::uint16_t*>(p.b.get()), k * n, seed ^ 0xB0B0ull);
    launch_fill_bf16(nullptr, static_cast<std::uint16_t*>(p.c.get()), m * n, seed ^ 0xC0C0ull);
    C3_HIP(hipDeviceSynchronize());
  }
}

void BlasGemm::enqueue(int gpu, hipStream_t stream, int sm_target) {
  PerGpu& p = gpus_.at(gpu);
  C3_HIP(hipSetDevice(gpu));
  C3_BLAS(hipblasSetStream(p.handle, stream));
  // Setting the stream resets the workspace to the library's pool: set ours again, so that no
  // allocation can happen while a gate holds the GPU.
  C3_BLAS(hipblasSetWorkspace(p.handle, p.workspace.get(), p.workspace.bytes()));
#if defined(C3BENCH_NVIDIA)
  C3_BLAS(cublasSetSmCountTarget(p.handle, sm_target));
#else
  (void)sm_target;  // the CU-masked stream is the limit on AMD
#endif
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const int m = static_cast<int>(shape_.m);
  const int n = static_cast<int>(shape_.n);
  const int k = static_cast<int>(shape_.k);
  // Column-major C(m x n) = A(m x k) * B(k x n).
  C3_BLAS(hipblasGemmEx(p.handle, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, p.a.get(), HIP_R_16BF, m,
                        p.b.get(), HIP_R_16BF, k, &beta, p.c.get(), HIP_R_16BF, m, HIPBLAS_COMPUTE_32F,
                        HIPBLAS_GEMM_DEFAULT));
}

}  // namespace c3sim::bench
