#include "hardware/hip/fused_a2a.h"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <string>

#include "hardware/hip/check.h"
#include "hardware/hip/coll_buffers.h"
#include "hardware/hip/device_buffer.h"
#include "hardware/hip/fused_a2a_kernels.h"
#include "hardware/hip/kernels.h"
#include "hardware/hip/records.h"

namespace c3sim::bench {
namespace {

constexpr std::uint64_t kSeed = 0xE3BEDull;
// A flag that never comes (a lost peer store) fails the trial instead of hanging the GPU.
constexpr std::uint64_t kWaitTimeoutNs = 2'000'000'000ull;
constexpr std::uint32_t kPoison = 0xFFFFFFFFu;  // a NaN: no pooled sum of finite values is this

std::string size_text(const FusedA2aSize& s) {
  return std::to_string(s.batch) + "x" + std::to_string(s.tables) + "x" + std::to_string(s.dim) + "x" +
         std::to_string(s.pooling);
}

std::int64_t output_bytes(const FusedA2aSize& s) {
  return static_cast<std::int64_t>(s.batch) * s.tables * s.dim * static_cast<std::int64_t>(sizeof(float));
}

// Everything one size needs on every GPU: tables, indices, the fused step's receive buffers and
// flags (sized for the smallest chunk), and where the plain and the fused lookup store.
class FusedA2aState {
public:
  FusedA2aState(Bench& bench, const FusedA2aSize& size, const FusedA2aRequest& q)
      : bench_(bench), size_(size), rows_(q.rows), bulk_(bench.collective_buffers()) {
    const int gpus = bench.gpus();
    shape_ = {wl::CollectiveOp::all_to_all, static_cast<std::size_t>(output_bytes(size)), gpus};
    // Bench's own collective: its trial conditioning warms the library on these buffers (a
    // 1 MiB all-reduce after the idle gap), as for every other collective c3bench times.
    bench.prepare_collective(shape_);
    const int smallest = *std::min_element(q.chunks.begin(), q.chunks.end());
    flag_count_ =
        static_cast<std::size_t>(gpus) * static_cast<std::size_t>(shape(0, smallest).chunks_per_rank());
    streams_ = bench.devices().streams("fused");
    for (int g = 0; g < gpus; ++g) {
      const std::size_t table_values = static_cast<std::size_t>(size.tables) * q.rows * size.dim;
      const std::size_t index_count = static_cast<std::size_t>(size.batch) * size.tables * size.pooling;
      tables_.emplace_back(g, table_values * sizeof(float));
      indices_.emplace_back(g, index_count * sizeof(std::int32_t));
      recv_.emplace_back(g, shape_.recv_bytes());
      flags_.emplace_back(g, flag_count_ * sizeof(std::uint32_t));
      mismatches_.emplace_back(g, sizeof(unsigned long long));
      C3_HIP(hipSetDevice(g));
      hipStream_t s = streams_[static_cast<std::size_t>(g)].stream;
      launch_fill_table_values(s, static_cast<float*>(tables_.back().get()), table_values, kSeed, g);
      launch_fill_row_indices(s, static_cast<std::int32_t*>(indices_.back().get()), index_count, q.rows,
                              kSeed, g);
      C3_HIP(hipMemset(flags_.back().get(), 0, flag_count_ * sizeof(std::uint32_t)));
    }
    bench.devices().synchronize_all();
  }

  [[nodiscard]] const CollShape& collective() const { return shape_; }
  [[nodiscard]] const std::vector<StreamRef>& streams() const { return streams_; }

  [[nodiscard]] LookupShape shape(int gpu, int chunk) const {
    return {size_.batch, size_.tables, size_.dim, size_.pooling, rows_, bench_.gpus(), gpu, chunk};
  }

  // Persistent grid: as many blocks as are resident at once, at most one per tile.
  [[nodiscard]] int blocks(int chunk, const KernelOccupancy& occupancy) const {
    const LookupShape s = shape(0, chunk);
    const long long tiles = static_cast<long long>(s.ranks) * s.chunks_per_rank();
    const long long resident =
        static_cast<long long>(std::max(1, occupancy.max_blocks_per_sm)) * bench_.units();
    return static_cast<int>(std::max(1LL, std::min(tiles, resident)));
  }

