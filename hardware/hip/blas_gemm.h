#pragma once
// The GEMM side: one BLAS handle per GPU, bf16 operands filled with random values, and a launch
// of C[M x N] = A[M x K] * B[K x N] (fp32 accumulate) on a given stream, optionally told how many
// SMs/CUs it may plan for (cublasSetSmCountTarget on NVIDIA; AMD relies on the CU mask alone).
// Libraries: cuBLAS (cublasGemmEx) on NVIDIA; on AMD hipBLASLt (hipblasLtMatmul with the
// heuristic's first algorithm for the shape) where its header exists (ROCm >= 6.1), else hipBLAS
// (hipblasGemmEx, rocBLAS underneath). blas_library() names the one this build uses.
#include <cstdint>
#include <vector>

#include "hardware/hip/device_buffer.h"
#include "hardware/hip/gpu_runtime.h"
#include "workloads/gemm.h"

namespace c3sim::bench {

// "cuBLAS", "hipBLASLt" or "hipBLAS": the library the GEMMs of this build go through.
const char* blas_library();

class BlasGemm {
public:
  explicit BlasGemm(int gpus);
  ~BlasGemm();
  BlasGemm(const BlasGemm&) = delete;
  BlasGemm& operator=(const BlasGemm&) = delete;

  // Allocates (grow-only) and fills A, B, C on every GPU for this shape.
  void prepare(const wl::Gemm& gemm);
  // Queues the prepared GEMM on `stream` of `gpu`; sm_target 0 = the whole GPU.
  void enqueue(int gpu, hipStream_t stream, int sm_target);

private:
  struct PerGpu {
    hipblasHandle_t handle = nullptr;
    DeviceBuffer workspace, a, b, c;
#if defined(C3BENCH_AMD) && C3BENCH_HAVE_HIPBLASLT
    hipblasLtHandle_t lt = nullptr;
    hipblasLtMatmulDesc_t desc = nullptr;
    hipblasLtMatrixLayout_t a_layout = nullptr, b_layout = nullptr, c_layout = nullptr;
    hipblasLtMatmulAlgo_t algo{};
#endif
  };
#if defined(C3BENCH_AMD) && C3BENCH_HAVE_HIPBLASLT
  void plan_lt(PerGpu& p);  // descriptors and algorithm for shape_
  static void release_lt(PerGpu& p);
#endif
  std::vector<PerGpu> gpus_;
  wl::Gemm shape_;
};

}  // namespace c3sim::bench
