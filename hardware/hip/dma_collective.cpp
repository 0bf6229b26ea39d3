#include "hardware/hip/dma_collective.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <tuple>

#include "hardware/hip/check.h"
#include "hardware/hip/copy_submit.h"
#include "sim/base/errors.h"

#if defined(C3BENCH_AMD) && C3BENCH_HAVE_SDMA_ENGINE_COPY
#define C3BENCH_DMA_PINNED 1
#include "hardware/hip/hsa_sdma.h"
#else
#define C3BENCH_DMA_PINNED 0
#endif

namespace c3sim::bench {
namespace {

using Copy = CopyPiece;

std::uint8_t* at(void* base, std::size_t offset) { return static_cast<std::uint8_t*>(base) + offset; }

// Whole per-peer transfers issued by GPU `me`, starting with the next peer so that at any moment
// the GPUs target different peers (the direct algorithm's usual rotation).
std::vector<Copy> transfers(const CollShape& shape, const CollBuffers& b, int me, bool pull) {
  const std::size_t block = shape.block_bytes();
  const bool ag = shape.op == wl::CollectiveOp::all_gather;
  std::vector<Copy> out;
  for (int step = 1; step <= shape.ranks; ++step) {
    const int peer = (me + step) % shape.ranks;  // last step: peer == me, the local block
    const int src_rank = pull ? peer : me;
    const int dst_rank = pull ? me : peer;
    const std::size_t src_off = ag ? 0 : static_cast<std::size_t>(dst_rank) * block;
    const std::size_t dst_off = static_cast<std::size_t>(src_rank) * block;
    out.push_back({at(b.recv(dst_rank), dst_off), at(b.send(src_rank), src_off), block});
  }
  return out;
}

// The `piece`-th of `chunks` pieces of `c` (16-byte aligned cuts; empty when c is too small).
Copy piece_of(const Copy& c, std::size_t piece, std::size_t chunks) {
  const std::size_t begin = c.bytes * piece / chunks / 16 * 16;
  const std::size_t end = piece + 1 == chunks ? c.bytes : c.bytes * (piece + 1) / chunks / 16 * 16;
  if (end <= begin) return {};
  return {static_cast<std::uint8_t*>(c.dst) + begin, static_cast<const std::uint8_t*>(c.src) + begin,
          end - begin};
}

#if C3BENCH_DMA_PINNED
// A copy that does not finish within this long sets the trial's timeout flag instead of hanging.
constexpr std::uint64_t kCopyTimeoutNs = 60ull * 1000 * 1000 * 1000;

std::string engine_list(std::uint32_t mask) {
  std::string out;
  for (int e : engine_numbers(mask)) out += (out.empty() ? "" : ",") + std::to_string(e);
  return out.empty() ? "none" : out;
}
#endif

}  // namespace

#if C3BENCH_DMA_PINNED
struct DmaCollectives::Sdma {
  std::vector<int> engine_map;                                    // C3BENCH_SDMA_ENGINE_MAP, per peer step
  std::vector<hsa_agent_t> agents;                                // per GPU, from its buffers on first use
  std::vector<std::unique_ptr<HsaSignal>> start, done;            // per GPU
  std::vector<std::uint32_t> offered;                             // per GPU: engines seen idle toward peers
  std::map<std::tuple<int, int, int>, std::vector<int>> engines;  // (gpu, other, count) -> engines

  // The engines GPU `g` copies toward GPU `other` with (`step` = (other - g) mod gpus, `count` of
  // them), chosen on first use while all are idle and kept, so that every trial uses the same ones.
  const std::vector<int>& choose(int g, int other, int step, int count) {
    const auto key = std::make_tuple(g, other, count);
    if (auto it = engines.find(key); it != engines.end()) return it->second;
    return other == g ? choose_local(g, count) : choose_peer(g, other, step, count);
  }

