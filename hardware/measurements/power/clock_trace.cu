// The SM clock during a cuBLAS GEMM, read on the GPU: a one-warp probe kernel on another stream
// samples (globaltimer, clock64) every --period-us while the GEMM runs, so each interval gives the
// clock of the SM it sits on (MHz = cycles / ns * 1000) at tens of microseconds' resolution, where
// NVML's clock and power readings update every ~100 ms and average power over about a second.
// Optionally a memory-bound stream kernel runs beside the GEMM on --mem-sms SMs (the GEMM is then
// planned for the rest with cuBLASLt's SM count target); its own time is mem_us (events on its
// stream).
// With --mem-loop the stream kernel instead runs in chunks of --mem-gib (bytes read + written) on
// --mem-threads threads per block, relaunched for the GEMM's whole duration, so fewer threads give
// a lower bandwidth beside the same GEMM SMs. --copy-gib G runs copies of G GiB beside the GEMM
// instead, on their own stream, looped the same way. Either reports side_gemm_gbps: bytes read + written by
// the chunks that ran wholly inside the GEMM, over their span (events after every chunk), and
// side_alone_gbps, one chunk alone.
// --copy-mode picks the copy: memcpy (cudaMemcpyAsync device to device), batch
// (cudaMemcpyBatchAsync with the hint cudaMemcpyFlagPreferOverlapWithCompute) or h2d (pinned host
// to device over PCIe, HBM written only). On H200 with driver 580 only h2d runs on a copy engine:
// the device-to-device copies wait for SMs (--copy-check, power/README.md);
// --copy-check times one copy alone and beside a kernel that fills every SM, and exits.
// --mem-spin makes the looped side kernel hold its SMs without moving bytes (the control for
// where the GEMM's CTAs may go). --mem-sleep-ns N paces the stream kernel's threads (a pause after
// each 16-byte copy), a steady lower bandwidth on the same SMs.
// Board power from NVML (loaded at run time; absent, the fields read -1): the instantaneous field
// polled every ~1 ms while a repetition runs (power_w_mean / power_w_max) and the energy counter
// around it (energy_j).
//
//   nvcc -O2 -std=c++17 -arch=sm_90 clock_trace.cu -lcublasLt -o clock_trace   (includes ../cuda_tool.cuh)
//   ./clock_trace --shape 8192x8192x57344 --sms 132 --idle-ms 20 --spin-ms 2 --reps 8 >> out.jsonl
//
// One JSON line per repetition: the condition, the GEMM's time (events), the probe's clock
// summary over the GEMM (median, min, max, the first and the last 10% of it) and the samples
// (microseconds from the GEMM's start, MHz), decimated to at most 200.
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../cuda_tool.cuh"

