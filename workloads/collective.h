#pragma once
// A collective as the paper sizes it: `bytes` is the per-GPU OUTPUT size (the full gathered array
// for all-gather; REFERENCE.md "Reading Table II"). Each GPU's shard is bytes / gpus.
#include <cstdint>
#include <optional>
#include <string>

#include "sim/base/collective_op.h"
#include "workloads/collective_protocol.h"

namespace c3sim::wl {

// The ops and their traits live in sim/base (the hardware's per-op parameters name them too);
// wl:: spellings stay valid.
using c3sim::block_bytes;
using c3sim::Blocks;
using c3sim::CollectiveOp;
using c3sim::CollectiveOpTraits;
using c3sim::input_bytes;
using c3sim::kAllCollectiveOps;
using c3sim::op_traits;
using c3sim::output_blocks;
using c3sim::parse_collective_op;
using c3sim::sent_bytes;
using c3sim::short_name;
using c3sim::to_string;

// cu: kernel on compute units (RCCL/NCCL); dma: host-driven copy engines (ConCCL);
// vendor_zero_cta: the vendor library's own copy-engine path (NCCL/RCCL zero-CTA policy);
// dma_hybrid: all-reduce as a reduce-scatter on CUs then an all-gather on copy engines (paper VII).
enum class CollectiveImpl { cu, dma, vendor_zero_cta, dma_hybrid };

const char* to_string(CollectiveImpl impl);
std::optional<CollectiveImpl> parse_collective_impl(const std::string& s);

struct Collective {
  CollectiveOp op = CollectiveOp::all_gather;
  std::int64_t bytes = 0;  // per-GPU output bytes
  CollectiveImpl impl = CollectiveImpl::cu;
  std::optional<int> max_workgroups;  // cap on channels/CTAs; nullopt = library default
  // Out of place (the default): input and output are separate buffers, so the GPU's own block must
  // also be copied from its input into its slot of the output. That is how c3bench (send and
  // receive buffers), nccl-tests and rccl-tests (out of place unless -i/in-place) and a plain
  // all_gather_into_tensor call it. In place: the input already is that slot; nothing local moves.
  // (YAML key `in_place`.)
  bool in_place = false;
  // How the library ran it (YAML keys `algorithm`, `protocol`, `channels`; the torch importer
  // writes them from NCCL's own log): nullopt = the model picks as the library's tuner does
  // (models/kernels/collective_plan.h). `channels` is the count the library ran, not a cap.
  std::optional<CollectiveAlgorithm> algorithm = std::nullopt;
  std::optional<CollectiveProtocol> protocol = std::nullopt;
  std::optional<int> channels = std::nullopt;
};

// The named algorithm, protocol and channels as one text ("ring/ll/1", "-/-/-" when none are
// named), for keys that must tell two calls of one size apart.
std::string library_choice_text(const Collective& c);

// Bytes of this GPU's own block that an out-of-place collective copies locally (input -> output):
// the shard for all-gather and all-to-all; 0 in place and for the reductions, whose own
// contribution is read where it lies (summed in, not copied).
double local_block_bytes(const Collective& c, int gpus);

}  // namespace c3sim::wl
