// What a GEMM launched behind held SMs pays, measured in pairs so the power cap's drift cancels:
// each repetition runs the GEMM alone and then behind every hold (S SMs for X us, a spin kernel that
// claims a whole SM's shared memory, so no GEMM CTA shares its SMs), back to back, after the same
// conditioning as c3bench (20 ms idle with the host busy-waiting, then a 2 ms spin). A one-CTA
// probe that also needs a whole SM is launched after the GEMM on a third stream: it starts when
// the first GEMM CTA retires, so (GEMM end - probe start) is the GEMM's tail, where its CTAs run
// out of tiles.
//
//   nvcc -O2 -std=c++17 -arch=sm_90 hold_tail.cu -lcublasLt -o hold_tail   (includes ../cuda_tool.cuh)
//   ./hold_tail --shape 16384x8192x53248 --holds 32:150,32:600,64:600 --reps 10 >> out.jsonl
//
// One JSON line per repetition and mode (hold "0:0" = alone): times in us from a stamp taken on
// the GPU just before the first kernel: gemm_ready (behind a hold: a stamp on the GEMM's stream
// just before it, i.e. when the host's launch reached the GPU; alone 0), gemm_end, hold_end,
// probe_start (the first CTA retiring); with --clock, the SM clock's median over the GEMM's run and
// over its second half (a one-warp probe, launched before the first part in every mode).
// Launches as c3bench times a trial (hardware/hip/start_hold.h): the first part (alone: stamp, GEMM,
// end stamp; held: stamp, hold) is queued behind a one-thread gate kernel polling a host-mapped
// word and released once queued, so the host's cuBLASLt call is outside the timed region; behind a
// hold the GEMM is launched after the release, one host launch later, as c3bench's sp launches it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "../cuda_tool.cuh"

// Holds its SM for ns (dynamic shared memory makes it the SM's only CTA); the last CTA out writes
// the time it left.
__global__ void hold_kernel(unsigned long long ns, unsigned long long* end) {
  extern __shared__ unsigned char smem[];
  const unsigned long long t0 = gtimer();
  while (gtimer() - t0 < ns) {}
  if (threadIdx.x == 0) {
    smem[0] = 1;
    atomicMax(end, gtimer());
  }
}

// Records when it starts: the first SM a GEMM CTA leaves.
__global__ void probe_kernel(unsigned long long* at) {
  extern __shared__ unsigned char smem[];
  if (threadIdx.x == 0) {
    smem[0] = 1;
    *at = gtimer();
  }
}

// Holds its stream until the host writes `epoch` to the mapped word (c3bench's start hold).
__global__ void gate_kernel(const volatile int* word, int epoch) {
  const unsigned long long t0 = gtimer();
  while (*word != epoch && gtimer() - t0 < 2000000000ull) {}
}

struct Options {
  long m = 8192, n = 8192, k = 8192;
  std::vector<std::pair<int, double>> holds;  // (SMs, us)
  double idle_ms = 20, spin_ms = 2;
  int reps = 10;
  bool random = true;  // --fill constant: operands of constant bytes (less tensor-core power)
  bool clock = false;  // --clock: a one-warp clock probe, launched before the first part in every mode
};

static Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "hold_tail: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--shape") {
      if (std::sscanf(next().c_str(), "%ldx%ldx%ld", &o.m, &o.n, &o.k) != 3) {
        std::fprintf(stderr, "hold_tail: --shape MxNxK\n");
        std::exit(2);
      }
    } else if (a == "--holds") {
      std::string list = next();
      size_t pos = 0;
      while (pos < list.size()) {
        const size_t comma = list.find(',', pos);
        const std::string item =
            list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        int sms = 0;
        double us = 0;
        if (std::sscanf(item.c_str(), "%d:%lf", &sms, &us) != 2 || sms <= 0 || us <= 0) {
          std::fprintf(stderr, "hold_tail: --holds SMS:US[,SMS:US...], got '%s'\n", item.c_str());
          std::exit(2);
        }
        o.holds.emplace_back(sms, us);
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
    } else if (a == "--idle-ms") {
      o.idle_ms = std::atof(next().c_str());
    } else if (a == "--spin-ms") {
      o.spin_ms = std::atof(next().c_str());
    } else if (a == "--fill") {
      const std::string f = next();
      if (f != "random" && f != "constant") {
        std::fprintf(stderr, "hold_tail: --fill random|constant\n");
        std::exit(2);
      }
      o.random = f == "random";
    } else if (a == "--clock") {
      o.clock = true;
    } else if (a == "--reps") {
      o.reps = std::atoi(next().c_str());
    } else {
      std::fprintf(stderr, "hold_tail: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  int dev_sms = 0, smem_optin = 0;
  CK(cudaDeviceGetAttribute(&dev_sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CK(cudaFuncSetAttribute(hold_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_optin));
  CK(cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_optin));

  LtGemm gemm_plan(o.m, o.n, o.k, 0, o.random);  // as c3bench's sp runs it: planned for the whole GPU
  const long long algo_id = gemm_plan.config(CUBLASLT_ALGO_CONFIG_ID);
  const long long tile_id = gemm_plan.config(CUBLASLT_ALGO_CONFIG_TILE_ID);
  const long long cluster_id = gemm_plan.config(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);

  cudaStream_t gs, hs, ps;
  CK(cudaStreamCreateWithFlags(&gs, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&hs, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&ps, cudaStreamNonBlocking));
  unsigned long long* d;  // [0] start, [1] gemm end, [2] hold end, [3] probe start, [4] gemm ready
  CK(cudaMalloc(&d, 5 * sizeof(unsigned long long)));
  auto gemm = [&] { gemm_plan.run(gs); };
  int* gate_word;  // host-mapped
  CK(cudaHostAlloc(&gate_word, sizeof(int), cudaHostAllocMapped));
  *gate_word = 0;
  int* gate_dev;
  CK(cudaHostGetDevicePointer(&gate_dev, gate_word, 0));
  // Every kernel runs once before any is queued behind a spinning gate (lazy module loading).
  gemm();
  stamp_kernel<<<1, 32, 0, gs>>>(d);
  hold_kernel<<<1, 640, smem_optin, hs>>>(1000, d + 2);
  probe_kernel<<<1, 32, smem_optin, ps>>>(d + 3);
  gate_kernel<<<1, 1, 0, gs>>>(gate_dev, 0);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int epoch = 0;
  // --clock: the SM clock over the GEMM (clock_probe_kernel on its own stream, 20 us samples over a
  // window of twice the GEMM's time alone plus the longest hold), launched before the first part in
  // every mode, so whatever it takes from the GEMM it takes in the alone runs too.
  cudaStream_t cs;
  CK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
  const double period_ns = 20e3;
  int max_samples = 0;
  unsigned long long* d_samples = nullptr;
  int* d_count = nullptr;
  std::vector<unsigned long long> samples;
  double window_ns = 0;
  if (o.clock) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0, gs));
    gemm();
    CK(cudaEventRecord(e1, gs));
    CK(cudaEventSynchronize(e1));
    float alone_ms = 0;
    CK(cudaEventElapsedTime(&alone_ms, e0, e1));
    double longest_hold_us = 0;
    for (const auto& hold : o.holds) longest_hold_us = std::max(longest_hold_us, hold.second);
    window_ns = (2.0 * alone_ms * 1e3 + longest_hold_us) * 1e3;
    max_samples = static_cast<int>(window_ns / period_ns) + 16;
    CK(cudaMalloc(&d_samples, sizeof(unsigned long long) * 2 * max_samples));
    CK(cudaMalloc(&d_count, sizeof(int)));
    samples.resize(2 * static_cast<size_t>(max_samples));
    clock_probe_kernel<<<1, 32, 0, cs>>>(d_samples, 2, 1000, 1000, d_count);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  }

  std::vector<std::pair<int, double>> modes{{0, 0.0}};
  modes.insert(modes.end(), o.holds.begin(), o.holds.end());
  for (int rep = 0; rep < o.reps; ++rep) {
    for (const auto& [sms, us] : modes) {
      CK(cudaDeviceSynchronize());
      CK(cudaMemset(d, 0, 5 * sizeof(unsigned long long)));
      if (o.idle_ms > 0) {  // host busy, as c3bench's conditioning: a sleeping thread wakes slowly
        const auto until =
            std::chrono::steady_clock::now() + std::chrono::microseconds(static_cast<long>(o.idle_ms * 1e3));
        while (std::chrono::steady_clock::now() < until) {}
      }
      if (o.spin_ms > 0) {
        spin_kernel<<<dev_sms, 64, 0, gs>>>(static_cast<unsigned long long>(o.spin_ms * 1e6));
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(gs));
      }
      cudaStream_t first = sms > 0 ? hs : gs;
      if (o.clock) {
        clock_probe_kernel<<<1, 32, 0, cs>>>(d_samples, max_samples,
                                             static_cast<unsigned long long>(period_ns),
                                             static_cast<unsigned long long>(window_ns), d_count);
        CK(cudaGetLastError());
      }
      gate_kernel<<<1, 1, 0, first>>>(gate_dev, ++epoch);
      stamp_kernel<<<1, 32, 0, first>>>(d);
      if (sms > 0) {
        hold_kernel<<<sms, 640, smem_optin, hs>>>(static_cast<unsigned long long>(us * 1e3), d + 2);
        CK(cudaGetLastError());
        *reinterpret_cast<volatile int*>(gate_word) = epoch;
        stamp_kernel<<<1, 32, 0, gs>>>(d + 4);  // the GEMM's stream reached it (an SM is free)
        gemm();
        stamp_kernel<<<1, 32, 0, gs>>>(d + 1);
        probe_kernel<<<1, 32, smem_optin, ps>>>(d + 3);
      } else {
        gemm();
        stamp_kernel<<<1, 32, 0, gs>>>(d + 1);
        *reinterpret_cast<volatile int*>(gate_word) = epoch;
        probe_kernel<<<1, 32, smem_optin, ps>>>(d + 3);  // after the release: the GEMM's CTAs are out
      }
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      unsigned long long h[5];
      CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
      auto rel = [&](unsigned long long t) { return t == 0 ? -1.0 : (static_cast<double>(t) - h[0]) / 1e3; };
      // Clock medians over the GEMM's run and over its second half (MHz = cycles / ns * 1000).
      double mhz_run = 0, mhz_second_half = 0;
      if (o.clock) {
        int count = 0;
        CK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(samples.data(), d_samples, sizeof(unsigned long long) * 2 * count,
                      cudaMemcpyDeviceToHost));
        std::vector<double> run, late;
        const double start = static_cast<double>(h[0]), end = static_cast<double>(h[1]);
        for (int i = 1; i < count; ++i) {
          const double t0 = static_cast<double>(samples[2 * (i - 1)]),
                       t1 = static_cast<double>(samples[2 * i]);
          const double mid = 0.5 * (t0 + t1);
          if (t1 <= t0 || mid < start || mid > end) continue;
          const double mhz = static_cast<double>(samples[2 * i + 1] - samples[2 * i - 1]) / (t1 - t0) * 1e3;
          run.push_back(mhz);
          if (mid > 0.5 * (start + end)) late.push_back(mhz);
        }
        auto median = [](std::vector<double> v) {
          if (v.empty()) return 0.0;
          std::sort(v.begin(), v.end());
          return v[v.size() / 2];
        };
        mhz_run = median(run);
        mhz_second_half = median(late);
      }
      std::printf(
          "{\"shape\":\"%ldx%ldx%ld\",\"device_sms\":%d,\"algo\":[%lld,%lld,%lld],\"rep\":%d,\"hold_sms\":%d,"
          "\"hold_us\":%g,\"gemm_ready_us\":%.2f,\"gemm_end_us\":%.2f,\"hold_end_us\":%.2f,"
          "\"probe_start_us\":%.2f,\"fill\":\"%s\",\"clock_probe\":%s,\"mhz_run\":%.1f,\"mhz_second_half\":%."
          "1f}\n",
          o.m, o.n, o.k, dev_sms, algo_id, tile_id, cluster_id, rep, sms, us, sms > 0 ? rel(h[4]) : 0.0,
          rel(h[1]), rel(h[2]), rel(h[3]), o.random ? "random" : "constant", o.clock ? "true" : "false",
          mhz_run, mhz_second_half);
      std::fflush(stdout);
    }
  }
  return 0;
}