// NVML through dlopen: the toolkit here ships no nvml.h or stub, and the driver's library is on
// the machine where this runs. Field 186 is NVML_FI_DEV_POWER_INSTANT (mW).
class Nvml {
public:
  Nvml() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (lib_ == nullptr) return;
    auto init = reinterpret_cast<int (*)()>(dlsym(lib_, "nvmlInit_v2"));
    auto handle = reinterpret_cast<int (*)(unsigned, void**)>(dlsym(lib_, "nvmlDeviceGetHandleByIndex_v2"));
    fields_ = reinterpret_cast<int (*)(void*, int, FieldValue*)>(dlsym(lib_, "nvmlDeviceGetFieldValues"));
    energy_ = reinterpret_cast<int (*)(void*, unsigned long long*)>(
        dlsym(lib_, "nvmlDeviceGetTotalEnergyConsumption"));
    clock_ = reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib_, "nvmlDeviceGetClockInfo"));
    reasons_ = reinterpret_cast<int (*)(void*, unsigned long long*)>(
        dlsym(lib_, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    ok_ = init != nullptr && handle != nullptr && fields_ != nullptr && energy_ != nullptr &&
          clock_ != nullptr && init() == 0 && handle(0, &dev_) == 0;
  }
  // Instantaneous board power, W (-1 if unavailable).
  double power_w() const {
    if (!ok_) return -1;
    FieldValue f{};
    f.field_id = 186;
    if (fields_(dev_, 1, &f) != 0 || f.nvml_return != 0) return -1;
    return static_cast<double>(f.value & 0xffffffffull) / 1e3;
  }
  double energy_j() const {
    unsigned long long mj = 0;
    return ok_ && energy_(dev_, &mj) == 0 ? static_cast<double>(mj) / 1e3 : -1;
  }
  double sm_mhz() const {
    unsigned mhz = 0;
    return ok_ && clock_(dev_, 1, &mhz) == 0 ? static_cast<double>(mhz) : -1.0;  // 1: NVML_CLOCK_SM
  }
  long long reasons() const {
    unsigned long long r = 0;
    return ok_ && reasons_ != nullptr && reasons_(dev_, &r) == 0 ? static_cast<long long>(r) : -1;
  }

private:
  struct FieldValue {  // nvmlFieldValue_t
    unsigned field_id, scope_id;
    long long timestamp, latency_us;
    int value_type, nvml_return;
    unsigned long long value;
  };
  void* lib_ = nullptr;
  void* dev_ = nullptr;
  bool ok_ = false;
  int (*fields_)(void*, int, FieldValue*) = nullptr;
  int (*energy_)(void*, unsigned long long*) = nullptr;
  int (*clock_)(void*, int, unsigned*) = nullptr;
  int (*reasons_)(void*, unsigned long long*) = nullptr;
};

