#pragma once
// The AMD build's GPU headers, and which of the newer ROCm APIs this ROCm has. c3bench is written
// with HIP names and the newest APIs; what an older ROCm lacks is switched off here by one feature
// macro per API, and the code using it sits behind `#if C3BENCH_HAVE_...`. CI compiles against
// Debian trixie's ROCm (hipcc 5.7.1, hipBLAS/rocBLAS 5.5.1, RCCL 5.4.3, HSA runtime 6.1.2), where
// several are off; an MI300X node with ROCm >= 7.0 has them all (hardware/hip/README.md lists
// which ROCm version enables each).

// hipBLAS 2.x (ROCm 6.x) takes hipDataType operands and a hipblasComputeType_t in hipblasGemmEx
// only when HIPBLAS_V2 is defined; hipBLAS 3 (ROCm 7) always does; hipBLAS < 2 ignores it.
#ifndef HIPBLAS_V2
#define HIPBLAS_V2
#endif

#include <hip/hip_ext.h>
#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <hsa/amd_hsa_signal.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <rccl/rccl.h>

// hipblasGemmEx with hipDataType / hipblasComputeType_t (hipBLAS >= 2.0, ROCm >= 6.0). Before,
// one enum (hipblasDatatype_t) named both operand and compute types.
#if defined(hipblasVersionMajor) && hipblasVersionMajor >= 2
#define C3BENCH_HIPBLAS_TYPED_COMPUTE 1
#else
#define C3BENCH_HIPBLAS_TYPED_COMPUTE 0
#endif

// hipblasSetWorkspace: hipBLAS >= 3.0 (ROCm >= 7.0). Before it, a hipBLAS handle on AMD is a
// rocBLAS handle, and rocblas_set_workspace gives it the workspace.
#if defined(hipblasVersionMajor) && hipblasVersionMajor >= 3
#define C3BENCH_HAVE_HIPBLAS_SET_WORKSPACE 1
#else
#define C3BENCH_HAVE_HIPBLAS_SET_WORKSPACE 0
#include <rocblas/rocblas.h>
#endif

// hipBLASLt (ROCm >= 6.0; not packaged in Debian trixie): the GEMM path MI300X frameworks use.
#if __has_include(<hipblaslt/hipblaslt.h>)
#include <hipblaslt/hipblaslt.h>
#define C3BENCH_HAVE_HIPBLASLT 1
#else
#define C3BENCH_HAVE_HIPBLASLT 0
#endif

// hsa_amd_memory_async_copy_on_engine / hsa_amd_memory_copy_engine_status: HSA AMD interface
// 1.2 (ROCm >= 6.0). hsa_amd_memory_get_preferred_copy_engine: interface 1.8 (ROCm >= 7.0).
#if HSA_AMD_INTERFACE_VERSION_MAJOR > 1 || HSA_AMD_INTERFACE_VERSION_MINOR >= 2
#define C3BENCH_HAVE_SDMA_ENGINE_COPY 1
#else
#define C3BENCH_HAVE_SDMA_ENGINE_COPY 0
#endif
#if HSA_AMD_INTERFACE_VERSION_MAJOR > 1 || HSA_AMD_INTERFACE_VERSION_MINOR >= 8
#define C3BENCH_HAVE_PREFERRED_COPY_ENGINE 1
#else
#define C3BENCH_HAVE_PREFERRED_COPY_ENGINE 0
#endif
