#pragma once
// FiCCO-style finer-grain overlap (seed 001, Pal et al.): each GEMM + collective pair of a program
// is split into k chunks, one level below the shard. Where the GEMM consumes the collective
// (`after` it: all-gather or all-to-all feeding the GEMM) GEMM chunk j waits only for collective
// chunk j, so chunk j+1 moves while chunk j computes; where the collective consumes the GEMM
// (reduce-scatter / all-reduce of its output) collective chunk j waits for GEMM chunk j; an
// independent pair (the C3 scenario) is split without new dependencies. GEMMs split along M
// (rows), collectives into equal byte chunks; chunks stay on their kernels' streams and are
// launched interleaved where the first of the two was. Two schedule variants, as FiCCO explores:
//   ficco:<k>      chunks of the collective on the CUs (the library kernel per chunk)
//   ficco_dma:<k>  chunks on the copy engines (reductions stay on the CUs: engines cannot reduce)
// Kernels that waited for the GEMM or the collective wait for its last chunk.
#include <string>
#include <vector>

#include "hardware/node_spec.h"
#include "models/policies/transform_registry.h"
#include "workloads/program.h"

namespace c3sim::models {

// Throws InputError (key "policies") when the program has no GEMM + collective pair or a
// collective does not split into k chunks of whole shards.
wl::Program ficco_chunk(const wl::Program& program, int chunks, bool dma, const hw::NodeSpec& spec);
// The same, pairing only kernels named in `kernels` (all when null): the per-region search
// (region_best.h) chunks one region's pair; two kernels of `kernels` that are one GEMM and one
// collective with no dependency between them are an independent pair.
wl::Program ficco_chunk_subset(const wl::Program& program, const std::vector<std::string>* kernels,
                               int chunks, bool dma, const hw::NodeSpec& spec);

TransformEntry ficco_entry();
TransformEntry ficco_dma_entry();

}  // namespace c3sim::models
