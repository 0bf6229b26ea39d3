#pragma once
// Programs generated from model configurations (docs/programs.md shows their graphs):
// - an FSDP layer step, forward and backward, from the FSDP generator's shapes and sizes
//   (workloads/fsdp_generator.h): all-gathers prefetched beside the GEMMs, re-gathers and
//   gradient reduce-scatters in backward, on separate all-gather and reduce-scatter streams as
//   PyTorch FSDP issues them, plus the layer's memory-bound norm and activation kernels;
// - a tensor-parallel (Megatron) block: column- and row-parallel GEMMs, an all-reduce after each
//   row-parallel GEMM;
// - an MoE layer with expert parallelism: all-to-all dispatch, each local expert's GEMMs,
//   all-to-all combine (balanced routing: every GPU receives tokens x top-k tokens).
// The attention core (QK^T, softmax, PV: batched GEMMs) is not in the layer programs.
// Every program launches its kernels in the order a framework issues them, GEMM before the
// collective it overlaps (the pair's `base`), so `sp` and the other policies transform them.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/errors.h"
#include "workloads/fsdp_generator.h"
#include "workloads/program.h"

namespace c3sim::wl {

Program fsdp_layer_program(const TransformerConfig& config);

// tp: tensor-parallel degree (GPUs of the program). Throws InputError (file = config name) when
// a sharded dimension does not divide by tp.
Program tp_block_program(const TransformerConfig& config, int tp);

struct MoeConfig {
  std::string name;             // "Mixtral-8x7B"
  std::int64_t hidden = 0;      // model width h
  std::int64_t expert_ffn = 0;  // each expert's FFN size (of gate and of up)
  int experts = 0;              // routed experts
  int top_k = 0;                // experts per token
  std::int64_t tokens = 0;      // tokens per GPU
  int ep_degree = 0;            // GPUs the experts are spread over
  Dtype dtype = Dtype::bf16;
};

// Mixtral 8x7B (h 4096, expert FFN 14336, 8 experts, top-2), 8192 tokens per GPU, 8-way EP.
MoeConfig mixtral_8x7b();
// Throws InputError (file = config name) when experts do not divide over ep_degree.
Program moe_layer_program(const MoeConfig& config);

// Routing imbalance on a generated MoE layer: rank r runs its expert kernels (every kernel but the
// collectives) with factors[r mod F] times the tokens (the GEMMs' token dimension n, the
// activations' bytes); `factors` repeats over the ranks, so its length must divide the layer's
// GPU count ("1,1.5": every other rank 1.5x). The all-to-alls keep the balanced bytes (no
// all-to-all-v). Throws InputError at `where` (key "imbalance") for a bad list.
Program with_moe_imbalance(Program moe, const std::vector<double>& factors, const SourceLocation& where);

// A generated program by kind ("fsdp-layer", "tp-block", "moe-layer", "dlrm") and model name ("" =
// the kind's default: llama-70b; mixtral-8x7b for moe-layer; dlrm-dcnv2, the MLPerf reference, for
// dlrm, whose other configurations come from workloads/dlrm_generator.h's options); `tp` is tp-block's
// degree. What `c3sim generate` writes and the Python module's generate() returns. Throws InputError at
// `where` (key "kind" or "model") for an unknown kind or a model the kind does not know.
Program generate_program(const std::string& kind, const std::string& model, int tp,
                         const SourceLocation& where);

}  // namespace c3sim::wl