// Polls the instantaneous board power every ~1 ms on a host thread between start() and stop().
class PowerPoller {
public:
  explicit PowerPoller(const Nvml& nvml) : nvml_(nvml) {}
  void start() {
    samples_.clear();
    run_ = true;
    thread_ = std::thread([this] {
      while (run_) {
        const double w = nvml_.power_w();
        if (w >= 0) samples_.push_back(w);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  void stop() {
    run_ = false;
    thread_.join();
  }
  double mean() const {
    if (samples_.empty()) return -1;
    double s = 0;
    for (double w : samples_) s += w;
    return s / static_cast<double>(samples_.size());
  }
  double max() const { return samples_.empty() ? -1 : *std::max_element(samples_.begin(), samples_.end()); }
  size_t count() const { return samples_.size(); }

private:
  const Nvml& nvml_;
  std::atomic<bool> run_{false};
  std::thread thread_;
  std::vector<double> samples_;
};

// `sleep_ns` > 0 paces every thread (a pause after each 16-byte copy): the kernel keeps all its
// threads resident on its SMs and moves fewer bytes per second, steadily rather than in bursts.
__global__ void stream_kernel(const uint4* src, uint4* dst, size_t count, unsigned sleep_ns) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    uint4 v = src[i];
    v.x += 1u;
    dst[i] = v;
    if (sleep_ns > 0) __nanosleep(sleep_ns);
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
  bool mem_loop = false;
  int mem_threads = 1024;
  double copy_gib = 0;
  std::string copy_mode = "memcpy";  // memcpy | batch | h2d
  bool copy_check = false;
  bool mem_spin = false;
  unsigned mem_sleep_ns = 0;
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
    else if (a == "--mem-loop")
      o.mem_loop = true;
    else if (a == "--mem-threads")
      o.mem_threads = std::atoi(next());
    else if (a == "--copy-gib")
      o.copy_gib = std::atof(next());
    else if (a == "--copy-mode") {
      o.copy_mode = next();
      if (o.copy_mode != "memcpy" && o.copy_mode != "batch" && o.copy_mode != "h2d") {
        std::fprintf(stderr, "clock_trace: --copy-mode memcpy|batch|h2d\n");
        std::exit(2);
      }
    } else if (a == "--copy-check")
      o.copy_check = true;
    else if (a == "--mem-spin")
      o.mem_spin = true;
    else if (a == "--mem-sleep-ns")
      o.mem_sleep_ns = static_cast<unsigned>(std::atoi(next()));
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
  if (o.mem_loop && (o.mem_sms <= 0 || o.mem_gib <= 0)) {
    std::fprintf(stderr, "clock_trace: --mem-loop needs --mem-sms and --mem-gib\n");
    std::exit(2);
  }
  if ((o.copy_check || o.copy_mode != "memcpy") && o.copy_gib <= 0) {
    std::fprintf(stderr, "clock_trace: --copy-check and --copy-mode need --copy-gib\n");
    std::exit(2);
  }
  if (o.mem_spin && !o.mem_loop) {
    std::fprintf(stderr, "clock_trace: --mem-spin needs --mem-loop\n");
    std::exit(2);
  }
  if (o.copy_gib > 0 && o.mem_sms > 0) {
    std::fprintf(stderr, "clock_trace: --copy-gib runs without the memory kernel\n");
    std::exit(2);
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
  size_t copy_bytes = 0;
  void *csrc = nullptr, *cdst = nullptr;
  if (o.copy_gib > 0) {
    copy_bytes = static_cast<size_t>(o.copy_gib * (1ull << 30)) / 16 * 16;
    if (o.copy_mode == "h2d") {
      CK(cudaMallocHost(&csrc, copy_bytes));
      std::fill_n(static_cast<unsigned char*>(csrc), copy_bytes, static_cast<unsigned char>(1));
    } else {
      CK(cudaMalloc(&csrc, copy_bytes));
      CK(cudaMemset(csrc, 1, copy_bytes));
    }
    CK(cudaMalloc(&cdst, copy_bytes));
  }
  Nvml nvml;
  PowerPoller poller(nvml);

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

  // Side traffic looped for the GEMM's duration: one chunk (a copy or a stream-kernel pass) is
  // timed alone, and enough are queued to outlast the GEMM by 60% + 1 ms.
  const bool side_copy = o.copy_gib > 0;
  const bool side_stream = o.mem_loop;
  const bool side = side_copy || side_stream;
  // HBM bytes per chunk, read + written on this GPU (a host-to-device copy only writes); a spin
  // chunk (--mem-spin: the side kernel holds its SMs for 200 us and moves nothing) none.
  const double side_chunk_bytes = side_copy
                                      ? (o.copy_mode == "h2d" ? 1.0 : 2.0) * static_cast<double>(copy_bytes)
                                  : o.mem_spin ? 0.0
                                               : 2.0 * 16.0 * static_cast<double>(mem_count);
  // --copy-mode batch asks the runtime to prefer a copy that overlaps compute, a hint it may ignore.
  cudaMemcpyAttributes batch_attr{};
  batch_attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  batch_attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
  auto copy_chunk = [&](cudaStream_t st) {
    if (o.copy_mode == "memcpy")
      CK(cudaMemcpyAsync(cdst, csrc, copy_bytes, cudaMemcpyDeviceToDevice, st));
    else if (o.copy_mode == "h2d")
      CK(cudaMemcpyAsync(cdst, csrc, copy_bytes, cudaMemcpyHostToDevice, st));
    else {
      void* dsts[1] = {cdst};
      const void* srcs[1] = {csrc};
      size_t sizes[1] = {copy_bytes};
      size_t attr_idx[1] = {0};
      CK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &batch_attr, attr_idx, 1, st));
    }
  };
  auto side_chunk = [&] {
    if (side_copy)
      copy_chunk(ms);
    else if (o.mem_spin) {
      spin_kernel<<<o.mem_sms, o.mem_threads, 0, ms>>>(200000ull);
      CK(cudaGetLastError());
    } else {
      stream_kernel<<<o.mem_sms, o.mem_threads, 0, ms>>>(msrc, mdst, mem_count, o.mem_sleep_ns);
      CK(cudaGetLastError());
    }
  };
  double side_alone_us = 0;
  int side_chunks = 0;
  if (side) {
    for (int i = 0; i < 2; ++i) side_chunk();
    CK(cudaEventRecord(m0, ms));
    side_chunk();
    CK(cudaEventRecord(m1, ms));
    CK(cudaEventSynchronize(m1));
    float ms_alone = 0;
    CK(cudaEventElapsedTime(&ms_alone, m0, m1));
    side_alone_us = ms_alone * 1e3;
    side_chunks = std::min(8192, static_cast<int>(std::ceil((warm_ms * 1.6e3 + 1000.0) / side_alone_us)) + 1);
  }
  if (o.copy_check) {
    // Does the copy need SMs? One copy timed alone, then again while a spin kernel holds every
    // thread slot of every SM (2 x 1024 threads a SM) for 20 ms: a copy engine finishes inside the
    // spin, a copy kernel waits for it.
    CK(cudaEventRecord(m0, ms));
    copy_chunk(ms);
    CK(cudaEventRecord(m1, ms));
    CK(cudaEventSynchronize(m1));
    float alone_ms = 0;
    CK(cudaEventElapsedTime(&alone_ms, m0, m1));
    CK(cudaEventRecord(e0, gs));
    spin_kernel<<<2 * dev_sms, 1024, 0, gs>>>(20000000ull);
    CK(cudaGetLastError());
    CK(cudaEventRecord(e1, gs));
    CK(cudaStreamWaitEvent(ms, e0, 0));
    CK(cudaEventRecord(m0, ms));
    copy_chunk(ms);
    CK(cudaEventRecord(m1, ms));
    CK(cudaDeviceSynchronize());
    float spin_ms = 0, copy_ms = 0, copy_start_ms = 0;
    CK(cudaEventElapsedTime(&spin_ms, e0, e1));
    CK(cudaEventElapsedTime(&copy_ms, m0, m1));
    CK(cudaEventElapsedTime(&copy_start_ms, e0, m0));
    std::printf(
        "{\"copy_check\":true,\"copy_mode\":\"%s\",\"copy_gib\":%g,\"copy_alone_us\":%.2f,\"spin_us\":%.2f,"
        "\"copy_beside_spin_us\":%.2f,\"copy_end_from_spin_start_us\":%.2f}\n",
        o.copy_mode.c_str(), o.copy_gib, alone_ms * 1e3, spin_ms * 1e3, copy_ms * 1e3,
        (copy_start_ms + copy_ms) * 1e3);
    return 0;
  }
  std::vector<cudaEvent_t> side_ev(side ? side_chunks + 1 : 0);
  for (auto& ev : side_ev) CK(cudaEventCreate(&ev));

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
    const double energy0 = nvml.energy_j();
    const auto wall0 = std::chrono::steady_clock::now();
    poller.start();
    CK(cudaMemsetAsync(d_count, 0, sizeof(int), ps));
    if (o.probe) {
      clock_probe_kernel<<<1, 32, 0, ps>>>(d_samples, max_samples, static_cast<unsigned long long>(period_ns),
                                           static_cast<unsigned long long>(window_ns), d_count);
      CK(cudaGetLastError());
    }
    if (side) {
      CK(cudaEventRecord(side_ev[0], ms));
      for (int i = 0; i < side_chunks; ++i) {
        side_chunk();
        CK(cudaEventRecord(side_ev[i + 1], ms));
      }
    } else if (o.mem_sms > 0) {
      CK(cudaEventRecord(m0, ms));
      stream_kernel<<<o.mem_sms, o.mem_threads, 0, ms>>>(msrc, mdst, mem_count, o.mem_sleep_ns);
      CK(cudaGetLastError());
      CK(cudaEventRecord(m1, ms));
    }
    // The GEMM's events come after the side loop's first, so its times from there are >= 0.
    if (side) CK(cudaStreamWaitEvent(gs, side_ev[0], 0));
    stamp_kernel<<<1, 32, 0, gs>>>(d_stamps);
    CK(cudaEventRecord(e0, gs));
    gemm();
    CK(cudaEventRecord(e1, gs));
    stamp_kernel<<<1, 32, 0, gs>>>(d_stamps + 1);
    CK(cudaDeviceSynchronize());
    poller.stop();
    const double rep_wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall0).count();
    const double energy_j = energy0 >= 0 ? nvml.energy_j() - energy0 : -1;
    const double power_after_w = nvml.power_w();
    float gemm_ms = 0;
    CK(cudaEventElapsedTime(&gemm_ms, e0, e1));
    float mem_ms = 0;  // the memory kernel's own time (0 without one)
    if (o.mem_sms > 0 && !side) CK(cudaEventElapsedTime(&mem_ms, m0, m1));
    // Side chunks wholly inside the GEMM: [start, end] in ms from the GEMM's start.
    int inside = 0;
    double in_first = 0, in_last = 0, side_end_after_gemm_us = 0, side_all_gbps = 0;
    if (side) {
      float g0 = 0;
      CK(cudaEventElapsedTime(&g0, side_ev[0], e0));
      std::vector<float> t(side_ev.size());  // ms from the GEMM's start
      for (size_t i = 0; i < side_ev.size(); ++i) {
        CK(cudaEventElapsedTime(&t[i], side_ev[0], side_ev[i]));
        t[i] -= g0;
      }
      for (int i = 0; i < side_chunks; ++i) {
        if (t[i] >= 0 && t[i + 1] <= gemm_ms) {
          if (inside == 0) in_first = t[i];
          in_last = t[i + 1];
          ++inside;
        }
      }
      side_end_after_gemm_us = (t.back() - gemm_ms) * 1e3;
      side_all_gbps = side_chunk_bytes * side_chunks / ((t.back() - t.front()) * 1e6);
    }
    const double side_gemm_gbps =
        inside > 0 && in_last > in_first ? side_chunk_bytes * inside / ((in_last - in_first) * 1e6) : 0;
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
        "\"side\":\"%s\",\"copy_mode\":\"%s\",\"mem_threads\":%d,\"mem_sleep_ns\":%u,\"copy_gib\":%g,\"side_"
        "chunk_gib\":%.4g,"
        "\"side_chunks\":%d,"
        "\"side_alone_gbps\":%.1f,\"side_chunks_in_gemm\":%d,\"side_gemm_gbps\":%.1f,\"side_all_gbps\":%.1f,"
        "\"side_end_after_gemm_us\":%.1f,\"power_w_mean\":%.1f,\"power_w_max\":%.1f,\"power_samples\":%zu,"
        "\"power_after_w\":%.1f,\"energy_j\":%.3f,\"rep_wall_ms\":%.2f,\"nvml_sm_mhz_after\":%.0f,"
        "\"reasons_after\":%lld,"
        "\"mhz_median\":%.1f,\"mhz_min\":%.1f,\"mhz_max\":%.1f,\"mhz_first10\":%.1f,\"mhz_last10\":%.1f,"
        "\"samples\":[",
        o.m, o.n, o.k, sms, dev_sms, o.idle_ms, o.spin_ms, o.mem_sms, o.mem_gib, o.probe ? "true" : "false",
        o.random ? "random" : "constant", algo_id, tile_id, stages_id, cluster_id, rep, gemm_ms * 1e3,
        mem_ms * 1e3, static_cast<double>(st[1] - st[0]) / 1e3, v.size(),
        side_copy
            ? "copy"
            : (o.mem_spin ? "spin" : (side_stream ? "stream" : (o.mem_sms > 0 ? "stream_once" : "none"))),
        side_copy ? o.copy_mode.c_str() : "", o.mem_threads, o.mem_sleep_ns, o.copy_gib,
        side ? side_chunk_bytes / (1ull << 30) : 0.0, side_chunks,
        side ? side_chunk_bytes / (side_alone_us * 1e3) : 0.0, inside, side_gemm_gbps, side_all_gbps,
        side_end_after_gemm_us, poller.mean(), poller.max(), poller.count(), power_after_w, energy_j,
        rep_wall_ms, nvml.sm_mhz(), nvml.reasons(), median(v),
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
