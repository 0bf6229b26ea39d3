#include "hardware/hip/env_probe.h"

#include <cstdlib>
#include <string>

#include "hardware/hip/blas_gemm.h"
#include "hardware/hip/check.h"
#include "hardware/hip/vendor_collective.h"

namespace c3sim::bench {
namespace {

std::string version_string(int v, int major_div, int minor_div) {
  return std::to_string(v / major_div) + "." + std::to_string((v % major_div) / minor_div);
}

int attribute(hipDeviceAttribute_t a, int gpu) {
  int v = 0;
  C3_HIP(hipDeviceGetAttribute(&v, a, gpu));
  return v;
}

}  // namespace

wl::EnvRecord probe_environment(DeviceSet& devices) {
  wl::EnvRecord env;
  env.producer = "c3bench";
  env.gpus = devices.count();
  env.cus_per_gpu = devices.compute_units(0);
  hipDeviceProp_t prop{};
  C3_HIP(hipGetDeviceProperties(&prop, 0));
  env.hardware = prop.name;
  nlohmann::json& d = env.details;
  d["platform"] = kPlatform;
  d["compute_unit"] = kComputeUnitName;
  d["l2_bytes"] = prop.l2CacheSize;
  d["memory_bytes"] = prop.totalGlobalMem;
  d["compute_capability"] = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  d["sm_clock_peak_khz"] = attribute(hipDeviceAttributeClockRate, 0);
  d["memory_clock_peak_khz"] = attribute(hipDeviceAttributeMemoryClockRate, 0);
  d["async_engine_count"] = attribute(hipDeviceAttributeAsyncEngineCount, 0);
  d["stream_priority_highest"] = devices.highest_priority();
  int driver = 0;
  int runtime = 0;
  C3_HIP(hipDriverGetVersion(&driver));
  C3_HIP(hipRuntimeGetVersion(&runtime));
  d["driver_api_version"] = driver;
  d["runtime_version"] = runtime;
  int nccl = 0;
  C3_NCCL(ncclGetVersion(&nccl));
  d["collective_library"] = std::string(kPlatform) == "amd" ? "RCCL" : "NCCL";
  d["collective_library_version"] = nccl >= 10000
                                        ? version_string(nccl, 10000, 100) + "." + std::to_string(nccl % 100)
                                        : std::to_string(nccl);
  d["vendor_zero_cta_compiled"] = vendor_zero_cta_compiled();
#if defined(C3BENCH_NVIDIA)
  int major = 0, minor = 0, patch = 0;
  C3_BLAS(cublasGetProperty(MAJOR_VERSION, &major));
  C3_BLAS(cublasGetProperty(MINOR_VERSION, &minor));
  C3_BLAS(cublasGetProperty(PATCH_LEVEL, &patch));
  d["blas_library"] = blas_library();
  d["blas_version"] = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
#else
  d["blas_library"] = blas_library();
  d["blas_version"] = std::to_string(hipblasVersionMajor) + "." + std::to_string(hipblasVersionMinor) + "." +
                      std::to_string(hipblasVersionPatch) + " (hipBLAS headers)";
  d["hsa_amd_interface"] =
      std::to_string(HSA_AMD_INTERFACE_VERSION_MAJOR) + "." + std::to_string(HSA_AMD_INTERFACE_VERSION_MINOR);
  d["sdma_engine_pinning"] = C3BENCH_HAVE_SDMA_ENGINE_COPY != 0;
  d["sdma_preferred_engine_query"] = C3BENCH_HAVE_PREFERRED_COPY_ENGINE != 0;
#endif
  d["collective_cta_limits_compiled"] = C3BENCH_HAVE_COMM_CTA_LIMITS != 0;
  for (const char* var : {"NCCL_NVLS_ENABLE", "NCCL_CTA_POLICY", "CUDA_MODULE_LOADING",
                          "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "C3BENCH_SDMA_ENGINE_MAP"}) {
    if (const char* v = std::getenv(var)) d["environment"][var] = v;
  }
  nlohmann::json topo = nlohmann::json::array();
  for (int a = 0; a < devices.count(); ++a) {
    char bus[64] = {};
    C3_HIP(hipDeviceGetPCIBusId(bus, sizeof bus, a));
    nlohmann::json row = {{"gpu", a}, {"pci_bus_id", bus}};
    nlohmann::json ranks = nlohmann::json::array();
    for (int b = 0; b < devices.count(); ++b) {
      int rank = 0;
      if (a != b) C3_HIP(hipDeviceGetP2PAttribute(&rank, hipDevP2PAttrPerformanceRank, a, b));
      ranks.push_back(a == b ? -1 : rank);
    }
    row["p2p_performance_rank"] = ranks;
    topo.push_back(row);
  }
  d["topology"] = topo;
  return env;
}

}  // namespace c3sim::bench
