#include "hardware/hip/launch_probe.h"

#include <chrono>
#include <cstdint>
#include <vector>

#include "hardware/hip/check.h"
#include "hardware/hip/copy_submit.h"
#include "hardware/hip/device_buffer.h"
#include "hardware/hip/kernels.h"
#include "hardware/hip/stats.h"

namespace c3sim::bench {
namespace {

using Clock = std::chrono::steady_clock;

double us_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

nlohmann::json summary_json(const std::vector<double>& v) {
  const Summary s = summarize(v);
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"n", v.size()}};
}

// Long enough that the first operation is still running when the second launch arrives, so the
// gap measured is the launch path, not a wait for resources.
constexpr std::uint64_t kFirstKernelSpinNs = 200'000;
constexpr std::size_t kSmallCopy = 4096;
constexpr std::size_t kLongCopy = 256ull << 20;  // ~100 us locally: in flight when the kernel arrives
constexpr int kWarmups = 5;

// Issues `first_op` on `first`, then `second_op` on `second`, back to back from this thread (the
// launch order of a program), and returns once both streams are idle.
template <typename First, typename Second>
void ordered_pair(hipStream_t first, hipStream_t second, First first_op, Second second_op) {
  C3_HIP(hipSetDevice(0));
  first_op();
  second_op();
  C3_HIP(hipStreamSynchronize(first));
  C3_HIP(hipStreamSynchronize(second));
}

}  // namespace

