#pragma once
// The collective ops and what each one IS, written once: its spellings, whether it reduces, how its
// buffers relate to its size and how often its data crosses the links. Every per-op rule about an
// op's nature (the model's plan, the DMA phases, the policies that apply, c3bench's buffers) reads
// these traits instead of listing ops. Shared vocabulary of the hardware description (per-op model
// parameters, hardware/per_op.h), the workloads and the models, so it lives at the bottom layer.
//
// Sizes follow the paper: `bytes` is the per-GPU OUTPUT. A block is what one GPU exchanges with one
// peer in one pass over the links: bytes / gpus, or the whole output where that is a single block
// (reduce-scatter's reduced shard).
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace c3sim {

enum class CollectiveOp { all_gather, all_to_all, reduce_scatter, all_reduce };

inline constexpr std::size_t kCollectiveOpCount = 4;
inline constexpr std::array<CollectiveOp, kCollectiveOpCount> kAllCollectiveOps{
    CollectiveOp::all_gather, CollectiveOp::all_to_all, CollectiveOp::reduce_scatter,
    CollectiveOp::all_reduce};

// How many blocks a per-GPU buffer holds.
enum class Blocks { one, per_gpu };

struct CollectiveOpTraits {
  CollectiveOp op;
  const char* name;        // canonical spelling: YAML, JSONL `op`, per-op hardware keys (<name>_<parameter>)
  const char* short_name;  // kernel and scenario names: "ag"
  const char* hyphenated;  // prose and papers: "all-gather" (also parsed)
  const char* joined;      // NCCL's and PyTorch's: "allgather" (also parsed)
  bool reduces;            // sums the GPUs' contributions: needs CUs or copy engines that can reduce
  bool point_to_point;     // a distinct block to every peer over its own connection (NCCL's p2p channels)
  Blocks input;            // blocks in the per-GPU input
  Blocks output;           // blocks in the per-GPU output (`bytes`)
  int link_passes;         // times each block crosses the links: all-reduce is a reduce-scatter, then an
                           //   all-gather of the reduced blocks
};

// The table's row of `op`. A switch, so that an op added to the enum without a row is a -Wswitch
// error under the build's -Werror; the static_assert below checks the rows' order.
constexpr std::size_t op_index(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_gather: return 0;
    case CollectiveOp::all_to_all: return 1;
    case CollectiveOp::reduce_scatter: return 2;
    case CollectiveOp::all_reduce: return 3;
  }
  return kCollectiveOpCount;
}

// clang-format off
inline constexpr std::array<CollectiveOpTraits, kCollectiveOpCount> kCollectiveOpTraits{{
  // op                          name              short  hyphenated        joined           reduces p2p    input            output           passes
  {CollectiveOp::all_gather,     "all_gather",     "ag",  "all-gather",     "allgather",     false,  false, Blocks::one,     Blocks::per_gpu, 1},
  {CollectiveOp::all_to_all,     "all_to_all",     "a2a", "all-to-all",     "alltoall",      false,  true,  Blocks::per_gpu, Blocks::per_gpu, 1},
  {CollectiveOp::reduce_scatter, "reduce_scatter", "rs",  "reduce-scatter", "reducescatter", true,   false, Blocks::per_gpu, Blocks::one,     1},
  {CollectiveOp::all_reduce,     "all_reduce",     "ar",  "all-reduce",     "allreduce",     true,   false, Blocks::per_gpu, Blocks::per_gpu, 2},
}};
// clang-format on

constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < kCollectiveOpCount; ++i) {
    const CollectiveOpTraits& t = kCollectiveOpTraits[i];
    if (t.name == nullptr || kAllCollectiveOps[i] != t.op || op_index(t.op) != i) return false;
  }
  return true;
}
static_assert(rows_in_enum_order(),
              "kCollectiveOpTraits and kAllCollectiveOps: one row per op, in enum order");

constexpr const CollectiveOpTraits& op_traits(CollectiveOp op) { return kCollectiveOpTraits[op_index(op)]; }

const char* to_string(CollectiveOp op);   // the canonical name, "all_gather"
const char* short_name(CollectiveOp op);  // "ag", "a2a", "rs", "ar"
// Any of an op's spellings: name, hyphenated, joined or short ("all_gather", "all-gather",
// "allgather", "ag"); nullopt for anything else.
std::optional<CollectiveOp> parse_collective_op(std::string_view text);

// Per-GPU sizes of a collective whose per-GPU output is `bytes`, over `gpus` GPUs (N: double for the
// models, an integer type for buffers).
template <class N>
constexpr N block_bytes(CollectiveOp op, N bytes, int gpus) {
  return op_traits(op).output == Blocks::per_gpu ? bytes / static_cast<N>(gpus) : bytes;
}
template <class N>
constexpr N input_bytes(CollectiveOp op, N bytes, int gpus) {
  const CollectiveOpTraits& t = op_traits(op);
  if (t.input == Blocks::one) return block_bytes(op, bytes, gpus);
  return t.output == Blocks::per_gpu ? bytes : bytes * static_cast<N>(gpus);
}
// Blocks in the per-GPU output: the unit `bytes` must split into.
constexpr int output_blocks(CollectiveOp op, int gpus) {
  return op_traits(op).output == Blocks::per_gpu ? gpus : 1;
}
// Bytes each GPU sends over its links, whoever moves them (CU kernel or copy engines) and whatever
// the algorithm (direct or ring): each pass sends one block to, or through, each of the g - 1 peers.
constexpr double sent_bytes(CollectiveOp op, double bytes, int gpus) {
  return op_traits(op).link_passes * block_bytes(op, bytes, gpus) * (gpus - 1);
}

}  // namespace c3sim
