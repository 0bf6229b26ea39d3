#pragma once
// The one include every c3bench source uses for GPU names. The code below it speaks HIP; on
// NVIDIA, vendors/cuda.h maps those names to CUDA. Platform-only features are guarded by
// C3BENCH_NVIDIA / C3BENCH_AMD, which CMake defines (exactly one).
#if defined(C3BENCH_AMD) == defined(C3BENCH_NVIDIA)
#error "define exactly one of C3BENCH_AMD and C3BENCH_NVIDIA (hardware/hip/CMakeLists.txt does)"
#endif

#if defined(C3BENCH_AMD)
#include "hardware/hip/vendors/rocm.h"
#else
#include "hardware/hip/vendors/cuda.h"
#endif

// Collective-library API levels, by NCCL's numbering (RCCL follows it: Debian trixie's RCCL 5.4.3
// is NCCL 2.13, ROCm 6.0's RCCL is 2.18, ROCm 6.2's 2.20). README.md says which ROCm enables each.
// ncclConfig_t with minCTAs/maxCTAs: per-communicator CTA caps (--coll-cta-limits, rp policies).
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 17, 0)
#define C3BENCH_HAVE_COMM_CTA_LIMITS 1
#else
#define C3BENCH_HAVE_COMM_CTA_LIMITS 0
#endif
// ncclMemAlloc / ncclMemFree: the allocations window registration wants.
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
#define C3BENCH_HAVE_NCCL_MEM_ALLOC 1
#else
#define C3BENCH_HAVE_NCCL_MEM_ALLOC 0
#endif
// The zero-CTA policy: copy-engine collectives on symmetric windows (NCCL >= 2.28).
#if defined(NCCL_CTA_POLICY_ZERO)
#define C3BENCH_HAVE_ZERO_CTA 1
#else
#define C3BENCH_HAVE_ZERO_CTA 0
#endif

// GEMMs through the Lt interface, the operation described and its algorithm chosen once per shape
// and SM target, outside any timed region: cuBLASLt on NVIDIA, hipBLASLt where ROCm has it
// (blas_gemm.h). Without it (Debian's ROCm) hipBLAS chooses per call.
#if defined(C3BENCH_NVIDIA)
#define C3BENCH_GEMM_LT 1
#elif C3BENCH_HAVE_HIPBLASLT
#define C3BENCH_GEMM_LT 1
#else
#define C3BENCH_GEMM_LT 0
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