  void enqueue_lookup(int chunk, int blocks) const {
    for (const StreamRef& s : streams_) {
      LookupDestinations to;
      auto* send = static_cast<float*>(bulk_.send(s.gpu));
      for (int d = 0; d < bench_.gpus(); ++d) to.out[d] = send + static_cast<std::size_t>(d) * block_floats();
      C3_HIP(hipSetDevice(s.gpu));
      launch_embedding_lookup(s.stream, shape(s.gpu, chunk), table(s.gpu), index(s.gpu), to, blocks);
    }
  }

  void enqueue_all_to_all() const { bench_.vendor().enqueue(shape_, bulk_, streams_, 0); }

  void enqueue_fused(int chunk, int blocks) {
    ++epoch_;
    const std::size_t flags =
        static_cast<std::size_t>(bench_.gpus()) * static_cast<std::size_t>(shape(0, chunk).chunks_per_rank());
    for (const StreamRef& s : streams_) {
      LookupDestinations to;
      for (int d = 0; d < bench_.gpus(); ++d) {
        to.out[d] = static_cast<float*>(recv_[static_cast<std::size_t>(d)].get()) +
                    static_cast<std::size_t>(s.gpu) * block_floats();
        to.flags[d] = static_cast<std::uint32_t*>(flags_[static_cast<std::size_t>(d)].get());
      }
      C3_HIP(hipSetDevice(s.gpu));
      launch_embedding_lookup_fused(s.stream, shape(s.gpu, chunk), table(s.gpu), index(s.gpu), to, epoch_,
                                    blocks);
    }
    for (const StreamRef& s : streams_) {
      C3_HIP(hipSetDevice(s.gpu));
      launch_wait_flags(s.stream,
                        static_cast<const std::uint32_t*>(flags_[static_cast<std::size_t>(s.gpu)].get()),
                        flags, epoch_, kWaitTimeoutNs, bench_.devices().timeout_flag());
    }
  }

  // Runs the bulk step and the fused step (receive buffers poisoned first) once each and returns
  // the words of the fused receive buffers, over all GPUs, that differ from the bulk step's.
  std::uint64_t compare_fused_with_bulk(int bulk_tile, int bulk_blocks, int chunk, int fused_blocks) {
    DeviceSet& dev = bench_.devices();
    const std::size_t words = shape_.recv_bytes() / sizeof(std::uint32_t);
    bulk_.poison_recv(shape_);  // synchronous, as the memsets below
    for (const StreamRef& s : streams_) {
      C3_HIP(hipSetDevice(s.gpu));
      C3_HIP(hipMemset(mismatches_[static_cast<std::size_t>(s.gpu)].get(), 0, sizeof(unsigned long long)));
      launch_fill_constant(s.stream,
                           static_cast<std::uint32_t*>(recv_[static_cast<std::size_t>(s.gpu)].get()), words,
                           kPoison);
    }
    dev.synchronize_all();
    *dev.timeout_flag() = 0;
    enqueue_lookup(bulk_tile, bulk_blocks);
    enqueue_all_to_all();
    dev.synchronize_all();
    enqueue_fused(chunk, fused_blocks);
    for (const StreamRef& s : streams_) {
      C3_HIP(hipSetDevice(s.gpu));
      launch_count_differences(
          s.stream, static_cast<const std::uint32_t*>(recv_[static_cast<std::size_t>(s.gpu)].get()),
          static_cast<const std::uint32_t*>(bulk_.recv(s.gpu)), words,
          static_cast<unsigned long long*>(mismatches_[static_cast<std::size_t>(s.gpu)].get()));
    }
    dev.synchronize_all();
    if (*dev.timeout_flag() != 0) throw DeviceError("c3bench: fused_a2a: a completion flag never came");
    std::uint64_t wrong = 0;
    for (const StreamRef& s : streams_) {
      C3_HIP(hipSetDevice(s.gpu));
      unsigned long long host = 0;
      C3_HIP(hipMemcpy(&host, mismatches_[static_cast<std::size_t>(s.gpu)].get(), sizeof(host),
                       hipMemcpyDeviceToHost));
      wrong += host;
    }
    return wrong;
  }

private:
  [[nodiscard]] std::size_t block_floats() const { return shape_.block_bytes() / sizeof(float); }
  [[nodiscard]] const float* table(int g) const {
    return static_cast<const float*>(tables_[static_cast<std::size_t>(g)].get());
  }
  [[nodiscard]] const std::int32_t* index(int g) const {
    return static_cast<const std::int32_t*>(indices_[static_cast<std::size_t>(g)].get());
  }

