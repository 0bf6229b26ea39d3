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
  return "cuBLASLt";
#elif C3BENCH_GEMM_LT
  return "hipBLASLt";
#else
  return "hipBLAS";
#endif
}

BlasGemm::BlasGemm(int gpus) : gpus_(static_cast<std::size_t>(gpus)) {
  for (int g = 0; g < gpus; ++g) {
    C3_HIP(hipSetDevice(g));
#if C3BENCH_GEMM_LT
    C3_BLAS(hipblasLtCreate(&gpus_[g].lt));
#else
    C3_BLAS(hipblasCreate(&gpus_[g].handle));
#endif
    gpus_[g].workspace = DeviceBuffer(g, kWorkspaceBytes);
  }
}

BlasGemm::~BlasGemm() {
  for (std::size_t g = 0; g < gpus_.size(); ++g) {
    (void)hipSetDevice(static_cast<int>(g));
#if C3BENCH_GEMM_LT
    release_lt(gpus_[g]);
    if (gpus_[g].lt != nullptr) (void)hipblasLtDestroy(gpus_[g].lt);
#if defined(C3BENCH_NVIDIA)
    if (gpus_[g].handle != nullptr) (void)hipblasDestroy(gpus_[g].handle);
#endif
#else
    if (gpus_[g].handle != nullptr) (void)hipblasDestroy(gpus_[g].handle);
#endif
  }
}

void BlasGemm::prepare(const wl::Gemm& gemm) {
  if (gemm.dtype != Dtype::bf16) {
    throw DeviceError("c3bench: only bf16 GEMMs are implemented (scenario asks for another dtype)");
  }
  shape_ = gemm;
  prepared_ = true;
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
#if C3BENCH_GEMM_LT
    release_lt(p);
    make_layouts(p);
#endif
  }
}

void BlasGemm::plan(int gpu, int sm_target) {
#if C3BENCH_GEMM_LT
  C3_HIP(hipSetDevice(gpu));
  (void)plan_for(gpu, sm_target);
#else
  (void)gpu;  // hipBLAS chooses its algorithm inside every call
  (void)sm_target;
#endif
}

#if C3BENCH_GEMM_LT
void BlasGemm::release_lt(PerGpu& p) {
  for (auto& [target, plan] : p.plans) (void)hipblasLtMatmulDescDestroy(plan.desc);
  p.plans.clear();
  for (hipblasLtMatrixLayout_t l : {p.a_layout, p.b_layout, p.c_layout}) {
    if (l != nullptr) (void)hipblasLtMatrixLayoutDestroy(l);
  }
  p.a_layout = p.b_layout = p.c_layout = nullptr;
}

void BlasGemm::make_layouts(PerGpu& p) const {
  const auto m = static_cast<std::uint64_t>(shape_.m);
  const auto n = static_cast<std::uint64_t>(shape_.n);
  const auto k = static_cast<std::uint64_t>(shape_.k);
  // Column-major, no transposes (the descriptor's defaults): C(m x n) = A(m x k) * B(k x n), the
  // layout of a row-major framework's a @ b with the operands swapped (the same NN kernel family).
  C3_BLAS(hipblasLtMatrixLayoutCreate(&p.a_layout, HIP_R_16BF, m, k, static_cast<std::int64_t>(m)));
  C3_BLAS(hipblasLtMatrixLayoutCreate(&p.b_layout, HIP_R_16BF, k, n, static_cast<std::int64_t>(k)));
  C3_BLAS(hipblasLtMatrixLayoutCreate(&p.c_layout, HIP_R_16BF, m, n, static_cast<std::int64_t>(m)));
}

