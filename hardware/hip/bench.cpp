#include "hardware/hip/bench.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "hardware/hip/check.h"
#include "hardware/hip/kernels.h"

namespace c3sim::bench {

namespace {
// The untimed all-reduce of Conditioning::warm_collective.
constexpr std::size_t kWarmBytes = std::size_t{1} << 20;
}  // namespace

std::string CollConfig::describe() const {
  switch (impl) {
    case wl::CollectiveImpl::cu: return max_ctas > 0 ? "cu,max_ctas=" + std::to_string(max_ctas) : "cu";
    case wl::CollectiveImpl::dma: return "dma," + dma.describe();
    case wl::CollectiveImpl::vendor_zero_cta: return "vendor_zero_cta";
    case wl::CollectiveImpl::dma_hybrid: return "dma_hybrid";
  }
  return "?";
}

std::string Conditioning::describe() const {
  char buf[96];
  std::snprintf(buf, sizeof buf, "idle_ms=%g,spin_ms=%g,order=%s%s", idle_ms, spin_ms,
                rotate ? "rotate" : "fixed", warm_collective ? ",warm_collective" : "");
  return buf;
}

Bench::Bench()
    : clock_probe_(devices_),
      partitions_(devices_.highest_priority()),
      gemm_(devices_.count()),
      vendor_(devices_.count()),
      dma_(devices_),
      plain_(devices_.count(), false),
      symmetric_(devices_.count(), true) {}

void Bench::prepare_gemm(const wl::Gemm& gemm) { gemm_.prepare(gemm); }

void Bench::prepare_collective(const CollShape& shape) {
  shape_ = shape;
  ++seed_;  // fresh data for every collective shape
  plain_.prepare(shape, seed_);
  symmetric_.prepare(shape, seed_);
}

std::uint64_t Bench::verify(const CollConfig& config) {
  CollBuffers& buffers = config.impl == wl::CollectiveImpl::vendor_zero_cta ? symmetric_ : plain_;
  buffers.poison_recv(shape_);
  run_untimed(devices_, {coll_part(config)});
  return buffers.count_mismatches(shape_, seed_);
}

Part Bench::gemm_part(int sm_limit) {
  std::vector<StreamRef> streams;
  int target = 0;
  for (int g = 0; g < gpus(); ++g) {
    if (sm_limit <= 0 || sm_limit >= units()) {
      streams.push_back({g, devices_.stream(g, "gemm")});
    } else {
      const SmPartition& p = partitions_.get(g, sm_limit, units());
      streams.push_back({g, p.group_stream(false)});
      target = p.group_sms();
    }
  }
  for (const StreamRef& s : streams) gemm_.plan(s.gpu, target);  // the algorithm, chosen before timing
  return {"gemm", streams, [this, streams, target] {
            for (const StreamRef& s : streams) gemm_.enqueue(s.gpu, s.stream, target);
          }};
}

Part Bench::gemm_part_beside(int group_units, bool sm_target) {
  std::vector<StreamRef> streams;
  int target = 0;
  for (int g = 0; g < gpus(); ++g) {
    const SmPartition& p = partitions_.get(g, group_units, units());
    streams.push_back({g, p.rest_stream()});
    target = sm_target ? p.rest_sms() : 0;
  }
  for (const StreamRef& s : streams) gemm_.plan(s.gpu, target);  // the algorithm, chosen before timing
  return {"gemm", streams, [this, streams, target] {
            for (const StreamRef& s : streams) gemm_.enqueue(s.gpu, s.stream, target);
          }};
}

Part Bench::coll_part(const CollConfig& config, bool high_priority) {
  switch (config.impl) {
    case wl::CollectiveImpl::cu: {
      auto streams = high_priority ? devices_.streams("coll_high", devices_.highest_priority())
                                   : devices_.streams("coll");
      const int cap = config.max_ctas;
      return {"coll", streams, [this, streams, cap] { vendor_.enqueue(shape_, plain_, streams, cap); }};
    }
    case wl::CollectiveImpl::vendor_zero_cta: {
      auto streams = devices_.streams("coll_zero");
      return {"coll", streams, [this, streams] { vendor_.enqueue_zero_cta(shape_, symmetric_, streams); }};
    }
    case wl::CollectiveImpl::dma: {
      const DmaOptions options = config.dma;
      return {"coll", dma_.streams(options), [this, options] { dma_.enqueue(shape_, plain_, options); }};
    }
    case wl::CollectiveImpl::dma_hybrid: break;  // a simulator what-if (engines that need CUs to reduce)
  }
  throw DeviceError("c3bench: unknown collective implementation");
}

Part Bench::coll_part_in(int group_units, bool high_priority) {
  std::vector<StreamRef> streams;
  int cap = 0;
  for (int g = 0; g < gpus(); ++g) {
    const SmPartition& p = partitions_.get(g, group_units, units());
    streams.push_back({g, p.group_stream(high_priority)});
    cap = p.group_sms();
  }
  return {"coll", streams, [this, streams, cap] { vendor_.enqueue(shape_, plain_, streams, cap); }};
}

std::pair<int, int> Bench::partition_units(int group_units) {
  const SmPartition& p = partitions_.get(0, group_units, units());
  return {p.group_sms(), p.rest_sms()};
}

void Bench::condition() {
  if (conditioning_.idle_ms > 0) {
    devices_.synchronize_all();
    // GPUs idle, host busy: a host thread that sleeps 20 ms wakes from a deep CPU idle state
    // slowly, and the launches that follow (NCCL's kernel on each GPU in turn, the DMA
    // collective's copy submissions) would pay that inside the timed trial (2 x H200: a 64 MiB
    // all-gather 180 -> 260-400 us after a sleep, hardware/measurements/README.md).
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double, std::milli>(conditioning_.idle_ms));
    while (std::chrono::steady_clock::now() < until) {}
  }
  if (conditioning_.warm_collective && gpus() > 1 && shape_.block_bytes() >= kWarmBytes) {
    // Fits any prepared collective's buffers: its send and receive buffers hold a block or more.
    const CollShape warm{wl::CollectiveOp::all_reduce, kWarmBytes, shape_.ranks};
    vendor_.enqueue(warm, plain_, devices_.streams("condition"), 0);
  }
  if (conditioning_.spin_ms > 0) {
    const auto ns = static_cast<std::uint64_t>(std::llround(conditioning_.spin_ms * 1e6));
    for (int g = 0; g < gpus(); ++g) {
      C3_HIP(hipSetDevice(g));
      launch_spin(devices_.stream(g, "condition"), devices_.compute_units(g), ns);
    }
  }
  devices_.synchronize_all();
}