  Bench& bench_;
  FusedA2aSize size_;
  int rows_ = 0;
  CollBuffers& bulk_;
  CollShape shape_;
  std::vector<StreamRef> streams_;
  std::vector<DeviceBuffer> tables_, indices_, recv_, flags_, mismatches_;
  std::size_t flag_count_ = 0;
  std::uint32_t epoch_ = 0;
};

wl::FusedStepRecord record(const FusedA2aSize& size, const FusedA2aRequest& q, int gpus,
                           const std::string& variant, std::optional<int> chunk, const MeasuredTimes& t) {
  wl::FusedStepRecord r;
  r.variant = variant;
  r.gpus = gpus;
  r.batch = size.batch;
  r.tables = size.tables;
  r.dim = size.dim;
  r.pooling = size.pooling;
  r.rows = q.rows;
  r.dtype = "fp32";
  r.bytes = output_bytes(size);
  r.chunk = chunk;
  r.time_us = t.total.median;
  r.spread_us = t.total.spread();
  r.trials = t.trials;
  r.extra["sweep"] = "fused_a2a";
  r.extra["trial_us"] = t.total_us;
  add_clocks(r.extra, t);
  return r;
}

void add_kernel(nlohmann::json& extra, const KernelOccupancy& o, int blocks) {
  extra["registers_per_thread"] = o.registers_per_thread;
  extra["max_blocks_per_sm"] = o.max_blocks_per_sm;
  extra["threads_per_block"] = kLookupThreads;
  extra["blocks"] = blocks;
}

}  // namespace

std::vector<FusedA2aSize> parse_fused_sizes(const std::string& text, const std::string& option) {
  std::vector<FusedA2aSize> out;
  std::string item;
  auto finish = [&] {
    if (item.empty()) return;
    std::vector<long long> v;
    std::string part;
    bool ok = true;
    for (char c : item + "x") {
      if (c == 'x') {
        try {
          std::size_t used = 0;
          const long long n = std::stoll(part, &used);
          ok = ok && used == part.size() && n >= 1 && n <= std::numeric_limits<int>::max();
          v.push_back(n);
        } catch (const std::exception&) {
          ok = false;
        }
        part.clear();
      } else {
        part += c;
      }
    }
    if (!ok || v.size() != 4) {
      throw InputError(
          {}, option,
          "'" + item + "' is not BATCHxTABLESxDIMxPOOLING of positive integers (e.g. 16384x8x128x16)");
    }
    out.push_back(
        {static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2]), static_cast<int>(v[3])});
    item.clear();
  };
  for (char c : text) {
    if (c == ',') {
      finish();
    } else if (c != ' ') {
      item += c;
    }
  }
  finish();
  if (out.empty()) throw InputError({}, option, "no size given");
  return out;
}

void check_fused_request(const FusedA2aRequest& q) {
  if (q.sizes.empty()) throw InputError({}, "--fused-sizes", "no size given");
  if (q.chunks.empty()) throw InputError({}, "--fused-chunks", "no chunk size given");
  if (q.rows < 1) throw InputError({}, "--fused-rows", "must be at least 1");
  if (q.bulk_tile < 1) throw InputError({}, "--fused-bulk-tile", "must be at least 1");
  for (const FusedA2aSize& s : q.sizes) {
    if (s.dim % 4 != 0) {
      throw InputError(
          {}, "--fused-sizes",
          "'" + size_text(s) + "': dim must be a multiple of 4 (the lookup moves 16-byte vectors)");
    }
    const long long indices = static_cast<long long>(s.batch) * s.tables * s.pooling;
    const long long work = static_cast<long long>(s.batch) * s.tables * (s.dim / 4);
    if (indices > std::numeric_limits<int>::max() || work > std::numeric_limits<int>::max()) {
      throw InputError({}, "--fused-sizes",
                       "'" + size_text(s) + "' is larger than the lookup indexes (2^31 indices)");
    }
  }
}

