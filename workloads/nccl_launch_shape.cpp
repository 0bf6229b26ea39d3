#include "workloads/nccl_launch_shape.h"

namespace c3sim::wl {

std::optional<NcclLaunchChoice> nccl_choice_of_block(std::string_view version, std::int64_t block_x) {
  if (version.substr(0, 5) != "2.28.") return std::nullopt;
  // NCCL_SIMPLE_MAX_NTHREADS 512 + one warp of 32 for the ring's sync; NCCL_LL_MAX_NTHREADS 512.
  if (block_x == 544) return NcclLaunchChoice{CollectiveAlgorithm::ring, CollectiveProtocol::simple};
  if (block_x == 512) return NcclLaunchChoice{CollectiveAlgorithm::ring, CollectiveProtocol::ll};
  return std::nullopt;
}

}  // namespace c3sim::wl
