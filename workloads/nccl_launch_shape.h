#pragma once
// What an NCCL or RCCL kernel's launch shape says about how the library ran its collective
// (docs/collective-protocols.md, "From the traced kernel").
// - grid x: the channels. Both libraries launch one block per channel the call runs on (NCCL 2.28
//   src/enqueue.cc: one block per bit of the plan's channel mask; RCCL: grid = the plan's
//   channelCount). A kernel that serves several calls in one launch spans their channels.
// - block x: NCCL 2.28 sizes it from the algorithm and protocol (src/graph/tuning.cc maxThreads,
//   src/enqueue.cc topoGetAlgoInfo): a ring takes 512 threads (LL) or 512 + a sync warp (Simple),
//   halved on small calls; LL128 takes 640 or 320; a tree, NVLS, PAT, CollNet and send/receive
//   640. Only the two full-size ring counts, which the traced steps show for every call NCCL logged
//   (hardware/measurements/torch_steps: 134 x 544 = RING SIMPLE, 4 x 512 = RING LL), are read;
//   NCCL_NTHREADS and NCCL_LL128_NTHREADS, which a trace does not record, would change them. RCCL
//   launches 256 threads whatever it runs (NCCL_MAX_NTHREADS 256 on AMD), so its block says nothing.
#include <cstdint>
#include <optional>
#include <string_view>

#include "workloads/collective_protocol.h"

namespace c3sim::wl {

struct NcclLaunchChoice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  CollectiveProtocol protocol = CollectiveProtocol::simple;
};

// The algorithm and protocol that NCCL `version` ("2.28.9", the trace's distributedInfo) runs with
// `block_x` threads a block, where that count has one: 544 -> RING SIMPLE, 512 -> RING LL on NCCL
// 2.28. nullopt for every other version or count.
std::optional<NcclLaunchChoice> nccl_choice_of_block(std::string_view version, std::int64_t block_x);

}  // namespace c3sim::wl