std::vector<wl::Record> run_fused_a2a(HardwareRunner& runner, const FusedA2aRequest& q) {
  check_fused_request(q);
  Bench& b = runner.bench();
  const int gpus = b.gpus();
  if (gpus < 2 || gpus > kFusedMaxRanks) {
    throw InputError({}, "--what",
                     "fused_a2a needs 2 to " + std::to_string(kFusedMaxRanks) + " GPUs; this node shows " +
                         std::to_string(gpus));
  }
  for (const FusedA2aSize& s : q.sizes) {
    if (s.batch % gpus != 0) {
      throw InputError({}, "--fused-sizes",
                       "'" + size_text(s) + "': the batch must be a multiple of the GPU count (" +
                           std::to_string(gpus) + ")");
    }
  }
  C3_HIP(hipSetDevice(0));
  const KernelOccupancy plain = lookup_occupancy(false);
  const KernelOccupancy fused = lookup_occupancy(true);
  std::cerr << "c3bench: fused_a2a: plain lookup " << plain.registers_per_thread << " registers, "
            << plain.max_blocks_per_sm << " blocks/SM; fused " << fused.registers_per_thread << " registers, "
            << fused.max_blocks_per_sm << " blocks/SM\n";

  std::vector<int> tiles = q.chunks;  // the lookup alone at every chunk size and at the bulk tile
  if (std::find(tiles.begin(), tiles.end(), q.bulk_tile) == tiles.end()) tiles.push_back(q.bulk_tile);

  std::vector<wl::Record> out;
  for (const FusedA2aSize& size : q.sizes) {
    std::cerr << "c3bench: fused_a2a " << size_text(size) << " (" << output_bytes(size)
              << " bytes per GPU)\n";
    FusedA2aState state(b, size, q);
    const int bulk_blocks = state.blocks(q.bulk_tile, plain);
    std::vector<std::uint64_t> wrong;
    for (int chunk : q.chunks) {
      wrong.push_back(
          state.compare_fused_with_bulk(q.bulk_tile, bulk_blocks, chunk, state.blocks(chunk, fused)));
      if (wrong.back() != 0) {
        std::cerr << "c3bench: fused_a2a " << size_text(size) << " chunk " << chunk << ": " << wrong.back()
                  << " words differ from the bulk step\n";
      }
    }

    const auto streams = state.streams();
    std::vector<Measurement> list;
    for (int tile : tiles) {
      const int blocks = state.blocks(tile, plain);
      list.push_back({{{"lookup", streams, [&state, tile, blocks] { state.enqueue_lookup(tile, blocks); }}}});
    }
    list.push_back({{{"all_to_all", streams, [&state] { state.enqueue_all_to_all(); }}}});
    list.push_back({{{"bulk", streams, [&state, &q, bulk_blocks] {
                        state.enqueue_lookup(q.bulk_tile, bulk_blocks);
                        state.enqueue_all_to_all();
                      }}}});
    for (int chunk : q.chunks) {
      const int blocks = state.blocks(chunk, fused);
      list.push_back({{{"fused", streams, [&state, chunk, blocks] { state.enqueue_fused(chunk, blocks); }}}});
    }
    const std::vector<MeasuredTimes> times = b.measure(list, q.warmups, q.trials);

    std::size_t i = 0;
    for (int tile : tiles) {
      wl::FusedStepRecord r = record(size, q, gpus, "lookup", tile, times[i++]);
      add_kernel(r.extra, plain, state.blocks(tile, plain));
      out.emplace_back(std::move(r));
    }
    out.emplace_back(record(size, q, gpus, "all_to_all", std::nullopt, times[i++]));
    wl::FusedStepRecord bulk_record = record(size, q, gpus, "bulk", std::nullopt, times[i++]);
    bulk_record.extra["lookup_tile"] = q.bulk_tile;
    add_kernel(bulk_record.extra, plain, bulk_blocks);
    out.emplace_back(std::move(bulk_record));
    for (std::size_t c = 0; c < q.chunks.size(); ++c) {
      const int chunk = q.chunks[c];
      wl::FusedStepRecord r = record(size, q, gpus, "fused", chunk, times[i++]);
      add_kernel(r.extra, fused, state.blocks(chunk, fused));
      r.extra["flags_per_gpu"] = static_cast<long long>(gpus) * state.shape(0, chunk).chunks_per_rank();
      r.extra["verified_wrong_words"] = wrong[c];
      r.extra["wait"] = "one-block kernel behind the fused kernel on each GPU polls the receive flags";
      out.emplace_back(std::move(r));
    }
  }
  return out;
}

}  // namespace c3sim::bench