const BlasGemm::Plan& BlasGemm::plan_for(int gpu, int sm_target) {
  if (!prepared_) throw DeviceError("c3bench: a GEMM was planned before its shape was prepared");
  PerGpu& p = gpus_.at(static_cast<std::size_t>(gpu));
#if defined(C3BENCH_NVIDIA)
  const int key = sm_target;
#else
  const int key = 0;  // hipBLASLt has no SM target: the CU-masked stream is the limit
  (void)sm_target;
#endif
  if (const auto it = p.plans.find(key); it != p.plans.end()) return it->second;
  Plan plan;
  C3_BLAS(hipblasLtMatmulDescCreate(&plan.desc, HIPBLAS_COMPUTE_32F, HIP_R_32F));
  hipblasLtMatmulPreference_t preference = nullptr;
  hipblasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const hipblasStatus_t status = [&] {
#if defined(C3BENCH_NVIDIA)
    // cublasSetSmCountTarget's Lt form: the heuristic and the kernel plan for this many SMs.
    const auto target = static_cast<std::int32_t>(key);
    hipblasStatus_t s = hipblasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET,
                                                        &target, sizeof target);
    if (s != HIPBLAS_STATUS_SUCCESS) return s;
#else
    hipblasStatus_t s = HIPBLAS_STATUS_SUCCESS;
#endif
    s = hipblasLtMatmulPreferenceCreate(&preference);
    if (s != HIPBLAS_STATUS_SUCCESS) return s;
    const std::uint64_t workspace = p.workspace.bytes();
    s = hipblasLtMatmulPreferenceSetAttribute(preference, HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                              &workspace, sizeof workspace);
    if (s != HIPBLAS_STATUS_SUCCESS) return s;
    return hipblasLtMatmulAlgoGetHeuristic(p.lt, plan.desc, p.a_layout, p.b_layout, p.c_layout, p.c_layout,
                                           preference, 1, &result, &found);
  }();
  if (preference != nullptr) (void)hipblasLtMatmulPreferenceDestroy(preference);
  if (status != HIPBLAS_STATUS_SUCCESS || found < 1) {
    (void)hipblasLtMatmulDescDestroy(plan.desc);
    C3_BLAS(status);
    throw DeviceError(std::string("c3bench: ") + blas_library() + " has no algorithm for the bf16 GEMM " +
                      shape_.shape_string());
  }
  plan.algo = result.algo;
  return p.plans.emplace(key, plan).first->second;
}
#endif

void BlasGemm::enqueue(int gpu, hipStream_t stream, int sm_target) {
  PerGpu& p = gpus_.at(static_cast<std::size_t>(gpu));
  C3_HIP(hipSetDevice(gpu));
  const float alpha = 1.0f;
  const float beta = 0.0f;
#if C3BENCH_GEMM_LT
  const Plan& plan = plan_for(gpu, sm_target);
  C3_BLAS(hipblasLtMatmul(p.lt, plan.desc, &alpha, p.a.get(), p.a_layout, p.b.get(), p.b_layout, &beta,
                          p.c.get(), p.c_layout, p.c.get(), p.c_layout, &plan.algo, p.workspace.get(),
                          p.workspace.bytes(), stream));
#else
  (void)sm_target;  // the CU-masked stream is the limit on AMD
  C3_BLAS(hipblasSetStream(p.handle, stream));
  // Setting the stream resets the workspace to the library's pool: set ours again, so that no
  // allocation happens inside a timed trial.
#if !C3BENCH_HAVE_HIPBLAS_SET_WORKSPACE
  const rocblas_status status =
      rocblas_set_workspace(static_cast<rocblas_handle>(p.handle), p.workspace.get(), p.workspace.bytes());
  if (status != rocblas_status_success) {
    throw_device_error("rocBLAS", rocblas_status_to_string(status), "rocblas_set_workspace", __FILE__,
                       __LINE__);
  }
#else
  C3_BLAS(hipblasSetWorkspace(p.handle, p.workspace.get(), p.workspace.bytes()));
#endif
#if !C3BENCH_HIPBLAS_TYPED_COMPUTE
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

#if defined(C3BENCH_NVIDIA)
void BlasGemm::enqueue_per_call(int gpu, hipStream_t stream, int sm_target) {
  PerGpu& p = gpus_.at(static_cast<std::size_t>(gpu));
  C3_HIP(hipSetDevice(gpu));
  if (p.handle == nullptr) C3_BLAS(hipblasCreate(&p.handle));
  C3_BLAS(hipblasSetStream(p.handle, stream));
  C3_BLAS(hipblasSetWorkspace(p.handle, p.workspace.get(), p.workspace.bytes()));
  C3_BLAS(cublasSetSmCountTarget(p.handle, sm_target));
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const int m = static_cast<int>(shape_.m);
  const int n = static_cast<int>(shape_.n);
  const int k = static_cast<int>(shape_.k);
  C3_BLAS(hipblasGemmEx(p.handle, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, p.a.get(), HIP_R_16BF, m,
                        p.b.get(), HIP_R_16BF, k, &beta, p.c.get(), HIP_R_16BF, m, HIPBLAS_COMPUTE_32F,
                        HIPBLAS_GEMM_DEFAULT));
}
#endif

}  // namespace c3sim::bench
