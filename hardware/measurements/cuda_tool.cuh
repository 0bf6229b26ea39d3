// What the one-file CUDA measurement tools here share (power/clock_trace.cu,
// launch_order/hold_tail.cu, placement/placement.cu, after_kernel/cta_placement.cu): error checks,
// the GPU's global timer and the SM a thread runs on, stamp / spin / clock-probe /
// random-fill kernels, and one bf16 cuBLASLt GEMM planned once (as c3bench's GEMM path plans it: cuBLASLt's
// first heuristic result, 64 MiB workspace, optionally an SM count target).
// Each tool includes it by relative path: nvcc -O2 -std=c++17 -arch=sm_90 TOOL.cu -lcublasLt.
#pragma once
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(3);                                                                           \
    }                                                                                         \
  } while (0)
#define CKB(x)                                                                        \
  do {                                                                                \
    cublasStatus_t s_ = (x);                                                          \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                \
      std::fprintf(stderr, "%s:%d %s: status %d\n", __FILE__, __LINE__, #x, (int)s_); \
      std::exit(3);                                                                   \
    }                                                                                 \
  } while (0)

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned int smid() {
  unsigned int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__global__ void stamp_kernel(unsigned long long* at) {
  if (threadIdx.x == 0) *at = gtimer();
}

__global__ void spin_kernel(unsigned long long ns) {
  const unsigned long long t0 = gtimer();
  while (gtimer() - t0 < ns) {}
}

// The SM clock where it runs: samples[2i] = globaltimer ns, samples[2i+1] = clock64 of this SM,
// every period_ns for duration_ns; *count = samples taken. One warp, no shared memory.
__global__ void clock_probe_kernel(unsigned long long* samples, int max_samples, unsigned long long period_ns,
                                   unsigned long long duration_ns, int* count) {
  if (threadIdx.x != 0) return;
  const unsigned long long t0 = gtimer();
  int i = 0;
  for (; i < max_samples; ++i) {
    unsigned long long t = gtimer();
    const unsigned long long due = t0 + static_cast<unsigned long long>(i) * period_ns;
    while (t < due) t = gtimer();
    samples[2 * i] = t;
    samples[2 * i + 1] = static_cast<unsigned long long>(clock64());
    if (t - t0 > duration_ns) {
      ++i;
      break;
    }
  }
  *count = i;
}

// bf16 operands uniform in [-1, 1) from a hash of the index (as c3bench fills them): tensor-core
// power depends on how many operand bits toggle, so constant operands draw less than real data.
__global__ void fill_random_kernel(__nv_bfloat16* v, size_t count, unsigned long long seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    unsigned long long z = seed ^ (i * 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    v[i] = __float2bfloat16(static_cast<float>(z >> 40) / static_cast<float>(1ull << 24) * 2.0f - 1.0f);
  }
}

// C = A B in bf16 (fp32 accumulate), column-major, planned once for `sm_target` SMs (0: the whole
// GPU); operands filled with random values or constant bytes.
class LtGemm {
public:
  LtGemm(long m, long n, long k, int sm_target, bool random) {
    CK(cudaMalloc(&a_, sizeof(__nv_bfloat16) * m * k));
    CK(cudaMalloc(&b_, sizeof(__nv_bfloat16) * k * n));
    CK(cudaMalloc(&c_, sizeof(__nv_bfloat16) * m * n));
    CK(cudaMemset(a_, 0x3c, sizeof(__nv_bfloat16) * m * k));  // ~1.0-ish bf16 bytes, not zeros
    CK(cudaMemset(b_, 0x3b, sizeof(__nv_bfloat16) * k * n));
    if (random) {
      fill_random_kernel<<<1024, 256>>>(a_, static_cast<size_t>(m) * k, 1);
      fill_random_kernel<<<1024, 256>>>(b_, static_cast<size_t>(k) * n, 2);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
    }
    CK(cudaMalloc(&workspace_, kWorkspaceBytes));
    CKB(cublasLtCreate(&lt_));
    CKB(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    if (sm_target > 0) {
      const int32_t target = sm_target;
      CKB(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &target,
                                         sizeof target));
    }
    CKB(cublasLtMatrixLayoutCreate(&la_, CUDA_R_16BF, m, k, m));
    CKB(cublasLtMatrixLayoutCreate(&lb_, CUDA_R_16BF, k, n, k));
    CKB(cublasLtMatrixLayoutCreate(&lc_, CUDA_R_16BF, m, n, m));
    cublasLtMatmulPreference_t pref;
    CKB(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = kWorkspaceBytes;
    CKB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    int found = 0;
    CKB(cublasLtMatmulAlgoGetHeuristic(lt_, desc_, la_, lb_, lc_, lc_, pref, 1, &result_, &found));
    CKB(cublasLtMatmulPreferenceDestroy(pref));
    if (found < 1) {
      std::fprintf(stderr, "no cuBLASLt algorithm for %ldx%ldx%ld\n", m, n, k);
      std::exit(3);
    }
  }

  void run(cudaStream_t stream) {
    const float alpha = 1.0f, beta = 0.0f;
    CKB(cublasLtMatmul(lt_, desc_, &alpha, a_, la_, b_, lb_, &beta, c_, lc_, c_, lc_, &result_.algo,
                       workspace_, kWorkspaceBytes, stream));
  }

  // One field of the chosen algorithm's configuration (opaque ids: equal ids mean the same
  // configuration); -1 if the library does not report it. The fields differ in width (the
  // cluster shape is 16 bits), so the size is asked first.
  [[nodiscard]] long long config(cublasLtMatmulAlgoConfigAttributes_t attr) const {
    size_t size = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&result_.algo, attr, nullptr, 0, &size) !=
            CUBLAS_STATUS_SUCCESS ||
        size == 0 || size > sizeof(std::uint64_t))
      return -1;
    std::uint64_t value = 0;  // little-endian: a narrower field fills the low bytes
    size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&result_.algo, attr, &value, size, &written) !=
        CUBLAS_STATUS_SUCCESS)
      return -1;
    return static_cast<long long>(value);
  }

private:
  static constexpr size_t kWorkspaceBytes = 64ull << 20;
  __nv_bfloat16 *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  void* workspace_ = nullptr;
  cublasLtHandle_t lt_{};
  cublasLtMatmulDesc_t desc_{};
  cublasLtMatrixLayout_t la_{}, lb_{}, lc_{};
  cublasLtMatmulHeuristicResult_t result_{};
};