  const std::vector<int>& choose_peer(int g, int other, int step, int count) {
    const std::uint32_t idle = idle_engines(agents[g], agents[other]);
    const std::vector<int> avail = engine_numbers(idle);
    if (avail.empty()) {
      throw DeviceError("c3bench: GPU " + std::to_string(g) + " has no idle SDMA engine toward GPU " +
                        std::to_string(other) + " (hsa_amd_memory_copy_engine_status)");
    }
    offered[static_cast<std::size_t>(g)] |= idle;
    int first = avail[static_cast<std::size_t>(step - 1) % avail.size()];  // a different engine per peer
    if (!engine_map.empty()) {
      if (static_cast<std::size_t>(step) > engine_map.size()) {
        throw InputError({}, "C3BENCH_SDMA_ENGINE_MAP",
                         "has " + std::to_string(engine_map.size()) +
                             " entries; this node needs one per peer (" + std::to_string(agents.size() - 1) +
                             ")");
      }
      first = engine_map[static_cast<std::size_t>(step - 1)];
      if (((idle >> first) & 1u) == 0) {
        throw DeviceError("c3bench: C3BENCH_SDMA_ENGINE_MAP names SDMA engine " + std::to_string(first) +
                          " for GPU " + std::to_string(g) + " -> GPU " + std::to_string(other) +
                          ", which the runtime does not offer (idle engines: " + engine_list(idle) + ")");
      }
    } else if (const std::uint32_t preferred = preferred_engines(agents[g], agents[other]) & idle;
               preferred != 0) {
      first = engine_numbers(preferred)[0];
    }
    std::size_t at = 0;
    while (avail[at] != first) ++at;
    std::vector<int>& out = engines[std::make_tuple(g, other, count)];
    for (std::size_t k = 0; k < std::min(avail.size(), static_cast<std::size_t>(count)); ++k) {
      out.push_back(avail[(at + k) % avail.size()]);
    }
    return out;
  }