nlohmann::json probe_launch_latencies(DeviceSet& d, int reps) {
  nlohmann::json out;
  const int peer = d.count() > 1 ? 1 : 0;
  C3_HIP(hipSetDevice(0));
  hipStream_t a = d.stream(0, "probe_a");
  hipStream_t b = d.stream(0, "probe_b");
  const DeviceBuffer stamps(0, 2 * sizeof(unsigned long long));
  auto* stamp = static_cast<unsigned long long*>(stamps.get());
  const DeviceBuffer local_src(0, kLongCopy);
  const DeviceBuffer local_dst(0, kLongCopy);
  const DeviceBuffer peer_dst(peer, kSmallCopy * 64);
  hipEvent_t ea = d.event(0, 1);
  hipEvent_t eb = d.event(0, 2);

  // Kernel after kernel: device clock stamps of both starts.
  std::vector<double> kk;
  for (int i = 0; i < kWarmups + reps; ++i) {
    ordered_pair(
        a, b, [&] { launch_stamp(a, stamp, kFirstKernelSpinNs); }, [&] { launch_stamp(b, stamp + 1, 0); });
    unsigned long long t[2] = {0, 0};
    C3_HIP(hipMemcpy(t, stamp, sizeof t, hipMemcpyDeviceToHost));
    if (i >= kWarmups) kk.push_back(static_cast<double>(static_cast<long long>(t[1] - t[0])) * 1e-3);
  }
  out["kernel_after_kernel_us"] = summary_json(kk);

  // Copy after kernel / kernel after copy: events recorded just before each operation on its stream
  // (an event on an idle stream completes when the stream reaches it, i.e. when the work may start).
  std::vector<double> kc;
  std::vector<double> ck;
  for (int i = 0; i < kWarmups + reps; ++i) {
    ordered_pair(
        a, b,
        [&] {
          C3_HIP(hipEventRecord(ea, a));
          launch_stamp(a, stamp, kFirstKernelSpinNs);
        },
        [&] {
          C3_HIP(hipEventRecord(eb, b));
          C3_HIP(hipMemcpyAsync(peer_dst.get(), local_src.get(), kSmallCopy, hipMemcpyDefault, b));
        });
    float ms = 0;
    C3_HIP(hipEventElapsedTime(&ms, ea, eb));
    if (i >= kWarmups) kc.push_back(1000.0 * static_cast<double>(ms));
    ordered_pair(
        a, b,
        [&] {
          C3_HIP(hipEventRecord(ea, a));
          C3_HIP(hipMemcpyAsync(local_dst.get(), local_src.get(), kLongCopy, hipMemcpyDefault, a));
        },
        [&] {
          C3_HIP(hipEventRecord(eb, b));
          launch_stamp(b, stamp + 1, 0);
        });
    C3_HIP(hipEventElapsedTime(&ms, ea, eb));
    if (i >= kWarmups) ck.push_back(1000.0 * static_cast<double>(ms));
  }
  out["copy_after_kernel_us"] = summary_json(kc);
  out["kernel_after_copy_us"] = summary_json(ck);

  // One small copy into pinned host memory: host-seen first byte, then host-seen completion.
  void* host = nullptr;
  C3_HIP(hipHostMalloc(&host, 64, hipHostMallocPortable));
  volatile auto* landing = static_cast<volatile std::uint32_t*>(host);
  const DeviceBuffer word(0, 64);
  std::vector<double> submit;
  std::vector<double> first;
  std::vector<double> last;
  for (int i = 0; i < kWarmups + reps; ++i) {
    const auto value = static_cast<std::uint32_t>(0x1000 + i);
    C3_HIP(hipMemcpy(word.get(), &value, sizeof value, hipMemcpyHostToDevice));
    *landing = 0;
    const Clock::time_point t0 = Clock::now();
    C3_HIP(hipMemcpyAsync(host, word.get(), sizeof value, hipMemcpyDeviceToHost, a));
    const Clock::time_point t1 = Clock::now();
    C3_HIP(hipEventRecord(ea, a));
    while (*landing != value) {}
    const Clock::time_point t2 = Clock::now();
    C3_HIP(hipEventSynchronize(ea));
    const Clock::time_point t3 = Clock::now();
    if (i < kWarmups) continue;
    submit.push_back(us_between(t0, t1));
    first.push_back(us_between(t0, t2));
    last.push_back(us_between(t2, t3));
  }
  C3_HIP(hipHostFree(host));
  out["copy_submit_us"] = summary_json(submit);
  out["copy_submit_to_first_byte_us"] = summary_json(first);
  out["copy_last_byte_to_host_us"] = summary_json(last);

  // Peer copies, one call each or one batched call for N.
  std::vector<double> roundtrip;
  nlohmann::json batched = nlohmann::json::array();
  for (int n : {1, 2, 4, 8, 16, 32, 64}) {
    std::vector<CopyPiece> pieces;
    for (int c = 0; c < n; ++c) {
      pieces.push_back({static_cast<std::uint8_t*>(peer_dst.get()) + c * kSmallCopy,
                        static_cast<const std::uint8_t*>(local_src.get()) + c * kSmallCopy, kSmallCopy});
    }
    for (bool batch : {false, true}) {
      if (batch && !kBatchedCopies) continue;
      std::vector<double> sub;
      std::vector<double> all;
      for (int i = 0; i < kWarmups + reps; ++i) {
        const Clock::time_point t0 = Clock::now();
        submit_copies(a, pieces, batch);
        const Clock::time_point t1 = Clock::now();
        C3_HIP(hipEventRecord(ea, a));
        C3_HIP(hipEventSynchronize(ea));
        const Clock::time_point t2 = Clock::now();
        if (i < kWarmups) continue;
        sub.push_back(us_between(t0, t1));
        all.push_back(us_between(t0, t2));
      }
      if (n == 1 && !batch) roundtrip = all;
      batched.push_back({{"copies", n},
                         {"bytes_each", kSmallCopy},
                         {"batched", batch},
                         {"submit_us", summary_json(sub)},
                         {"roundtrip_us", summary_json(all)}});
    }
  }
  out["peer_copy_roundtrip_us"] = summary_json(roundtrip);
  out["peer_copies"] = batched;
  out["reps"] = reps;
  out["what"] =
      "second launch's start after the first's (one host thread launches them back to back); copy = "
      "4 KiB to GPU " +
      std::to_string(peer);
  return out;
}

}  // namespace c3sim::bench
