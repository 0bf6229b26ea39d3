#include "workloads/program_generators.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/base/ascii_case.h"
#include "workloads/dlrm_generator.h"
#include "workloads/input_limits.h"
#include "workloads/program_builder.h"

namespace c3sim::wl {

namespace {

[[noreturn]] void config_error(const std::string& config, const std::string& key, const std::string& why) {
  throw InputError(SourceLocation{config, 0, 0}, key, why);
}

}  // namespace

Program fsdp_layer_program(const TransformerConfig& c) {
  validate(c);
  const std::vector<LinearShape> linears = layer_linears(c);
  const std::int64_t e = dtype_bytes(c.dtype);
  const std::int64_t act = c.tokens * c.hidden * e;  // one [tokens x h] activation
  ProgramBuilder b(ascii_lowercase(c.name) + "_fsdp_layer", c.name + " FSDP layer step (forward + backward)",
                   c.fsdp_degree, {"compute", "ag", "rs"});
  auto name = [](const char* what, const LinearShape& l) {
    return fmt::format("{}_{}", what, to_string(l.linear));
  };
  // Forward: gather qkv's weight, then each linear's GEMM beside the prefetch of the next one's.
  b.collective(name("ag", linears[0]), "ag", CollectiveOp::all_gather, all_gather_bytes(c, linears[0]));
  b.memory("norm1", "compute", 2 * act);  // RMSNorm: read and write the activation
  for (size_t i = 0; i < linears.size(); ++i) {
    const LinearShape& l = linears[i];
    b.gemm(name("fwd", l), "compute", linear_gemm(c, l, GemmPass::forward), {name("ag", l)});
    if (i + 1 < linears.size()) {
      b.collective(name("ag", linears[i + 1]), "ag", CollectiveOp::all_gather,
                   all_gather_bytes(c, linears[i + 1]));
    }
    if (l.linear == LayerLinear::gate_up) {
      // SwiGLU: read gate and up [tokens x 2F], write [tokens x F].
      b.memory("act", "compute", 3 * c.tokens * c.ffn * e);
    }
  }
  // Backward, linears in reverse: re-gather the weight (prefetched beside the previous linear's
  // GEMMs), input and weight gradients, reduce-scatter of the weight gradient (output: its shard).
  const auto rev = [&](size_t j) -> const LinearShape& { return linears[linears.size() - 1 - j]; };
  b.collective(name("reag", rev(0)), "ag", CollectiveOp::all_gather, all_gather_bytes(c, rev(0)),
               {name("fwd", linears.back())});
  for (size_t j = 0; j < linears.size(); ++j) {
    const LinearShape& l = rev(j);
    if (l.linear == LayerLinear::gate_up) b.memory("act_bwd", "compute", 5 * c.tokens * c.ffn * e);
    b.gemm(name("dgrad", l), "compute", linear_gemm(c, l, GemmPass::input_grad), {name("reag", l)});
    if (j + 1 < linears.size()) {
      b.collective(name("reag", rev(j + 1)), "ag", CollectiveOp::all_gather, all_gather_bytes(c, rev(j + 1)));
    }
    b.gemm(name("wgrad", l), "compute", linear_gemm(c, l, GemmPass::weight_grad));
    b.collective(name("rs", l), "rs", CollectiveOp::reduce_scatter, all_gather_bytes(c, l) / c.fsdp_degree,
                 {name("wgrad", l)});
  }
  b.memory("norm1_bwd", "compute", 3 * act);
  return b.done();
}

Program tp_block_program(const TransformerConfig& c, int tp) {
  validate(c);
  const std::vector<LinearShape> linears = layer_linears(c);
  if (tp < 2) config_error(c.name, "tp", fmt::format("tensor-parallel degree must be >= 2, got {}", tp));
  check_gpu_count(tp, SourceLocation{c.name, 0, 0}, "tp");
  const std::int64_t e = dtype_bytes(c.dtype);
  ProgramBuilder b(fmt::format("{}_tp{}_block", ascii_lowercase(c.name), tp),
                   fmt::format("{} transformer block, {}-way tensor parallel (Megatron)", c.name, tp), tp,
                   {"compute", "comm"});
  std::string prev;
  int ar = 0;
  for (const LinearShape& l : linears) {
    // Column-parallel linears (qkv, gate_up) split their outputs, row-parallel ones (attn_out,
    // down) their inputs; an all-reduce of the [tokens x h] output follows each row-parallel one.
    const bool row = l.linear == LayerLinear::attn_out || l.linear == LayerLinear::down;
    LinearShape shard = l;
    std::int64_t& split = row ? shard.in_features : shard.out_features;
    if (split % tp != 0) {
      config_error(c.name, to_string(l.linear), fmt::format("{} features do not split {} ways", split, tp));
    }
    split /= tp;
    const std::string g = fmt::format("{}_fwd", to_string(l.linear));
    b.gemm(g, "compute", linear_gemm(c, shard, GemmPass::forward),
           prev.empty() ? std::vector<std::string>{} : std::vector<std::string>{prev});
    prev.clear();
    if (row) {
      prev = fmt::format("ar{}", ++ar);
      b.collective(prev, "comm", CollectiveOp::all_reduce, c.tokens * c.hidden * e, {g});
    }
  }
  return b.done();
}

MoeConfig mixtral_8x7b() { return MoeConfig{"Mixtral-8x7B", 4096, 14336, 8, 2, 8192, 8, Dtype::bf16}; }

Program moe_layer_program(const MoeConfig& c) {
  if (c.hidden <= 0 || c.expert_ffn <= 0 || c.tokens <= 0 || c.top_k <= 0 || c.experts <= 0) {
    config_error(c.name, "sizes", "hidden, expert_ffn, tokens, top_k and experts must be positive");
  }
  if (c.ep_degree < 2 || c.experts % c.ep_degree != 0) {
    config_error(c.name, "ep_degree",
                 fmt::format("{} experts do not spread evenly over {} GPUs", c.experts, c.ep_degree));
  }
  const std::int64_t e = dtype_bytes(c.dtype);
  const int local = c.experts / c.ep_degree;
  // Balanced routing: this GPU receives tokens x top_k tokens, split evenly over its experts.
  const std::int64_t received = c.tokens * c.top_k;
  const std::int64_t per_expert = received / local;
  const std::int64_t a2a = received * c.hidden * e;
  ProgramBuilder b(ascii_lowercase(c.name) + "_moe_layer",
                   fmt::format("{} MoE layer, {}-way expert parallel, balanced routing", c.name, c.ep_degree),
                   c.ep_degree, {"compute", "comm"});
  b.collective("dispatch", "comm", CollectiveOp::all_to_all, a2a);
  std::string last;
  for (int x = 0; x < local; ++x) {
    const std::vector<std::string> after =
        x == 0 ? std::vector<std::string>{"dispatch"} : std::vector<std::string>{};
    b.gemm(fmt::format("e{}_gate_up", x), "compute",
           Gemm{fmt::format("e{}_gate_up", x), 2 * c.expert_ffn, per_expert, c.hidden, c.dtype, c.name},
           after);
    b.memory(fmt::format("e{}_act", x), "compute", 3 * per_expert * c.expert_ffn * e);
    last = fmt::format("e{}_down", x);
    b.gemm(last, "compute", Gemm{last, c.hidden, per_expert, c.expert_ffn, c.dtype, c.name});
  }
  b.collective("combine", "comm", CollectiveOp::all_to_all, a2a, {last});
  return b.done();
}

Program with_moe_imbalance(Program moe, const std::vector<double>& factors, const SourceLocation& where) {
  const int gpus = moe.gpus.value_or(0);
  if (factors.empty() || gpus <= 0 || gpus % static_cast<int>(factors.size()) != 0) {
    throw InputError(
        where, "imbalance",
        fmt::format("{} factors do not repeat evenly over the layer's {} GPUs", factors.size(), gpus));
  }
  RankImbalance im;
  im.dim = 'n';  // the expert GEMMs' token dimension (moe_layer_program)
  im.location = where;
  for (int r = 0; r < gpus; ++r) {
    const double f = factors[static_cast<size_t>(r) % factors.size()];
    if (!(f > 0) || !std::isfinite(f))
      throw InputError(where, "imbalance", fmt::format("factors must be finite and > 0, got {}", f));
    im.factors.push_back(f);
  }
  for (const auto& k : moe.kernels) {
    if (k.kind != KernelKind::collective) im.kernels.push_back(k.name);
  }
  moe.imbalance.push_back(std::move(im));
  // Every rank's scaled sizes must stay within what a program file may hold (a factor of 1e300
  // would write a program that `run` refuses); the node's CU count plays no part here.
  try {
    check_program_fits(moe, gpus, std::numeric_limits<int>::max());
  } catch (const InputError& e) {
    throw InputError(where, "imbalance", e.problem());
  }
  const std::string imbalanced = fmt::format("routing imbalance {}", fmt::join(factors, "/"));
  if (const size_t at = moe.source.find("balanced routing"); at != std::string::npos) {
    moe.source.replace(at, std::string("balanced routing").size(), imbalanced);
  } else {
    moe.source += ", " + imbalanced;
  }
  return moe;
}

namespace {

TransformerConfig transformer_named(const std::string& model, const SourceLocation& where) {
  if (model.empty() || model == "llama-70b") return llama_70b();
  if (model == "llama-405b") return llama_405b();
  throw InputError(where, "model", fmt::format("unknown model '{}' (llama-70b, llama-405b)", model));
}

}  // namespace

Program generate_program(const std::string& kind, const std::string& model, int tp,
                         const SourceLocation& where) {
  if (kind == "fsdp-layer") return fsdp_layer_program(transformer_named(model, where));
  if (kind == "tp-block") return tp_block_program(transformer_named(model, where), tp);
  if (kind == "dlrm") {
    if (!model.empty() && model != "dlrm-dcnv2") {
      throw InputError(where, "model", fmt::format("unknown DLRM model '{}' (dlrm-dcnv2)", model));
    }
    return dlrm_step_program(mlperf_dlrm_dcnv2());
  }
  if (kind == "moe-layer") {
    if (!model.empty() && model != "mixtral-8x7b") {
      throw InputError(where, "model", fmt::format("unknown MoE model '{}' (mixtral-8x7b)", model));
    }
    return moe_layer_program(mixtral_8x7b());
  }
  throw InputError(where, "kind",
                   fmt::format("unknown program kind '{}' (fsdp-layer, tp-block, moe-layer, dlrm)", kind));
}

}  // namespace c3sim::wl
