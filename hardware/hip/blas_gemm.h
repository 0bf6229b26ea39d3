#pragma once
// The GEMM side: bf16 operands filled with random values on every GPU, and a launch of
// C[M x N] = A[M x K] * B[K x N] (fp32 accumulate) on a given stream, optionally told how many
// SMs/CUs it may plan for (NVIDIA; AMD relies on the CU mask alone).
//
// Libraries (blas_library() names the one this build uses): where the Lt interface exists
// (C3BENCH_GEMM_LT: cuBLASLt on NVIDIA, hipBLASLt on ROCm >= 6.1) the operation's descriptors and
// its algorithm (the heuristic's first for the shape, the workspace and, on NVIDIA, the SM count
// target) are made once per (GPU, shape, SM target) by plan(), outside any timed region, and an
// enqueue is one cublasLtMatmul/hipblasLtMatmul call with that algorithm: no heuristic, no
// workspace or stream setting, no allocation per call. Without it (Debian's ROCm) hipBLAS
// (hipblasGemmEx, rocBLAS underneath) chooses per call, with the stream and workspace set per call.
//
// Why (issue 14): c3bench used cublasGemmEx with the stream, workspace and SM target set before
// every call; with the start event on an idle GPU that host work was inside every timed trial
// (2048^3 bf16 measured 68 us in c3bench, 25.8 us in a PyTorch loop on the same H200).
#include <cstdint>
#include <map>
#include <vector>

#include "hardware/hip/device_buffer.h"
#include "hardware/hip/gpu_runtime.h"
#include "workloads/gemm.h"

namespace c3sim::bench {

// "cuBLASLt", "hipBLASLt" or "hipBLAS": the library the GEMMs of this build go through.
const char* blas_library();

class BlasGemm {
public:
  explicit BlasGemm(int gpus);
  ~BlasGemm();
  BlasGemm(const BlasGemm&) = delete;
  BlasGemm& operator=(const BlasGemm&) = delete;

  // Allocates (grow-only) and fills A, B, C on every GPU for this shape; forgets earlier plans.
  void prepare(const wl::Gemm& gemm);
  // Chooses the algorithm for the prepared shape on `gpu` planned for `sm_target` SMs (0 = the
  // whole GPU), once (host work only; a no-op for hipBLAS). enqueue() plans a pair it has not
  // seen, so callers that time must plan first or prime untimed (Bench and the program path do).
  void plan(int gpu, int sm_target);
  // Queues the prepared GEMM on `stream` of `gpu`; sm_target 0 = the whole GPU.
  void enqueue(int gpu, hipStream_t stream, int sm_target);
#if defined(C3BENCH_NVIDIA)
  // The same GEMM the way c3bench queued it before issue 14, kept as the GEMM launch probe's
  // reference (gemm_launch_probe.h): cublasGemmEx (the library chooses the algorithm inside the
  // call) with the stream, workspace and SM count target set on the handle before every call.
  void enqueue_per_call(int gpu, hipStream_t stream, int sm_target);
#endif

private:
#if C3BENCH_GEMM_LT
  struct Plan {
    hipblasLtMatmulDesc_t desc = nullptr;
    hipblasLtMatmulAlgo_t algo{};
  };
#endif
  struct PerGpu {
    DeviceBuffer workspace, a, b, c;
#if C3BENCH_GEMM_LT
    hipblasLtHandle_t lt = nullptr;
    hipblasLtMatrixLayout_t a_layout = nullptr, b_layout = nullptr, c_layout = nullptr;
    std::map<int, Plan> plans;  // by SM target (always 0 on AMD)
#if defined(C3BENCH_NVIDIA)
    hipblasHandle_t handle = nullptr;  // enqueue_per_call only, created on its first use
#endif
#else
    hipblasHandle_t handle = nullptr;
#endif
  };
#if C3BENCH_GEMM_LT
  const Plan& plan_for(int gpu, int sm_target);
  void make_layouts(PerGpu& p) const;
  static void release_lt(PerGpu& p);
#endif
  std::vector<PerGpu> gpus_;
  wl::Gemm shape_;
  bool prepared_ = false;
};

}  // namespace c3sim::bench
