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

const char* blas_library() {
#if defined(C3BENCH_NVIDIA)
  return "cuBLAS";
#elif C3BENCH_HAVE_HIPBLASLT
  return "hipBLASLt";
#else
  return "hipBLAS";
#endif
}

BlasGemm::BlasGemm(int gpus) : gpus_(static_cast<std::size_t>(gpus)) {
  for (int g = 0; g < gpus; ++g) {
    C3_HIP(hipSetDevice(g));
    C3_BLAS(hipblasCreate(&gpus_[g].handle));
#if defined(C3BENCH_AMD) && C3BENCH_HAVE_HIPBLASLT
    C3_BLAS(hipblasLtCreate(&gpus_[g].lt));
#endif
    gpus_[g].workspace = DeviceBuffer(g, kWorkspaceBytes);
  }
}

BlasGemm::~BlasGemm() {
  for (std::size_t g = 0; g < gpus_.size(); ++g) {
    (void)hipSetDevice(static_cast<int>(g));
    if (gpus_[g].handle != nullptr) (void)hipblasDestroy(gpus_[g].handle);
#if defined(C3BENCH_AMD) && C3BENCH_HAVE_HIPBLASLT
    release_lt(gpus_[g]);
    if (gpus_[g].lt != nullptr) (void)hipblasLtDestroy(gpus_[g].lt);
#endif
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
#if defined(C3BENCH_AMD) && C3BENCH_HAVE_HIPBLASLT
    plan_lt(p);
#endif
  }
}

#if defined(C3BENCH_AMD) && C3BENCH_HAVE_HIPBLASLT
void BlasGemm::release_lt(PerGpu& p) {
  if (p.desc != nullptr) (void)hipblasLtMatmulDescDestroy(p.desc);
  for (hipblasLtMatrixLayout_t l : {p.a_layout, p.b_layout, p.c_layout}) {
    if (l != nullptr) (void)hipblasLtMatrixLayoutDestroy(l);
  }
  p.desc = nullptr;
  p.a_layout = p.b_layout = p.c_layout = nullptr;
}

void BlasGemm::plan_lt(PerGpu& p) {
  release_lt(p);
  const auto m = static_cast<std::uint64_t>(shape_.m);
  const auto n = static_cast<std::uint64_t>(shape_.n);
  const auto k = static_cast<std::uint64_t>(shape_.k);
  // Column-major, no transposes (the descriptor's defaults), as the hipBLAS call below.
  C3_BLAS(hipblasLtMatmulDescCreate(&p.desc, HIPBLAS_COMPUTE_32F, HIP_R_32F));
  C3_BLAS(hipblasLtMatrixLayoutCreate(&p.a_layout, HIP_R_16BF, m, k, static_cast<std::int64_t>(m)));
  C3_BLAS(hipblasLtMatrixLayoutCreate(&p.b_layout, HIP_R_16BF, k, n, static_cast<std::int64_t>(k)));
  C3_BLAS(hipblasLtMatrixLayoutCreate(&p.c_layout, HIP_R_16BF, m, n, static_cast<std::int64_t>(m)));
  hipblasLtMatmulPreference_t preference = nullptr;
  C3_BLAS(hipblasLtMatmulPreferenceCreate(&preference));
  const std::uint64_t workspace = p.workspace.bytes();
  hipblasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const hipblasStatus_t status = [&] {
    const hipblasStatus_t s = hipblasLtMatmulPreferenceSetAttribute(
        preference, HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
    if (s != HIPBLAS_STATUS_SUCCESS) return s;
    return hipblasLtMatmulAlgoGetHeuristic(p.lt, p.desc, p.a_layout, p.b_layout, p.c_layout, p.c_layout,
                                           preference, 1, &result, &found);
  }();
  (void)hipblasLtMatmulPreferenceDestroy(preference);
  C3_BLAS(status);
  if (found < 1) {
    throw DeviceError("c3bench: hipBLASLt has no algorithm for the bf16 GEMM " + shape_.shape_string());
  }
  p.algo = result.algo;
}
#endif

void BlasGemm::enqueue(int gpu, hipStream_t stream, int sm_target) {
  PerGpu& p = gpus_.at(gpu);
  C3_HIP(hipSetDevice(gpu));
  C3_BLAS(hipblasSetStream(p.handle, stream));
  // Setting the stream resets the workspace to the library's pool: set ours again, so that no
  // allocation happens inside a timed trial.
#if defined(C3BENCH_AMD) && !C3BENCH_HAVE_HIPBLAS_SET_WORKSPACE
  const rocblas_status status =
      rocblas_set_workspace(static_cast<rocblas_handle>(p.handle), p.workspace.get(), p.workspace.bytes());
  if (status != rocblas_status_success) {
    throw_device_error("rocBLAS", rocblas_status_to_string(status), "rocblas_set_workspace", __FILE__,
                       __LINE__);
  }
#else
  C3_BLAS(hipblasSetWorkspace(p.handle, p.workspace.get(), p.workspace.bytes()));
#endif
#if defined(C3BENCH_NVIDIA)
  C3_BLAS(cublasSetSmCountTarget(p.handle, sm_target));
#else
  (void)sm_target;  // the CU-masked stream is the limit on AMD
#endif
  const float alpha = 1.0f;
  const float beta = 0.0f;
#if defined(C3BENCH_AMD) && C3BENCH_HAVE_HIPBLASLT
  C3_BLAS(hipblasLtMatmul(p.lt, p.desc, &alpha, p.a.get(), p.a_layout, p.b.get(), p.b_layout, &beta,
                          p.c.get(), p.c_layout, p.c.get(), p.c_layout, &p.algo, p.workspace.get(),
                          p.workspace.bytes(), stream));
#else
#if defined(C3BENCH_AMD) && !C3BENCH_HIPBLAS_TYPED_COMPUTE
  // hipBLAS < 2.0 (ROCm < 6.0): one enum names operand and compute types.
  constexpr hipblasDatatype_t kBf16 = HIPBLAS_R_16B;
  constexpr hipblasDatatype_t kComputeF32 = HIPBLAS_R_32F;
#else
  constexpr auto kBf16 = HIP_R_16BF;
  constexpr auto kComputeF32 = HIPBLAS_COMPUTE_32F;
#endif
  const int m = static_cast<int>(shape_.m);
  const int n = static_cast<int>(shape_.n);
  const int k = static_cast<int>(shape_.k);
  // Column-major C(m x n) = A(m x k) * B(k x n).
  C3_BLAS(hipblasGemmEx(p.handle, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, p.a.get(), kBf16, m, p.b.get(),
                        kBf16, k, &beta, p.c.get(), kBf16, m, kComputeF32, HIPBLAS_GEMM_DEFAULT));
#endif
}

}  // namespace c3sim::bench
