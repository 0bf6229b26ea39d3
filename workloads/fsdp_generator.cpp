#include "workloads/fsdp_generator.h"

#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "workloads/paper_catalog.h"

namespace c3sim::wl {

namespace {

// Larger dimensions are not a transformer; the cap also keeps every product of two dims (and
// their byte sizes) inside int64.
constexpr std::int64_t kMaxModelDim = std::int64_t{1} << 24;

[[noreturn]] void bad(const TransformerConfig& c, const char* key, const std::string& problem) {
  throw InputError(SourceLocation{c.name.empty() ? "<transformer config>" : c.name, 0, 0}, key, problem);
}

void check_dim(const TransformerConfig& c, const char* key, std::int64_t v) {
  if (v <= 0 || v > kMaxModelDim) bad(c, key, fmt::format("must be in 1..{}, got {}", kMaxModelDim, v));
}

// "LLaMA-70B" -> "llama-70b": scenario names stay lower-case identifiers.
std::string slug(const std::string& name) {
  std::string out;
  for (char ch : name) {
    const auto u = static_cast<unsigned char>(ch);
    out += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
  }
  return out.empty() ? "model" : out;
}

TransformerConfig llama(const char* name, std::int64_t hidden, std::int64_t ffn, std::int64_t heads) {
  TransformerConfig c;
  c.name = name;
  c.hidden = hidden;
  c.ffn = ffn;
  c.heads = heads;
  c.kv_heads = 8;
  c.head_dim = 128;
  c.tokens = 8192;  // Section IV-A: "a total of 8192 tokens in a batch"
  c.fsdp_degree = 8;
  c.dtype = Dtype::bf16;
  return c;
}

}  // namespace

TransformerConfig llama_70b() { return llama("LLaMA-70B", 8192, 28672, 64); }
TransformerConfig llama_405b() { return llama("LLaMA-405B", 16384, 53248, 128); }

void validate(const TransformerConfig& c) {
  check_dim(c, "hidden", c.hidden);
  check_dim(c, "ffn", c.ffn);
  check_dim(c, "heads", c.heads);
  check_dim(c, "kv_heads", c.kv_heads);
  check_dim(c, "tokens", c.tokens);
  if (c.head_dim < 0)
    bad(c, "head_dim", fmt::format("must be positive (or 0 to derive), got {}", c.head_dim));
  if (c.head_dim > kMaxModelDim)
    bad(c, "head_dim", fmt::format("must be at most {}, got {}", kMaxModelDim, c.head_dim));
  if (c.head_dim == 0 && c.hidden % c.heads != 0) {
    bad(c, "head_dim",
        fmt::format("not given and hidden {} is not divisible by heads {}", c.hidden, c.heads));
  }
  if (c.heads % c.kv_heads != 0) {
    bad(c, "kv_heads", fmt::format("heads {} is not a multiple of kv_heads {}", c.heads, c.kv_heads));
  }
  // q, k, v projections' widths must stay inside the same cap as the other dims.
  if (c.resolved_head_dim() * (c.heads + 2 * c.kv_heads) > kMaxModelDim) {
    bad(c, "head_dim", "heads x head_dim is too large");
  }
  if (c.fsdp_degree <= 0 || c.fsdp_degree > 1 << 16) {
    bad(c, "fsdp_degree", fmt::format("must be in 1..65536, got {}", c.fsdp_degree));
  }
}

const char* to_string(LayerLinear l) {
  switch (l) {
    case LayerLinear::qkv: return "qkv";
    case LayerLinear::attn_out: return "attn_out";
    case LayerLinear::gate_up: return "gate_up";
    case LayerLinear::down: return "down";
  }
  return "?";
}

const char* to_string(GemmPass p) {
  switch (p) {
    case GemmPass::forward: return "fwd";
    case GemmPass::weight_grad: return "wgrad";
    case GemmPass::input_grad: return "dgrad";
  }
  return "?";
}

std::vector<LinearShape> layer_linears(const TransformerConfig& c) {
  const std::int64_t d = c.resolved_head_dim();
  return {
      {LayerLinear::qkv, c.hidden, (c.heads + 2 * c.kv_heads) * d},  // 405B: 16384 + 2 x 1024
      {LayerLinear::attn_out, c.heads * d, c.hidden},
      {LayerLinear::gate_up, c.hidden, 2 * c.ffn},
      {LayerLinear::down, c.ffn, c.hidden},
  };
}

Gemm linear_gemm(const TransformerConfig& c, const LinearShape& l, GemmPass pass) {
  Gemm g;
  g.tag = fmt::format("{}_{}", to_string(l.linear), to_string(pass));
  g.dtype = c.dtype;
  g.source = c.name;
  switch (pass) {
    case GemmPass::forward:  // y^T = W x^T
      g.m = l.out_features;
      g.n = c.tokens;
      g.k = l.in_features;
      break;
    case GemmPass::weight_grad:  // dW^T = x^T dy
      g.m = l.in_features;
      g.n = l.out_features;
      g.k = c.tokens;
      break;
    case GemmPass::input_grad:  // dx^T = W^T dy^T
      g.m = l.in_features;
      g.n = c.tokens;
      g.k = l.out_features;
      break;
  }
  return g;
}

std::int64_t all_gather_bytes(const TransformerConfig& c, const LinearShape& l) {
  const std::int64_t elements = l.in_features * l.out_features;
  const std::int64_t degree = c.fsdp_degree;
  const std::int64_t padded = (elements + degree - 1) / degree * degree;
  return padded * dtype_bytes(c.dtype);
}

std::vector<FsdpGemm> fsdp_gemms(const TransformerConfig& c) {
  validate(c);
  std::vector<FsdpGemm> out;
  for (const LinearShape& l : layer_linears(c)) {
    for (GemmPass p : {GemmPass::forward, GemmPass::weight_grad, GemmPass::input_grad}) {
      out.push_back(FsdpGemm{l.linear, p, linear_gemm(c, l, p)});
    }
  }
  return out;
}

std::vector<FsdpAllGather> fsdp_all_gathers(const TransformerConfig& c) {
  validate(c);
  std::vector<FsdpAllGather> out;
  for (const LinearShape& l : layer_linears(c))
    out.push_back(FsdpAllGather{l.linear, all_gather_bytes(c, l)});
  return out;
}

std::vector<FsdpOverlap> fsdp_overlaps(const TransformerConfig& c) {
  validate(c);
  const std::vector<LinearShape> linears = layer_linears(c);
  std::vector<FsdpOverlap> out;
  for (std::size_t i = 0; i < linears.size(); ++i) {
    const LinearShape& next = linears[(i + 1) % linears.size()];
    out.push_back(FsdpOverlap{
        FsdpGemm{linears[i].linear, GemmPass::forward, linear_gemm(c, linears[i], GemmPass::forward)},
        FsdpAllGather{next.linear, all_gather_bytes(c, next)}});
  }
  for (const LinearShape& l : linears) {
    out.push_back(
        FsdpOverlap{FsdpGemm{l.linear, GemmPass::weight_grad, linear_gemm(c, l, GemmPass::weight_grad)},
                    FsdpAllGather{l.linear, all_gather_bytes(c, l)}});
  }
  return out;
}

Scenario make_fsdp_scenario(const TransformerConfig& c, const FsdpOverlap& o, CollectiveOp op) {
  Scenario s;
  const std::string size = paper_size_label(o.all_gather.bytes);
  s.tag = fmt::format("{}_{}_{}_{}", slug(c.name), to_string(o.gemm.linear), to_string(o.gemm.pass), size);
  s.name = fmt::format("{}_{}", s.tag, short_name(op));
  s.source = c.name;
  s.gpus = c.fsdp_degree;
  s.gemm = o.gemm.gemm;
  s.collective.op = op;
  s.collective.bytes = o.all_gather.bytes;
  s.collective.impl = CollectiveImpl::cu;
  return s;
}

}  // namespace c3sim::wl
