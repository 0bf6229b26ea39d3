#pragma once
// c3bench sweep --what fused_a2a: an embedding lookup whose pooled vectors are redistributed
// all-to-all, run on every GPU of the node
//   bulk:  the lookup kernel writes a local send buffer, then the library's all-to-all
//          (NCCL/RCCL) moves each destination's block, on the same stream;
//   fused: one kernel whose blocks store each tile of pooled vectors straight into the
//          destination GPU's receive buffer (peer mapping), then a system-scope fence and a
//          completion flag in the destination's memory per chunk of samples; a one-block waiting
//          kernel behind it on each GPU ends the step when all of that GPU's incoming flags are set.
// plus the lookup alone (per tile size) and the all-to-all alone. Every fused output is compared
// word for word with the bulk step's (extra.verified_wrong_words). One fused_step record
// (workloads/measurement.h) per size and variant, with the plain and fused kernels' registers per
// thread and resident blocks per SM.
#include <string>
#include <vector>

#include "hardware/hip/hardware_runner.h"
#include "workloads/measurement.h"

namespace c3sim::bench {

struct FusedA2aSize {
  int batch = 0;    // global batch
  int tables = 0;   // tables per GPU
  int dim = 0;      // fp32 elements per row (a multiple of 4)
  int pooling = 0;  // rows per sample and table
};

struct FusedA2aRequest {
  std::vector<FusedA2aSize> sizes;
  std::vector<int> chunks;  // samples per completion flag (and per tile of the lookup alone)
  int rows = 500000;        // rows per table
  int bulk_tile = 4;        // samples per tile of the bulk step's lookup
  int warmups = 2;
  int trials = 15;
};

// "BATCHxTABLESxDIMxPOOLING,..." (e.g. 16384x8x128x16). Throws InputError naming `option`.
std::vector<FusedA2aSize> parse_fused_sizes(const std::string& text, const std::string& option);
// What can be checked without a GPU: dim a multiple of 4, every table's index within int32, the
// sizes' element counts within the kernels' int indexing. Throws InputError.
void check_fused_request(const FusedA2aRequest& request);
// Also throws InputError where the node does not fit (2..8 GPUs, batch a multiple of the GPU
// count), before any buffer is allocated.
std::vector<wl::Record> run_fused_a2a(HardwareRunner& runner, const FusedA2aRequest& request);

}  // namespace c3sim::bench
