#pragma once
// The GEMM side: one BLAS handle per GPU, bf16 operands filled with random values, and a launch
// of C[M x N] = A[M x K] * B[K x N] (fp32 accumulate) on a given stream, optionally told how many
// SMs/CUs it may plan for (cublasSetSmCountTarget on NVIDIA; AMD relies on the CU mask alone).
#include <cstdint>
#include <vector>

#include "hardware/hip/device_buffer.h"
#include "hardware/hip/gpu_runtime.h"
#include "workloads/gemm.h"

namespace c3sim::bench {

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
  };
  std::vector<PerGpu> gpus_;
  wl::Gemm shape_;
};

}  // namespace c3sim::bench
