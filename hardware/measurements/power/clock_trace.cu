// The SM clock during a cuBLAS GEMM, read on the GPU: a one-warp probe kernel on another stream
// samples (globaltimer, clock64) every --period-us while the GEMM runs, so each interval gives the
// clock of the SM it sits on (MHz = cycles / ns * 1000) at tens of microseconds' resolution, where
// NVML's clock and power readings update every ~100 ms and average power over about a second.
// Optionally a memory-bound stream kernel runs beside the GEMM on --mem-sms SMs (the GEMM is then
// planned for the rest with cuBLASLt's SM count target); its own time is mem_us (events on its
// stream).
//
//   nvcc -O2 -std=c++17 -arch=sm_90 clock_trace.cu -lcublasLt -o clock_trace   (includes ../cuda_tool.cuh)
//   ./clock_trace --shape 8192x8192x57344 --sms 132 --idle-ms 20 --spin-ms 2 --reps 8 >> out.jsonl
//
// One JSON line per repetition: the condition, the GEMM's time (events), the probe's clock
// summary over the GEMM (median, min, max, the first and the last 10% of it) and the samples
// (microseconds from the GEMM's start, MHz), decimated to at most 200.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../cuda_tool.cuh"

__global__ void stream_kernel(const uint4* src, uint4* dst, size_t count) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    uint4 v = src[i];
    v.x += 1u;
    dst[i] = v;
  }
}

struct Options {
  long m = 8192, n = 8192, k = 8192;
  int sms = 0;  // 0: every SM but the probe's (and the memory kernel's)
  double idle_ms = 20, spin_ms = 2;
  int reps = 8;
  double period_us = 20;
  int mem_sms = 0;
  double mem_gib = 0;
  bool probe = true;
  bool random = false;  // --fill random: operands as real data; default constant bytes
};

static Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "clock_trace: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--shape") {
      if (std::sscanf(next(), "%ldx%ldx%ld", &o.m, &o.n, &o.k) != 3) {
        std::fprintf(stderr, "clock_trace: --shape MxNxK\n");
        std::exit(2);
      }
    } else if (a == "--sms")
      o.sms = std::atoi(next());
    else if (a == "--idle-ms")
      o.idle_ms = std::atof(next());
    else if (a == "--spin-ms")
      o.spin_ms = std::atof(next());
    else if (a == "--reps")
      o.reps = std::atoi(next());
    else if (a == "--period-us")
      o.period_us = std::atof(next());
    else if (a == "--mem-sms")
      o.mem_sms = std::atoi(next());
    else if (a == "--mem-gib")
      o.mem_gib = std::atof(next());
    else if (a == "--no-probe")
      o.probe = false;
    else if (a == "--fill") {
      const std::string f = next();
      if (f != "random" && f != "constant") {
        std::fprintf(stderr, "clock_trace: --fill random|constant\n");
        std::exit(2);
      }
      o.random = f == "random";
    } else {
      std::fprintf(stderr, "clock_trace: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  int dev_sms = 0;
  CK(cudaDeviceGetAttribute(&dev_sms, cudaDevAttrMultiProcessorCount, 0));
  // Default: one SM fewer than free, so the probe's SM is not one the persistent GEMM waits for.
  const int sms = o.sms > 0 ? o.sms : dev_sms - 1 - o.mem_sms;

  LtGemm gemm_plan(o.m, o.n, o.k, sms, o.random);
  size_t mem_count = 0;
  uint4 *msrc = nullptr, *mdst = nullptr;
  if (o.mem_sms > 0) {
    const size_t half = static_cast<size_t>(o.mem_gib * (1ull << 30) / 2) / 16 * 16;
    mem_count = half / 16;
    CK(cudaMalloc(&msrc, half));
    CK(cudaMalloc(&mdst, half));
    CK(cudaMemset(msrc, 1, half));
  }

  // What cuBLASLt chose for this SM target (opaque ids, but equal ids mean the same configuration).
  const long long algo_id = gemm_plan.config(CUBLASLT_ALGO_CONFIG_ID);
  const long long tile_id = gemm_plan.config(CUBLASLT_ALGO_CONFIG_TILE_ID);
  const long long stages_id = gemm_plan.config(CUBLASLT_ALGO_CONFIG_STAGES_ID);
  const long long cluster_id = gemm_plan.config(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);

  cudaStream_t gs, ps, ms;
  CK(cudaStreamCreateWithFlags(&gs, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&ps, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&ms, cudaStreamNonBlocking));
  cudaEvent_t e0, e1, m0, m1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventCreate(&m0));
  CK(cudaEventCreate(&m1));
  auto gemm = [&] { gemm_plan.run(gs); };

  // Time alone once (untimed warm-up first) to size the probe's window.
  gemm();
  CK(cudaStreamSynchronize(gs));
  CK(cudaEventRecord(e0, gs));
  gemm();
  CK(cudaEventRecord(e1, gs));
  CK(cudaEventSynchronize(e1));
  float warm_ms = 0;
  CK(cudaEventElapsedTime(&warm_ms, e0, e1));

  const double period_ns = o.period_us * 1e3;
  const double window_ns = (warm_ms * 2.0 + 2.0) * 1e6;
  const int max_samples = static_cast<int>(window_ns / period_ns) + 16;
  unsigned long long* d_samples;
  int* d_count;
  unsigned long long* d_stamps;
  CK(cudaMalloc(&d_samples, sizeof(unsigned long long) * 2 * max_samples));
  CK(cudaMalloc(&d_count, sizeof(int)));
  CK(cudaMalloc(&d_stamps, 2 * sizeof(unsigned long long)));
  std::vector<unsigned long long> h(2 * static_cast<size_t>(max_samples));

  for (int rep = 0; rep < o.reps; ++rep) {
    CK(cudaDeviceSynchronize());
    if (o.idle_ms > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(o.idle_ms * 1e3)));
    if (o.spin_ms > 0) {
      spin_kernel<<<dev_sms, 64, 0, gs>>>(static_cast<unsigned long long>(o.spin_ms * 1e6));
      CK(cudaGetLastError());
      CK(cudaStreamSynchronize(gs));
    }
    CK(cudaMemsetAsync(d_count, 0, sizeof(int), ps));
    if (o.probe) {
      clock_probe_kernel<<<1, 32, 0, ps>>>(d_samples, max_samples, static_cast<unsigned long long>(period_ns),
                                           static_cast<unsigned long long>(window_ns), d_count);
      CK(cudaGetLastError());
    }
    if (o.mem_sms > 0) {
      CK(cudaEventRecord(m0, ms));
      stream_kernel<<<o.mem_sms, 1024, 0, ms>>>(msrc, mdst, mem_count);
      CK(cudaGetLastError());
      CK(cudaEventRecord(m1, ms));
    }
    stamp_kernel<<<1, 32, 0, gs>>>(d_stamps);
    CK(cudaEventRecord(e0, gs));
    gemm();
    CK(cudaEventRecord(e1, gs));
    stamp_kernel<<<1, 32, 0, gs>>>(d_stamps + 1);
    CK(cudaDeviceSynchronize());
    float gemm_ms = 0;
    CK(cudaEventElapsedTime(&gemm_ms, e0, e1));
    float mem_ms = 0;  // the memory kernel's own time (0 without one)
    if (o.mem_sms > 0) CK(cudaEventElapsedTime(&mem_ms, m0, m1));
    int count = 0;
    unsigned long long st[2];
    CK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h.data(), d_samples, sizeof(unsigned long long) * 2 * count, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(st, d_stamps, sizeof st, cudaMemcpyDeviceToHost));
    // Interval clocks inside the GEMM window [st0, st1].
    std::vector<std::pair<double, double>> pts;  // (us from GEMM start, MHz)
    for (int i = 1; i < count; ++i) {
      const unsigned long long t0 = h[2 * (i - 1)], t1 = h[2 * i];
      if (t1 <= t0) continue;
      const double mid = 0.5 * (static_cast<double>(t0) + static_cast<double>(t1));
      if (mid < static_cast<double>(st[0]) || mid > static_cast<double>(st[1])) continue;
      const double mhz =
          static_cast<double>(h[2 * i + 1] - h[2 * i - 1]) / static_cast<double>(t1 - t0) * 1e3;
      pts.emplace_back((mid - static_cast<double>(st[0])) / 1e3, mhz);
    }
    std::vector<double> v;
    for (auto& p : pts) v.push_back(p.second);
    auto median = [](std::vector<double> x) {
      if (x.empty()) return 0.0;
      std::sort(x.begin(), x.end());
      return x[x.size() / 2];
    };
    const size_t tenth = std::max<size_t>(1, v.size() / 10);
    std::vector<double> first(v.begin(), v.begin() + std::min(tenth, v.size()));
    std::vector<double> last(v.end() - std::min(tenth, v.size()), v.end());
    std::printf(
        "{\"shape\":\"%ldx%ldx%ld\",\"sm_target\":%d,\"device_sms\":%d,\"idle_ms\":%g,\"spin_ms\":%g,"
        "\"mem_sms\":%d,\"mem_gib\":%g,\"probe\":%s,\"fill\":\"%s\",\"algo\":[%lld,%lld,%lld,%lld],\"rep\":%"
        "d,\"gemm_us\":%.2f,\"mem_us\":%.2f,\"window_us\":%.2f,\"intervals\":%zu,"
        "\"mhz_median\":%.1f,\"mhz_min\":%.1f,\"mhz_max\":%.1f,\"mhz_first10\":%.1f,\"mhz_last10\":%.1f,"
        "\"samples\":[",
        o.m, o.n, o.k, sms, dev_sms, o.idle_ms, o.spin_ms, o.mem_sms, o.mem_gib, o.probe ? "true" : "false",
        o.random ? "random" : "constant", algo_id, tile_id, stages_id, cluster_id, rep, gemm_ms * 1e3,
        mem_ms * 1e3, static_cast<double>(st[1] - st[0]) / 1e3, v.size(), median(v),
        v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()),
        v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()), median(first), median(last));
    const size_t step = std::max<size_t>(1, pts.size() / 200);
    bool comma = false;
    for (size_t i = 0; i < pts.size(); i += step) {
      std::printf("%s[%.1f,%.0f]", comma ? "," : "", pts[i].first, pts[i].second);
      comma = true;
    }
    std::printf("]}\n");
    std::fflush(stdout);
  }
  return 0;
}
