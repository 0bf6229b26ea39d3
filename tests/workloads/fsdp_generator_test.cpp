// The generator reproduces every LLaMA row of Tables I and II from the published model
// dimensions; the expected shapes are the paper's, not the generator's output copied back.
#include <gtest/gtest.h>

#include <algorithm>

#include "workloads/fsdp_generator.h"
#include "workloads/paper_catalog.h"

namespace c3sim::wl {
namespace {

const FsdpGemm* find(const std::vector<FsdpGemm>& gemms, LayerLinear l, GemmPass p) {
  for (const auto& g : gemms) {
    if (g.linear == l && g.pass == p) return &g;
  }
  return nullptr;
}

std::string shape(const TransformerConfig& c, LayerLinear l, GemmPass p) {
  const auto gemms = fsdp_gemms(c);
  const FsdpGemm* g = find(gemms, l, p);
  return g ? g->gemm.shape_string() : "missing";
}

TEST(FsdpGenerator, LlamaConfigs) {
  const TransformerConfig a = llama_70b();
  EXPECT_EQ(a.hidden, 8192);
  EXPECT_EQ(a.ffn, 28672);
  EXPECT_EQ(a.heads, 64);
  EXPECT_EQ(a.kv_heads, 8);
  EXPECT_EQ(a.resolved_head_dim(), 128);
  EXPECT_EQ(a.tokens, 8192);
  EXPECT_EQ(a.fsdp_degree, 8);
  const TransformerConfig b = llama_405b();
  EXPECT_EQ(b.hidden, 16384);
  EXPECT_EQ(b.ffn, 53248);
  EXPECT_EQ(b.heads, 128);
  EXPECT_EQ(b.resolved_head_dim(), 128);
}

TEST(FsdpGenerator, LayerLinears405B) {
  const auto ls = layer_linears(llama_405b());
  ASSERT_EQ(ls.size(), 4u);
  EXPECT_EQ(ls[0].out_features, 16384 + 2 * 8 * 128);  // fused QKV: 18432
  EXPECT_EQ(ls[1].in_features, 16384);
  EXPECT_EQ(ls[2].out_features, 2 * 53248);  // fused gate+up
  EXPECT_EQ(ls[3].in_features, 53248);
}

TEST(FsdpGenerator, ReproducesTableIOrientations) {
  using L = LayerLinear;
  using P = GemmPass;
  const auto a = llama_70b();
  const auto b = llama_405b();
  EXPECT_EQ(shape(a, L::attn_out, P::forward), "8192x8192x8192");        // cb1
  EXPECT_EQ(shape(a, L::gate_up, P::weight_grad), "8192x57344x8192");    // mb1
  EXPECT_EQ(shape(b, L::attn_out, P::forward), "16384x8192x16384");      // cb2
  EXPECT_EQ(shape(b, L::attn_out, P::weight_grad), "16384x16384x8192");  // cb3
  EXPECT_EQ(shape(b, L::qkv, P::forward), "18432x8192x16384");           // cb4
  EXPECT_EQ(shape(b, L::gate_up, P::forward), "106496x8192x16384");      // cb5
  EXPECT_EQ(shape(b, L::gate_up, P::weight_grad), "16384x106496x8192");  // mb2
  // The forward of mb1's linear is the transposed problem: same FLOPs, not Table I's shape.
  EXPECT_EQ(shape(a, L::gate_up, P::forward), "57344x8192x8192");
  EXPECT_EQ(shape(b, L::down, P::input_grad), "53248x8192x16384");
}

TEST(FsdpGenerator, EveryTableIGemmIsGenerated) {
  std::vector<FsdpGemm> all = fsdp_gemms(llama_70b());
  const auto more = fsdp_gemms(llama_405b());
  all.insert(all.end(), more.begin(), more.end());
  for (const Gemm& paper : table1_gemms()) {
    const bool found = std::any_of(all.begin(), all.end(), [&](const FsdpGemm& g) {
      return g.gemm.shape_string() == paper.shape_string() && g.gemm.source == paper.source;
    });
    EXPECT_TRUE(found) << paper.tag;
  }
}

TEST(FsdpGenerator, AllGatherSizesAreFullWeights) {
  const auto a = fsdp_all_gathers(llama_70b());
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[2].linear, LayerLinear::gate_up);
  EXPECT_EQ(a[2].bytes, 8192LL * 57344 * 2);  // 896M
  const auto b = fsdp_all_gathers(llama_405b());
  EXPECT_EQ(b[1].bytes, 16384LL * 16384 * 2);   // attn_out: 512M
  EXPECT_EQ(b[2].bytes, 16384LL * 106496 * 2);  // gate_up: 3.25G
  EXPECT_EQ(b[3].bytes, 16384LL * 53248 * 2);   // down: 1.63G
  for (const auto& g : b) EXPECT_EQ(g.bytes % std::int64_t{16}, 0);
}

TEST(FsdpGenerator, AllGatherPadsToTheShardingDegree) {
  TransformerConfig c = llama_70b();
  c.hidden = 9;  // qkv weight 9 x (64+16)*128 elements: already a multiple of 8
  c.head_dim = 128;
  c.ffn = 3;  // gate_up 9 x 6 = 54 elements -> padded to 56
  EXPECT_EQ(all_gather_bytes(c, layer_linears(c)[2]), 56 * 2);
}

// Table II's seven LLaMA-sourced rows all come out of fsdp_overlaps().
TEST(FsdpGenerator, DerivesEveryLlamaTableIIRow) {
  std::vector<Scenario> generated;
  for (const TransformerConfig& c : {llama_70b(), llama_405b()}) {
    for (const FsdpOverlap& o : fsdp_overlaps(c)) generated.push_back(make_fsdp_scenario(c, o));
  }
  int llama_rows = 0;
  for (const C3Combination& row : table2_combinations()) {
    if (row.source == "synthetic") continue;
    ++llama_rows;
    const Gemm paper = *find_paper_gemm(row.gemm_tag);
    const bool found = std::any_of(generated.begin(), generated.end(), [&](const Scenario& s) {
      return s.gemm.shape_string() == paper.shape_string() && s.collective.bytes == row.bytes &&
             s.source == row.source && s.collective.op == CollectiveOp::all_gather;
    });
    EXPECT_TRUE(found) << row.tag;
  }
  EXPECT_EQ(llama_rows, 7);
}

TEST(FsdpGenerator, OverlapRules) {
  const auto overlaps = fsdp_overlaps(llama_405b());
  ASSERT_EQ(overlaps.size(), 8u);
  // Forward GEMM i overlaps the prefetch of weight i+1; down wraps to the next layer's qkv.
  EXPECT_EQ(overlaps[0].gemm.linear, LayerLinear::qkv);
  EXPECT_EQ(overlaps[0].all_gather.linear, LayerLinear::attn_out);
  EXPECT_EQ(overlaps[3].gemm.linear, LayerLinear::down);
  EXPECT_EQ(overlaps[3].all_gather.linear, LayerLinear::qkv);
  for (std::size_t i = 4; i < 8; ++i) {
    EXPECT_EQ(overlaps[i].gemm.pass, GemmPass::weight_grad);
    EXPECT_EQ(overlaps[i].gemm.linear, overlaps[i].all_gather.linear);
  }
}

TEST(FsdpGenerator, ScenarioNaming) {
  const TransformerConfig c = llama_70b();
  const auto overlaps = fsdp_overlaps(c);
  const Scenario s = make_fsdp_scenario(c, overlaps[6], CollectiveOp::all_to_all);  // gate_up wgrad
  EXPECT_EQ(s.name, "llama-70b_gate_up_wgrad_896M_a2a");
  EXPECT_EQ(s.gpus, 8);
  EXPECT_EQ(s.gemm.tag, "gate_up_wgrad");
  EXPECT_EQ(s.collective.op, CollectiveOp::all_to_all);
  // 1.625 GiB is labelled as the paper prints it.
  const TransformerConfig big = llama_405b();
  EXPECT_EQ(make_fsdp_scenario(big, fsdp_overlaps(big)[2]).name, "llama-405b_gate_up_fwd_1.63G_ag");
}

TEST(FsdpGenerator, RejectsBadConfigs) {
  auto expect_bad = [](const TransformerConfig& c, const char* key) {
    try {
      validate(c);
      ADD_FAILURE() << "accepted bad " << key;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), key);
      EXPECT_EQ(e.where().file, c.name);
    }
  };
  TransformerConfig c = llama_70b();
  c.hidden = 0;
  expect_bad(c, "hidden");
  c = llama_70b();
  c.ffn = -1;
  expect_bad(c, "ffn");
  c = llama_70b();
  c.kv_heads = 7;  // 64 heads are not a multiple of 7
  expect_bad(c, "kv_heads");
  c = llama_70b();
  c.head_dim = 0;
  c.heads = 3;  // 8192 / 3 is not whole
  expect_bad(c, "head_dim");
  c = llama_70b();
  c.head_dim = -2;
  expect_bad(c, "head_dim");
  c = llama_70b();
  c.tokens = 0;
  expect_bad(c, "tokens");
  c = llama_70b();
  c.fsdp_degree = 0;
  expect_bad(c, "fsdp_degree");
  c = llama_70b();
  c.hidden = (1LL << 24) + 1;
  expect_bad(c, "hidden");
  c = llama_70b();
  c.head_dim = 0;  // derived: 8192 / 64 = 128
  EXPECT_NO_THROW(validate(c));
  EXPECT_EQ(c.resolved_head_dim(), 128);
  c.hidden = 0;
  EXPECT_THROW((void)fsdp_gemms(c), InputError);
  EXPECT_THROW((void)fsdp_all_gathers(c), InputError);
  EXPECT_THROW((void)fsdp_overlaps(c), InputError);
}

}  // namespace
}  // namespace c3sim::wl
