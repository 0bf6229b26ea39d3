#include "hardware/hip/gemm_launch_probe.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "hardware/hip/check.h"
#include "hardware/hip/device_buffer.h"
#include "hardware/hip/kernels.h"
#include "hardware/hip/stats.h"

namespace c3sim::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The neighbour kernel spins this long: past the end of every probed GEMM's call and start.
constexpr std::uint64_t kNeighbourSpinNs = 300'000;
constexpr int kWarmups = 5;

nlohmann::json summary_json(const std::vector<double>& v) {
  const Summary s = summarize(v);
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"n", v.size()}};
}

struct Sample {
  std::vector<double> device_us;
  std::vector<double> host_call_us;
};

Sample time_call(DeviceSet& d, const std::function<void(hipStream_t)>& call, bool held, int reps,
                 unsigned long long* stamp) {
  C3_HIP(hipSetDevice(0));
  hipStream_t a = d.stream(0, "probe_a");
  hipStream_t b = d.stream(0, "gemm");
  hipEvent_t e0 = d.event(0, 1);
  hipEvent_t e1 = d.event(0, 2);
  StartHold& hold = d.start_hold();
  // Untimed and unheld first: a call's first launch may load its kernel, which with CUDA's lazy
  // loading waits for the context to idle, i.e. for a spinning hold that waits for this host.
  call(b);
  C3_HIP(hipStreamSynchronize(b));
  Sample out;
  for (int i = 0; i < kWarmups + reps; ++i) {
    *d.timeout_flag() = 0;
    launch_stamp(a, stamp, kNeighbourSpinNs);
    double call_us = 0;
    {
      const ReleaseOnExit release(hold);
      if (held) {
        hold.arm();
        hold.hold(0, b);
      }
      C3_HIP(hipEventRecord(e0, b));
      const Clock::time_point t0 = Clock::now();
      call(b);
      call_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      C3_HIP(hipEventRecord(e1, b));
    }
    C3_HIP(hipStreamSynchronize(b));
    C3_HIP(hipStreamSynchronize(a));
    if (*d.timeout_flag() != 0) throw DeviceError("c3bench: the GEMM launch probe's start hold timed out");
    float ms = 0;
    C3_HIP(hipEventElapsedTime(&ms, e0, e1));
    if (i < kWarmups) continue;
    out.device_us.push_back(1000.0 * static_cast<double>(ms));
    out.host_call_us.push_back(call_us);
  }
  return out;
}

}  // namespace

nlohmann::json probe_gemm_launch(Bench& bench, const std::vector<wl::Gemm>& gemms, int reps) {
  DeviceSet& d = bench.devices();
  const DeviceBuffer stamps(0, sizeof(unsigned long long));
  auto* stamp = static_cast<unsigned long long*>(stamps.get());
  nlohmann::json out = nlohmann::json::array();
  for (const wl::Gemm& g : gemms) {
    bench.prepare_gemm(g);
    BlasGemm& gemm = bench.gemm();
    gemm.plan(0, 0);
    std::vector<std::pair<std::string, std::function<void(hipStream_t)>>> calls{
        {blas_library(), [&gemm](hipStream_t s) { gemm.enqueue(0, s, 0); }}};
#if defined(C3BENCH_NVIDIA)
    calls.emplace_back("per_call", [&gemm](hipStream_t s) { gemm.enqueue_per_call(0, s, 0); });
#endif
    for (const auto& [name, call] : calls) {
      const Sample held = time_call(d, call, true, reps, stamp);
      const Sample unheld = time_call(d, call, false, reps, stamp);
      const double gap = summarize(unheld.device_us).median - summarize(held.device_us).median;
      out.push_back({{"gemm", g.shape_string()},
                     {"m", g.m},
                     {"n", g.n},
                     {"k", g.k},
                     {"call", name},
                     {"held_us", summary_json(held.device_us)},
                     {"unheld_us", summary_json(unheld.device_us)},
                     {"gap_us", gap},
                     {"host_call_us", summary_json(unheld.host_call_us)},
                     {"host_call_held_us", summary_json(held.host_call_us)}});
    }
  }
  return out;
}

}  // namespace c3sim::bench
