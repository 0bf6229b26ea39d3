#pragma once
// Fused compute + communication (seed 002): each collective whose input a GEMM or memory kernel
// produces (the collective is `after` it, or it is the previous kernel on the collective's stream)
// becomes, with its producer, one fused kernel (wl::FusedKernel; models/kernels/fused_kernel.h)
// whose workgroups write their share of the collective's bytes to the peers as soon as their tile
// or rows are done. The fused kernel takes the producer's place (stream, launch slot, `after`) and
// also waits for whatever else the collective waited for; kernels that waited for either wait for
// it, and the kernel that followed the collective on its own stream now waits for it too.
// `fuse_gemm` and `fuse_memory` fuse only the collectives a GEMM, or a memory kernel (an embedding
// lookup), produces: a step may gain from fusing one pair and lose from another (in a DLRM step the
// forward lookup + all-to-all gains; the backward all-to-all fused into an input-gradient GEMM holds
// that GEMM's stream until its sends land).
#include <string>

#include "models/policies/transform_registry.h"
#include "workloads/program.h"

namespace c3sim::models {

// Which producers a fuse entry takes.
enum class FuseProducers { any, gemm, memory };

// Throws InputError (key "policies") when the program has nothing to fuse.
wl::Program fuse_producers(const wl::Program& program, FuseProducers which = FuseProducers::any);

// `fuse`, `fuse_gemm`, `fuse_memory`.
TransformEntry fuse_entry(FuseProducers which = FuseProducers::any);

}  // namespace c3sim::models
