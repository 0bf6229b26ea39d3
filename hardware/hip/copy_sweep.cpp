#include "hardware/hip/copy_sweep.h"

#include <algorithm>
#include <string>

#include "hardware/hip/check.h"
#include "hardware/hip/copy_submit.h"
#include "hardware/hip/device_buffer.h"
#include "hardware/hip/kernels.h"

namespace c3sim::bench {
namespace {

constexpr std::uint32_t kPoison = 0xDEADBEEFu;

struct CopyConfig {
  std::string pattern;
  int streams = 1;
  int chunks = 1;
  bool batched = false;
};

using Piece = CopyPiece;

// Per GPU: a source block (filled with hash(seed, gpu, i)) and a destination with one block slot
// per GPU (slot s receives GPU s's block), like an all-gather's receive buffer.
class CopyBuffers {
public:
  CopyBuffers(int gpus, std::size_t block) : gpus_(gpus), block_(block) {
    for (int g = 0; g < gpus; ++g) {
      src_.emplace_back(g, block);
      dst_.emplace_back(g, block * static_cast<std::size_t>(gpus));
      mismatches_.emplace_back(g, sizeof(unsigned long long));
    }
  }
  void fill(std::size_t bytes, std::uint64_t seed) {
    for (int g = 0; g < gpus_; ++g) {
      C3_HIP(hipSetDevice(g));
      launch_fill_words(nullptr, static_cast<std::uint32_t*>(src_[g].get()), bytes / 4, seed, g, 0);
      launch_fill_constant(nullptr, static_cast<std::uint32_t*>(dst_[g].get()),
                           block_ * static_cast<std::size_t>(gpus_) / 4, kPoison);
      C3_HIP(hipDeviceSynchronize());
    }
  }
  [[nodiscard]] void* slot(int gpu, int source) const {
    return static_cast<std::uint8_t*>(dst_[gpu].get()) + block_ * static_cast<std::size_t>(source);
  }
  [[nodiscard]] const void* src(int gpu) const { return src_[gpu].get(); }
  // Wrong words in destination slot `source` of `gpu` (bytes from GPU `source`).
  std::uint64_t wrong(int gpu, int source, std::size_t bytes, std::uint64_t seed) {
    C3_HIP(hipSetDevice(gpu));
    C3_HIP(hipMemset(mismatches_[gpu].get(), 0, sizeof(unsigned long long)));
    launch_verify_range(nullptr, static_cast<const std::uint32_t*>(slot(gpu, source)), bytes / 4, seed,
                        source, 0, static_cast<unsigned long long*>(mismatches_[gpu].get()));
    unsigned long long bad = 0;
    C3_HIP(hipMemcpy(&bad, mismatches_[gpu].get(), sizeof bad, hipMemcpyDeviceToHost));
    return bad;
  }

private:
  int gpus_;
  std::size_t block_;
  std::vector<DeviceBuffer> src_;
  std::vector<DeviceBuffer> dst_;
  std::vector<DeviceBuffer> mismatches_;
};

struct Transfer {
  int issuer = 0;  // GPU whose streams carry it
  int dst_gpu = 0;
  int src_gpu = 0;
};

std::vector<Transfer> transfers(const std::string& pattern, int gpus) {
  std::vector<Transfer> out;
  if (pattern == "local") return {{0, 0, 0}};
  for (int p = 1; p < gpus; ++p) {
    if (pattern == "push") out.push_back({0, p, 0});
    if (pattern == "pull") out.push_back({0, 0, p});
  }
  if (pattern == "bidirectional") {
    for (int g = 0; g < gpus; ++g) {
      for (int step = 1; step < gpus; ++step) out.push_back({g, (g + step) % gpus, g});
    }
  }
  return out;
}

// The Part that issues every transfer of `config` at `bytes` per transfer: each transfer cut into
// chunks, the pieces of transfer t spread round-robin over its `streams` streams.
Part copy_part(DeviceSet& d, const CopyBuffers& buf, const CopyConfig& config, std::size_t bytes) {
  const std::vector<Transfer> list = transfers(config.pattern, d.count());
  std::vector<StreamRef> streams;
  std::vector<std::vector<Piece>> queues;
  for (std::size_t t = 0; t < list.size(); ++t) {
    for (int s = 0; s < config.streams; ++s) {
      streams.push_back({list[t].issuer,
                         d.stream(list[t].issuer, "copy_t" + std::to_string(t) + "_s" + std::to_string(s))});
      queues.emplace_back();
    }
    const auto chunks = static_cast<std::size_t>(config.chunks);
    for (std::size_t piece = 0; piece < chunks; ++piece) {
      const std::size_t begin = bytes * piece / chunks / 16 * 16;
      const std::size_t end = piece + 1 == chunks ? bytes : bytes * (piece + 1) / chunks / 16 * 16;
      if (end <= begin) continue;
      queues[t * static_cast<std::size_t>(config.streams) + piece % static_cast<std::size_t>(config.streams)]
          .push_back({static_cast<std::uint8_t*>(buf.slot(list[t].dst_gpu, list[t].src_gpu)) + begin,
                      static_cast<const std::uint8_t*>(buf.src(list[t].src_gpu)) + begin, end - begin});
    }
  }
  const bool batched = config.batched;
  return {"copy", streams, [streams, queues, batched] {
            for (std::size_t i = 0; i < streams.size(); ++i) {
              C3_HIP(hipSetDevice(streams[i].gpu));
              submit_copies(streams[i].stream, queues[i], batched);
            }
          }};
}

std::uint64_t verify(DeviceSet& d, CopyBuffers& buf, const CopyConfig& config, std::size_t bytes,
                     std::uint64_t seed) {
  buf.fill(bytes, seed);
  run_untimed(d, {copy_part(d, buf, config, bytes)});
  std::uint64_t bad = 0;
  for (const Transfer& t : transfers(config.pattern, d.count()))
    bad += buf.wrong(t.dst_gpu, t.src_gpu, bytes, seed);
  return bad;
}

}  // namespace

std::vector<wl::Record> sweep_copy_engine(Bench& bench, const CopySweepRequest& q) {
  DeviceSet& d = bench.devices();
  const int gpus = d.count();
  std::int64_t largest = 0;
  for (std::int64_t s : q.sizes) largest = std::max(largest, s);
  for (std::int64_t s : q.shape_sizes) largest = std::max(largest, s);
  CopyBuffers buf(gpus, static_cast<std::size_t>(largest));
  std::vector<std::string> patterns{"local"};
  if (gpus > 1) patterns.insert(patterns.end(), {"push", "pull", "bidirectional"});
  std::vector<bool> submissions{false};
  if (kBatchedCopies) submissions.push_back(true);

  // (bytes, config) in measurement order.
  std::vector<std::pair<std::size_t, CopyConfig>> plan;
  for (std::int64_t s : q.sizes) {
    for (const std::string& p : patterns) {
      for (bool b : submissions) plan.push_back({static_cast<std::size_t>(s), {p, 1, 1, b}});
    }
  }
  for (std::int64_t s : q.shape_sizes) {
    for (const std::string& p : patterns) {
      if (p == "pull" || p == "local") continue;  // push and bidirectional are what collectives issue
      for (int streams : q.streams) {
        for (int chunks : q.chunks) {
          for (bool b : submissions) {
            if (streams == 1 && chunks == 1) continue;  // already in the size sweep
            plan.push_back({static_cast<std::size_t>(s), {p, streams, chunks, b}});
          }
        }
      }
    }
  }

  std::vector<wl::Record> out;
  std::uint64_t seed = 0xC0B1ull;
  for (const auto& [bytes, config] : plan) {
    ++seed;
    const std::uint64_t wrong = verify(d, buf, config, bytes, seed);
    if (wrong != 0) {
      throw DeviceError("c3bench sweep: copy pattern " + config.pattern + " of " + std::to_string(bytes) +
                        " bytes left " + std::to_string(wrong) + " wrong words");
    }
    std::vector<Measurement> one(1);
    one[0].parts.push_back(copy_part(d, buf, config, bytes));
    const MeasuredTimes t = bench.measure(one, q.warmups, q.trials)[0];
    const std::vector<Transfer> list = transfers(config.pattern, gpus);
    wl::IsoCopyRecord r;
    r.pattern = config.pattern;
    r.bytes = static_cast<std::int64_t>(bytes);
    r.gpus = config.pattern == "bidirectional" ? gpus : 1;
    r.peers = config.pattern == "local" ? 0 : gpus - 1;
    r.streams = config.streams;
    r.chunks = config.chunks;
    r.batched = config.batched;
    r.time_us = t.total.median;
    r.spread_us = t.total.spread();
    r.trials = t.trials;
    r.extra["sweep"] = "copy_engine";
    r.extra["verified_wrong_words"] = wrong;
    r.extra["min_us"] = t.total.min;
    r.extra["max_us"] = t.total.max;
    // Bytes delivered by each issuing GPU over time: the figure a per-GPU copy model predicts.
    const double per_gpu = static_cast<double>(bytes) * static_cast<double>(list.size()) / r.gpus;
    r.extra["per_gpu_gbps"] = per_gpu / (t.total.median * 1e3);
    out.emplace_back(std::move(r));
  }
  return out;
}

}  // namespace c3sim::bench
