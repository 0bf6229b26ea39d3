#pragma once
// GEMM shapes and all-gather sizes of one transformer layer trained with FSDP, derived from the
// model's dimensions: how the main paper sourced Tables I and II (LLaMA-70B/405B, 8192 tokens,
// 8-way FSDP).
//
// Orientation (checked against every LLaMA row of Table I). A linear layer y = x W^T with
// x [tokens x in], W [out x in] is run by PyTorch on a column-major BLAS (rocBLAS/hipBLASLt,
// cuBLAS), so the library sees the transposed problem. As the library sees it (M x N x K =
// output rows x output cols x reduction):
//   forward      y^T  = W   x^T   M = out,  N = tokens, K = in
//   weight_grad  dW^T = x^T dy    M = in,   N = out,    K = tokens
//   input_grad   dx^T = W^T dy^T  M = in,   N = tokens, K = out
// Mapping of Table I (h = hidden, F = FFN size, T = 8192 tokens):
//   cb1 8192^3               LLaMA-70B attn_out forward (any pass: all three dims are 8192)
//   mb1 8192x57344x8192      LLaMA-70B gate_up weight_grad (in=h, out=2F, K=T); the forward
//                            would print 57344x8192x8192, so mb1 is the weight gradient, like mb2
//   cb2 16384x8192x16384     LLaMA-405B attn_out forward (input_grad has the same shape)
//   cb3 16384x16384x8192     LLaMA-405B attn_out weight_grad (K = tokens)
//   cb4 18432x8192x16384     LLaMA-405B qkv forward (out = h + 2 x kv_heads x head_dim)
//   cb5 106496x8192x16384    LLaMA-405B gate_up forward (out = 2F)
//   mb2 16384x106496x8192    LLaMA-405B gate_up weight_grad
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/dtype.h"
#include "workloads/collective.h"
#include "workloads/gemm.h"
#include "workloads/scenario.h"

namespace c3sim::wl {

struct TransformerConfig {
  std::string name;           // "LLaMA-70B"; also the GEMMs' source
  std::int64_t hidden = 0;    // model width h
  std::int64_t ffn = 0;       // FFN intermediate size F (of gate and of up, each)
  std::int64_t heads = 0;     // attention (query) heads
  std::int64_t kv_heads = 0;  // key/value heads (grouped-query attention); = heads for MHA
  std::int64_t head_dim = 0;  // 0 = derive as hidden / heads
  std::int64_t tokens = 0;    // tokens per GPU per step (the GEMMs' token dimension)
  int fsdp_degree = 0;        // GPUs each weight is sharded over
  Dtype dtype = Dtype::bf16;

  [[nodiscard]] std::int64_t resolved_head_dim() const { return head_dim > 0 ? head_dim : hidden / heads; }
};

// Published LLaMA 3 dimensions with the paper's setting: 8192 tokens, 8-way FSDP, bf16.
TransformerConfig llama_70b();   // h 8192, F 28672, 64 heads, 8 KV heads, head dim 128
TransformerConfig llama_405b();  // h 16384, F 53248, 128 heads, 8 KV heads, head dim 128

// Throws InputError (file = config name, key = field) for non-positive sizes, heads not a
// multiple of kv_heads, or hidden not divisible by heads when head_dim must be derived.
void validate(const TransformerConfig& config);

// The layer's weight matrices in forward execution order. Fused the way the paper's shapes
// show: q, k, v in one matrix; gate and up in one matrix.
enum class LayerLinear { qkv, attn_out, gate_up, down };
enum class GemmPass { forward, weight_grad, input_grad };
const char* to_string(LayerLinear l);  // "qkv", "attn_out", "gate_up", "down"
const char* to_string(GemmPass p);     // "fwd", "wgrad", "dgrad"

struct LinearShape {
  LayerLinear linear = LayerLinear::qkv;
  std::int64_t in_features = 0;
  std::int64_t out_features = 0;
};

std::vector<LinearShape> layer_linears(const TransformerConfig& config);
// The GEMM as the BLAS library sees it (orientation table above); tag "<linear>_<pass>".
Gemm linear_gemm(const TransformerConfig& config, const LinearShape& linear, GemmPass pass);
// Full gathered weight in bytes (the collective's per-GPU output). FSDP pads the flat parameter
// to a multiple of the sharding degree, so this rounds elements up to a multiple of fsdp_degree.
std::int64_t all_gather_bytes(const TransformerConfig& config, const LinearShape& linear);

struct FsdpGemm {
  LayerLinear linear = LayerLinear::qkv;
  GemmPass pass = GemmPass::forward;
  Gemm gemm;
};
struct FsdpAllGather {
  LayerLinear linear = LayerLinear::qkv;
  std::int64_t bytes = 0;
};
// A GEMM and the collective that runs beside it.
struct FsdpOverlap {
  FsdpGemm gemm;
  FsdpAllGather all_gather;
};

// Every linear x {forward, weight_grad, input_grad}, linears in layer order. Validates first.
std::vector<FsdpGemm> fsdp_gemms(const TransformerConfig& config);
// One per linear, in layer order. Validates first.
std::vector<FsdpAllGather> fsdp_all_gathers(const TransformerConfig& config);
// The pairs Table II's seven LLaMA rows follow (all seven come out of these two rules):
//  - forward GEMM of linear i beside the prefetch all-gather of linear i+1 (down is followed by
//    the next layer's qkv): FSDP's forward prefetch (cb1_896M, cb2_3.25G, cb4_512M, cb5_1.63G);
//  - weight-gradient GEMM of linear i beside a collective of linear i's own weight size
//    (mb1_896M, mb2_3.25G, cb3_512M). The paper does not say why; the size equals the
//    re-gather of that weight for backward and the reduce-scatter of its gradient.
// Input-gradient GEMMs get no pair: the paper sources none of its rows from them.
std::vector<FsdpOverlap> fsdp_overlaps(const TransformerConfig& config);

// A scenario for one overlap, named "<model>_<linear>_<pass>_<size>_<op>" (e.g.
// "llama-70b_gate_up_wgrad_896M_ag"), gpus = fsdp_degree.
Scenario make_fsdp_scenario(const TransformerConfig& config, const FsdpOverlap& overlap,
                            CollectiveOp op = CollectiveOp::all_gather);

}  // namespace c3sim::wl