std::vector<MeasuredTimes> Bench::measure(const std::vector<Measurement>& list, int warmups, int trials) {
  const std::size_t n = list.size();
  std::vector<MeasuredTimes> out(n);
  auto timed = [&](std::size_t i) {
    condition();
    TrialClocks c;
    c.before = slowest_gpu(clock_probe_.read());
    TrialTimes t = run_timed(devices_, list[i].parts);
    c.after = slowest_gpu(clock_probe_.read());
    return std::pair{t, c};
  };
  // Round r's k-th trial: measurement (k + r) mod n when rotating, k otherwise.
  auto at = [&](int round, std::size_t k) {
    return conditioning_.rotate ? (k + static_cast<std::size_t>(round)) % n : k;
  };
  for (const Measurement& m : list) run_untimed(devices_, m.parts);
  for (int w = 0; w < warmups; ++w) {
    for (std::size_t k = 0; k < n; ++k) (void)timed(at(w, k));
  }
  std::vector<std::vector<TrialTimes>> samples(n);
  for (int t = 0; t < trials; ++t) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = at(warmups + t, k);
      auto [times, clocks] = timed(i);
      samples[i].push_back(times);
      if (clock_probe_.available()) out[i].clocks.push_back(clocks);
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> totals;
    std::vector<std::vector<double>> parts(list[i].parts.size());
    for (const TrialTimes& s : samples[i]) {
      totals.push_back(s.total_us);
      for (std::size_t p = 0; p < parts.size(); ++p) parts[p].push_back(s.part_us[p]);
    }
    out[i].total = summarize(totals);
    out[i].total_us = totals;
    for (auto& p : parts) out[i].parts.push_back(summarize(p));
    out[i].trials = trials;
  }
  return out;
}

}  // namespace c3sim::bench
