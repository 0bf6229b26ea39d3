#include "hardware/hip/check.h"

#include <string>

namespace c3sim::bench {

void throw_device_error(const char* library, const std::string& code, const char* expr, const char* file,
                        int line) {
  throw DeviceError(std::string(expr) + " failed at " + file + ":" + std::to_string(line) + ": " + library +
                    " " + code);
}

namespace detail {

void check_hip(hipError_t e, const char* expr, const char* file, int line) {
  if (e == hipSuccess) return;
  throw_device_error("runtime", std::string(hipGetErrorName(e)) + ": " + hipGetErrorString(e), expr, file,
                     line);
}

void check_blas(hipblasStatus_t s, const char* expr, const char* file, int line) {
  if (s == HIPBLAS_STATUS_SUCCESS) return;
  throw_device_error("BLAS", std::string(hipblasStatusToString(s)), expr, file, line);
}

void check_nccl(ncclResult_t r, const char* expr, const char* file, int line) {
  if (r == ncclSuccess) return;
  std::string what = ncclGetErrorString(r);
  if (const char* last = ncclGetLastError(nullptr); last != nullptr && *last != '\0') {
    what += " (" + std::string(last) + ")";
  }
  throw_device_error("NCCL/RCCL", what, expr, file, line);
}

#if defined(C3BENCH_NVIDIA)
void check_cu(CUresult r, const char* expr, const char* file, int line) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  throw_device_error("driver", std::string(name ? name : "?") + ": " + (text ? text : "unknown"), expr, file,
                     line);
}
#endif

#if defined(C3BENCH_AMD)
void check_hsa(hsa_status_t s, const char* expr, const char* file, int line) {
  if (s == HSA_STATUS_SUCCESS) return;
  const char* text = nullptr;
  hsa_status_string(s, &text);
  throw_device_error("HSA", text ? text : "unknown status", expr, file, line);
}
#endif

}  // namespace detail
}  // namespace c3sim::bench
