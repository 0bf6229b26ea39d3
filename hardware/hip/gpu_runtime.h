#pragma once
// The one include every c3bench source uses for GPU names. The code below it speaks HIP; on
// NVIDIA, vendors/cuda.h maps those names to CUDA. Platform-only features are guarded by
// C3BENCH_NVIDIA / C3BENCH_AMD, which CMake defines (exactly one).
#if defined(C3BENCH_AMD) == defined(C3BENCH_NVIDIA)
#error "define exactly one of C3BENCH_AMD and C3BENCH_NVIDIA (hardware/hip/CMakeLists.txt does)"
#endif

#if defined(C3BENCH_AMD)
#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <rccl/rccl.h>
#else
#include "hardware/hip/vendors/cuda.h"
#endif

namespace c3sim::bench {

#if defined(C3BENCH_AMD)
inline constexpr const char* kPlatform = "amd";
inline constexpr const char* kComputeUnitName = "CU";
#else
inline constexpr const char* kPlatform = "nvidia";
inline constexpr const char* kComputeUnitName = "SM";
#endif

}  // namespace c3sim::bench