  // The local block: the runtime reports no engines for same-GPU copies, so it goes, forced onto
  // SDMA, to the lowest engine that was offered toward a peer and no peer uses (else engine 0).
  const std::vector<int>& choose_local(int g, int count) {
    std::uint32_t used = 0;
    for (const auto& [key, list] : engines) {
      if (std::get<0>(key) != g) continue;
      for (int e : list) used |= 1u << e;
    }
    const std::vector<int> free = engine_numbers(offered[static_cast<std::size_t>(g)] & ~used);
    std::vector<int>& out = engines[std::make_tuple(g, g, count)];
    out.push_back(free.empty() ? 0 : free[0]);
    return out;
  }
};
#else
struct DmaCollectives::Sdma {};
#endif

DmaCollectives::DmaCollectives(DeviceSet& devices) : devices_(devices) {
#if C3BENCH_DMA_PINNED
  sdma_ = std::make_unique<Sdma>();
  const char* map = std::getenv("C3BENCH_SDMA_ENGINE_MAP");
  sdma_->engine_map = parse_engine_map(map != nullptr ? map : "");
  // HIP has initialized the runtime; this reference keeps it up while the signals live.
  C3_HSA(hsa_init());
  for (int g = 0; g < devices_.count(); ++g) {
    sdma_->start.push_back(std::make_unique<HsaSignal>(1));
    sdma_->done.push_back(std::make_unique<HsaSignal>(0));
  }
  sdma_->offered.assign(static_cast<std::size_t>(devices_.count()), 0u);
#endif
}

DmaCollectives::~DmaCollectives() {
#if C3BENCH_DMA_PINNED
  sdma_.reset();
  (void)hsa_shut_down();
#endif
}

std::string DmaOptions::describe() const {
  return std::string(pull ? "pull" : "push") + ",e" + std::to_string(engines) + ",c" +
         std::to_string(chunks) +
         (C3BENCH_DMA_PINNED ? ",sdma"
          : batched          ? ",batch"
                             : ",single");
}

std::vector<StreamRef> DmaCollectives::streams(const DmaOptions& options) {
  std::vector<StreamRef> out;
  for (int g = 0; g < devices_.count(); ++g) {
    if (C3BENCH_DMA_PINNED) {
      out.push_back({g, devices_.stream(g, "dma_sdma")});  // start and completion, not the copies
      continue;
    }
    for (int e = 0; e < options.engines; ++e) {
      out.push_back({g, devices_.stream(g, "dma" + std::to_string(e))});
    }
  }
  return out;
}

void DmaCollectives::enqueue(const CollShape& shape, const CollBuffers& buffers, const DmaOptions& options) {
  if (wl::op_traits(shape.op).reduces) {
    throw DeviceError(std::string("c3bench: DMA ") + wl::to_string(shape.op) +
                      " is not possible (copy engines cannot reduce); all_gather and all_to_all are");
  }
  const auto chunks = static_cast<std::size_t>(options.chunks);
#if C3BENCH_DMA_PINNED
  Sdma& sdma = *sdma_;
  if (sdma.agents.empty()) {
    for (int g = 0; g < devices_.count(); ++g) sdma.agents.push_back(agent_owning(buffers.recv(g)));
  }
  // Host submission is serialized on this thread, GPU by GPU, as ConCCL's is.
  for (int g = 0; g < devices_.count(); ++g) {
    struct Issue {
      Copy copy;
      int other = 0;
      int engine = 0;
    };
    std::vector<Issue> plan;
    const std::vector<Copy> whole = transfers(shape, buffers, g, options.pull);
    for (std::size_t piece = 0; piece < chunks; ++piece) {
      for (std::size_t i = 0; i < whole.size(); ++i) {
        const int step = static_cast<int>(i) + 1;
        const int other = (g + step) % shape.ranks;
        const Copy c = piece_of(whole[i], piece, chunks);
        if (c.bytes == 0) continue;
        const std::vector<int>& engines = sdma.choose(g, other, step, options.engines);
        plan.push_back({c, other, engines[piece % engines.size()]});
      }
    }
    // Engine status: each engine must be idle toward its peer before this collective queues on it
    // (the runtime has no status for same-GPU copies).
    std::map<std::pair<int, int>, bool> checked;
    for (const Issue& is : plan) {
      if (is.other == g || !checked.emplace(std::make_pair(is.engine, is.other), true).second) continue;
      const std::uint32_t idle = idle_engines(sdma.agents[g], sdma.agents[is.other]);
      if (((idle >> is.engine) & 1u) == 0) {
        throw DeviceError("c3bench: SDMA engine " + std::to_string(is.engine) + " of GPU " +
                          std::to_string(g) + " is not idle toward GPU " + std::to_string(is.other) +
                          " (idle engines: " + engine_list(idle) + ")");
      }
    }
    const hsa_signal_t start = sdma.start[static_cast<std::size_t>(g)]->get();
    const hsa_signal_t done = sdma.done[static_cast<std::size_t>(g)]->get();
    sdma.start[static_cast<std::size_t>(g)]->store(1);
    sdma.done[static_cast<std::size_t>(g)]->store(static_cast<std::int64_t>(plan.size()));
    const hsa_agent_t self = sdma.agents[static_cast<std::size_t>(g)];
    for (const Issue& is : plan) {
      // The copier goes in as the source agent: the runtime runs a copy on the source agent's
      // engines; the other GPU can reach both buffers through peer access.
      // force_copy_on_sdma: a same-GPU copy would otherwise be a blit kernel on the CUs.
      const hsa_agent_t other = sdma.agents[static_cast<std::size_t>(is.other)];
      C3_HSA(hsa_amd_memory_async_copy_on_engine(
          is.copy.dst, other, is.copy.src, self, is.copy.bytes, 1, &start, done,
          static_cast<hsa_amd_sdma_engine_id_t>(1u << is.engine), true));
    }
    C3_HIP(hipSetDevice(g));
    hipStream_t stream = devices_.stream(g, "dma_sdma");
    launch_signal_store(stream, start, 0);
    launch_signal_wait_zero(stream, done, devices_.timeout_flag(), kCopyTimeoutNs);
  }
#else
  // Host submission is serialized on this thread, GPU by GPU, as ConCCL's is.
  for (int g = 0; g < devices_.count(); ++g) {
    const std::vector<Copy> whole = transfers(shape, buffers, g, options.pull);
    std::vector<std::vector<Copy>> queues(static_cast<std::size_t>(options.engines));
    std::size_t next_queue = 0;
    for (std::size_t piece = 0; piece < chunks; ++piece) {
      for (const Copy& c : whole) {
        const Copy p = piece_of(c, piece, chunks);
        if (p.bytes == 0) continue;
        queues[next_queue].push_back(p);
        next_queue = (next_queue + 1) % queues.size();
      }
    }
    C3_HIP(hipSetDevice(g));
    for (int e = 0; e < options.engines; ++e) {
      submit_copies(devices_.stream(g, "dma" + std::to_string(e)), queues[static_cast<std::size_t>(e)],
                    options.batched);
    }
  }
#endif
}

}  // namespace c3sim::bench
