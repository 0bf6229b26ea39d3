#pragma once
// Checks for every runtime/library call: C3_HIP(hipMalloc(...)), C3_BLAS(...), C3_NCCL(...),
// C3_CU(...) (CUDA driver, NVIDIA only). Each throws DeviceError naming the call and the code.
#include "hardware/hip/device_error.h"
#include "hardware/hip/gpu_runtime.h"

namespace c3sim::bench::detail {
void check_hip(hipError_t e, const char* expr, const char* file, int line);
void check_blas(hipblasStatus_t s, const char* expr, const char* file, int line);
void check_nccl(ncclResult_t r, const char* expr, const char* file, int line);
#if defined(C3BENCH_NVIDIA)
void check_cu(CUresult r, const char* expr, const char* file, int line);
#endif
#if defined(C3BENCH_AMD)
void check_hsa(hsa_status_t s, const char* expr, const char* file, int line);
#endif
}  // namespace c3sim::bench::detail

#define C3_HIP(expr) ::c3sim::bench::detail::check_hip((expr), #expr, __FILE__, __LINE__)
#define C3_BLAS(expr) ::c3sim::bench::detail::check_blas((expr), #expr, __FILE__, __LINE__)
#define C3_NCCL(expr) ::c3sim::bench::detail::check_nccl((expr), #expr, __FILE__, __LINE__)
#define C3_CU(expr) ::c3sim::bench::detail::check_cu((expr), #expr, __FILE__, __LINE__)
#define C3_HSA(expr) ::c3sim::bench::detail::check_hsa((expr), #expr, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors surface here, not at the next call.
#define C3_LAUNCHED() C3_HIP(hipGetLastError())
