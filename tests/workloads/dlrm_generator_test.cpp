// The DLRM step generator: kernel counts, byte formulas and GEMM shapes derived here from the MLPerf
// DLRM-dcnv2 reference configuration, the table-wise sharding, the dependencies (each all-to-all
// after its producer, the backward in reverse), the options' errors and a YAML round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "workloads/dlrm_generator.h"
#include "workloads/program_io.h"

namespace c3sim::wl {
namespace {

const SourceLocation kWhere{"<command line>", 0, 0};

int count_kind(const Program& p, KernelKind kind) {
  return static_cast<int>(std::count_if(p.kernels.begin(), p.kernels.end(),
                                        [&](const ProgramKernel& k) { return k.kind == kind; }));
}

TEST(DlrmGenerator, ReferenceKernelCounts) {
  const Program p = dlrm_step_program(mlperf_dlrm_dcnv2());
  // GEMMs: forward bottom 3 + DCN 3 x (down, up) + top 5 = 14; backward top 5 x (dgrad, wgrad) +
  // DCN 3 x 4 + bottom 2 x 2 + bottom_fc0_wgrad (no input gradient of the data) = 27.
  EXPECT_EQ(count_kind(p, KernelKind::gemm), 41);
  // Memory: lookup, concat, 3 mixes, 3 mix backwards, embedding backward.
  EXPECT_EQ(count_kind(p, KernelKind::memory), 9);
  // Collectives: forward and backward all-to-all, two all-reduces.
  EXPECT_EQ(count_kind(p, KernelKind::collective), 4);
  EXPECT_EQ(p.gpus, 8);
  EXPECT_EQ(p.name, "dlrm_dcnv2_8gpu_b8192");
  EXPECT_NO_THROW(check_program_fits(p, 8, 304));
}

TEST(DlrmGenerator, TableWiseShardsOfTheReference) {
  const DlrmConfig c = mlperf_dlrm_dcnv2();
  const auto shards = dlrm_table_shards(c);
  ASSERT_EQ(shards.size(), 8U);
  // The two largest pooling factors (table 20: 100, table 21: 27) go first, each onto an empty GPU.
  EXPECT_EQ(shards[0], std::vector<int>{20});
  EXPECT_EQ(shards[1], std::vector<int>{21});
  std::multiset<int> placed;
  std::vector<std::int64_t> load;
  for (const auto& s : shards) {
    placed.insert(s.begin(), s.end());
    std::int64_t l = 0;
    for (const int t : s) l += c.pooling[static_cast<std::size_t>(t)];
    load.push_back(l);
  }
  std::vector<int> all(26);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(placed, std::multiset<int>(all.begin(), all.end()));  // every table once
  // The other 87 lookups per sample (214 - 100 - 27) spread over 6 GPUs: 14.5 each on average, and
  // greedy placement of factors of at most 12 keeps each within one table's 12 of the least loaded.
  const auto [lo, hi] = std::minmax_element(load.begin() + 2, load.end());
  EXPECT_LE(*hi - *lo, 12);
}

TEST(DlrmGenerator, BytesFromTheFormula) {
  const DlrmConfig c = mlperf_dlrm_dcnv2();
  const Program p = dlrm_step_program(c);
  // Global batch 8 x 8192 = 65536, dim 128, fp32. Rank 0 holds table 20 (pooling 100): the lookup
  // gathers 100 rows and writes 1 pooled row per sample; the backward reads the pooled gradient
  // and reads and writes the 100 rows.
  const std::int64_t row = 65536LL * 128 * 4;
  EXPECT_EQ(p.kernel("emb_lookup")->memory.bytes, row * 101);
  EXPECT_EQ(p.kernel("emb_bwd")->memory.bytes, row * 201);
  // Each all-to-all delivers this GPU's 8192 samples x 26 tables x 128 x 4 B = 104 MiB.
  EXPECT_EQ(p.kernel("a2a_fwd")->collective.bytes, 104LL << 20);
  EXPECT_EQ(p.kernel("a2a_bwd")->collective.bytes, 104LL << 20);
  // Rank 1 (table 21, pooling 27) differs, so it carries its own sizes.
  bool lookup1 = false, bwd1 = false;
  for (const auto& o : p.rank_overrides) {
    if (o.rank != 1) continue;
    if (o.kernel == "emb_lookup") lookup1 = o.bytes == row * 28;
    if (o.kernel == "emb_bwd") bwd1 = o.bytes == row * 55;
  }
  EXPECT_TRUE(lookup1 && bwd1);
  EXPECT_TRUE(p.asymmetric());
  // Gradients: DCN 3 x (3456 x 512 x 2 + 3456) = 10,627,200 and top 3456-1024-1024-512-256-1 with
  // biases 5,245,953 elements: 15,873,153, padded to a multiple of 64 (8 x 8 GPUs) = 15,873,216.
  EXPECT_EQ(p.kernel("ar_top")->collective.bytes, 15873216LL * 4);
  // Bottom 13-512-256-128 with biases: 7,168 + 131,328 + 32,896 = 171,392 = 2,678 x 64.
  EXPECT_EQ(p.kernel("ar_bottom")->collective.bytes, 171392LL * 4);
}

TEST(DlrmGenerator, GemmShapesAsTheBlasSeesThem) {
  const Program p = dlrm_step_program(mlperf_dlrm_dcnv2());
  const auto shape = [&](const char* name) {
    const Gemm& g = p.kernel(name)->gemm;
    return std::vector<std::int64_t>{g.m, g.n, g.k};
  };
  // Interaction width (26 + 1) x 128 = 3456.
  EXPECT_EQ(shape("bottom_fc0"), (std::vector<std::int64_t>{512, 8192, 13}));
  EXPECT_EQ(shape("cross0_down"), (std::vector<std::int64_t>{512, 8192, 3456}));
  EXPECT_EQ(shape("cross0_up"), (std::vector<std::int64_t>{3456, 8192, 512}));
  EXPECT_EQ(shape("top_fc0"), (std::vector<std::int64_t>{1024, 8192, 3456}));
  EXPECT_EQ(shape("top_fc0_dgrad"), (std::vector<std::int64_t>{3456, 8192, 1024}));
  EXPECT_EQ(shape("top_fc0_wgrad"), (std::vector<std::int64_t>{3456, 1024, 8192}));
  EXPECT_EQ(shape("top_fc4"), (std::vector<std::int64_t>{1, 8192, 256}));
  EXPECT_EQ(p.kernel("bottom_fc0_dgrad"), nullptr);  // the dense input is data
  EXPECT_EQ(p.kernel("concat")->memory.bytes, 2LL * 8192 * 3456 * 4);
  EXPECT_EQ(p.kernel("cross1_mix")->memory.bytes, 4LL * 8192 * 3456 * 4);
}

TEST(DlrmGenerator, DependenciesAndBackwardOrder) {
  const Program p = dlrm_step_program(mlperf_dlrm_dcnv2());
  using V = std::vector<std::string>;
  EXPECT_EQ(p.kernel("a2a_fwd")->after, V{"emb_lookup"});
  EXPECT_EQ(p.kernel("concat")->after, (V{"a2a_fwd", "bottom_fc2"}));
  EXPECT_EQ(p.kernel("a2a_bwd")->after, V{"cross0_down_dgrad"});
  EXPECT_EQ(p.kernel("emb_bwd")->after, V{"a2a_bwd"});
  EXPECT_EQ(p.kernel("bottom_fc2_dgrad")->after, V{"cross0_down_dgrad"});
  EXPECT_EQ(p.kernel("ar_top")->after, V{"cross0_down_wgrad"});
  EXPECT_EQ(p.kernel("ar_bottom")->after, V{"bottom_fc0_wgrad"});
  // Streams: lookups on their own, the bottom MLP apart from the top, collectives apart.
  EXPECT_EQ(p.kernel("emb_lookup")->stream, "emb");
  EXPECT_EQ(p.kernel("emb_bwd")->stream, "emb");
  EXPECT_EQ(p.kernel("bottom_fc1")->stream, "bottom");
  EXPECT_EQ(p.kernel("top_fc1")->stream, "top");
  EXPECT_EQ(p.kernel("a2a_fwd")->stream, "a2a");
  EXPECT_EQ(p.kernel("ar_top")->stream, "ar");
  // Launch order: the bottom MLP before the all-to-all it overlaps; the backward from the last top
  // layer to the first cross layer, then the bottom MLP, then the embeddings' all-to-all.
  const auto at = [&](const char* n) { return p.kernel_index(n); };
  EXPECT_LT(at("emb_lookup"), at("bottom_fc0"));
  EXPECT_LT(at("bottom_fc2"), at("a2a_fwd"));
  EXPECT_LT(at("top_fc4"), at("top_fc4_dgrad"));
  EXPECT_LT(at("top_fc4_dgrad"), at("top_fc3_dgrad"));
  EXPECT_LT(at("top_fc0_wgrad"), at("cross2_mix_bwd"));
  EXPECT_LT(at("cross2_down_wgrad"), at("cross1_mix_bwd"));
  EXPECT_LT(at("cross0_down_wgrad"), at("bottom_fc2_dgrad"));
  EXPECT_LT(at("bottom_fc0_wgrad"), at("a2a_bwd"));
  EXPECT_LT(at("a2a_bwd"), at("emb_bwd"));
}

TEST(DlrmGenerator, EqualSharesGiveASymmetricStep) {
  // 16 tables of pooling 4 over 8 GPUs: 2 tables each, the same lookup everywhere.
  const DlrmConfig c =
      dlrm_config({{"tables", "16"}, {"rows", "1000000"}, {"pooling", "4"}, {"batch", "1024"}}, kWhere);
  const Program p = dlrm_step_program(c);
  EXPECT_FALSE(p.asymmetric());
  // 8 x 1024 samples x 128 x 4 B x 2 tables x (4 + 1) rows.
  EXPECT_EQ(p.kernel("emb_lookup")->memory.bytes, 8192LL * 128 * 4 * 2 * 5);
  for (const auto& s : dlrm_table_shards(c)) EXPECT_EQ(s.size(), 2U);
}

TEST(DlrmGenerator, DotInteraction) {
  const DlrmConfig c = dlrm_config({{"interaction", "dot"}, {"dtype", "bf16"}}, kWhere);
  const Program p = dlrm_step_program(c);
  // 27 features: 128 + 27 x 26 / 2 = 479 inputs to the top MLP.
  EXPECT_EQ(c.interaction_width(), 479);
  EXPECT_EQ(p.kernel("top_fc0")->gemm.k, 479);
  EXPECT_EQ(p.kernel("top_fc0")->gemm.dtype, Dtype::bf16);
  // Reads 27 x 128 features, writes 479 per sample, 2 B each.
  EXPECT_EQ(p.kernel("interaction")->memory.bytes, 8192LL * (27 * 128 + 479) * 2);
  EXPECT_EQ(p.kernel("a2a_bwd")->after, std::vector<std::string>{"interaction_bwd"});
  EXPECT_EQ(p.kernel("cross0_down"), nullptr);
}

TEST(DlrmGenerator, NodesShardColumnWiseAndWriteNodes) {
  // 128 nodes x 8 GPUs = 1024 ranks: the reference's 26 tables go column-wise, every GPU 1/1024 of
  // each, so each gathers the global batch's 1/1024 share of every row: its own batch's worth.
  const DlrmConfig c = dlrm_config({{"nodes", "128"}}, kWhere);
  EXPECT_EQ(c.ranks(), 1024);
  EXPECT_EQ(c.sharding, DlrmSharding::column);
  EXPECT_EQ(c.global_batch(), 8192LL * 1024);
  const Program p = dlrm_step_program(c);
  EXPECT_EQ(p.nodes, 128);
  EXPECT_EQ(p.gpus, 8);
  EXPECT_EQ(p.name, "dlrm_dcnv2_128x8gpu_b8192");
  EXPECT_FALSE(p.asymmetric()) << "one rank stands for all 1024";
  // The reference pools 214 rows per sample over 26 tables: 8192 x 128 x 4 B x (214 + 26), and the
  // backward 8192 x 128 x 4 B x (2 x 214 + 26).
  EXPECT_EQ(p.kernel("emb_lookup")->memory.bytes, 8192LL * 128 * 4 * 240);
  EXPECT_EQ(p.kernel("emb_bwd")->memory.bytes, 8192LL * 128 * 4 * 454);
  // FBGEMM's forward grid for the 8192 x 26 bags an average GPU pools, 16 per block.
  EXPECT_EQ(p.kernel("emb_lookup")->memory.workgroups, 8192 * 26 / 16);
  // The all-to-all's output per GPU is as on one node: its batch's pooled rows of every table.
  EXPECT_EQ(p.kernel("a2a_fwd")->collective.bytes, 8192LL * 26 * 128 * 4);
  // The all-reduces are padded to whole elements of 8 x 1024 (fp32).
  EXPECT_EQ(p.kernel("ar_bottom")->collective.bytes % (8 * 1024 * 4), 0);
  const std::string text = programs_to_yaml({p}, dlrm_program_comment(c));
  EXPECT_NE(text.find("nodes: 128"), std::string::npos);
  EXPECT_NE(text.find("1/1024 of every table's columns"), std::string::npos);
  EXPECT_EQ(programs_to_yaml(load_programs_string(text, "dlrm.yaml")), programs_to_yaml({p}));

  // Column-wise on one node is the same per-GPU lookup (weak scaling) and still symmetric; the
  // default there stays table-wise.
  const DlrmConfig one = dlrm_config({{"sharding", "column"}}, kWhere);
  const Program q = dlrm_step_program(one);
  EXPECT_FALSE(q.nodes.has_value());
  EXPECT_EQ(q.name, "dlrm_dcnv2_8gpu_b8192_cw");
  EXPECT_EQ(q.kernel("emb_lookup")->memory.bytes, p.kernel("emb_lookup")->memory.bytes);
  EXPECT_FALSE(q.asymmetric());
  EXPECT_EQ(dlrm_config({}, kWhere).sharding, DlrmSharding::table);

  // Table-wise over 2 nodes with equal tables, a multiple of the 16 ranks: symmetric, allowed.
  const DlrmConfig tw = dlrm_config(
      {{"nodes", "2"}, {"sharding", "table"}, {"tables", "32"}, {"rows", "1000"}, {"pooling", "3"}}, kWhere);
  const Program t = dlrm_step_program(tw);
  EXPECT_EQ(t.nodes, 2);
  EXPECT_FALSE(t.asymmetric());
  // 16 x 8192 samples x 128 x 4 B x 2 tables x (3 + 1) rows.
  EXPECT_EQ(t.kernel("emb_lookup")->memory.bytes, 16LL * 8192 * 128 * 4 * 2 * 4);
}

// Each bad option is an InputError naming that option.
TEST(DlrmGenerator, BadOptionsNameTheOption) {
  const std::vector<std::pair<std::vector<DlrmOption>, std::string>> cases{
      {{{"batch", "0"}}, "batch"},
      {{{"batch", "12x"}}, "batch"},
      {{{"batch", "4096"}, {"batch", "2048"}}, "batch"},
      {{{"gpus", "1"}}, "gpus"},
      {{{"tables", "30"}}, "rows"},  // 30 tables need their rows and pooling
      {{{"tables", "4"}, {"rows", "10"}, {"pooling", "1"}}, "tables"},  // a GPU without a table
      {{{"rows", "1,2,3"}}, "rows"},
      {{{"pooling", "0"}}, "pooling"},
      {{{"dim", "64"}}, "bottom-mlp"},  // the bottom MLP still ends at 128
      {{{"bottom-mlp", "512,,128"}}, "bottom-mlp"},
      {{{"top-mlp", "-1"}}, "top-mlp"},
      {{{"dtype", "tf32"}}, "dtype"},
      {{{"interaction", "cross"}}, "interaction"},
      {{{"nodes", "0"}}, "nodes"},
      {{{"nodes", "2x"}}, "nodes"},
      {{{"sharding", "row"}}, "sharding"},
      // The reference's 26 tables table-wise over 2 x 8 GPUs: unequal lookups on several nodes.
      {{{"nodes", "2"}, {"sharding", "table"}}, "sharding"},
      // 26 tables table-wise over 4 x 8 GPUs: a GPU without a table.
      {{{"nodes", "4"}, {"sharding", "table"}}, "tables"},
      {{{"layers", "3"}}, "layers"},
      // 9 tables x dim 1 x batch 1 = 9 elements do not split over 8 GPUs.
      {{{"tables", "9"}, {"rows", "10"}, {"pooling", "1"}, {"dim", "1"}, {"bottom-mlp", "1"}, {"batch", "1"}},
       "batch"},
      // 2^24 samples x 8 GPUs x 26 tables x (2 x 65536 + 1) rows x 512 B is far beyond 2^50 B.
      {{{"batch", "16777216"}, {"pooling", "65536"}}, "batch"},
      // A 131072-wide layer over 2^20 samples: 2^37 output elements, beyond the GEMM limit 2^36.
      {{{"batch", "1048576"}, {"top-mlp", "131072,1"}}, "top-mlp"},
  };
  for (const auto& [options, key] : cases) {
    try {
      (void)dlrm_config(options, kWhere);
      ADD_FAILURE() << "accepted " << options.front().name << " " << options.front().value;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), key) << e.what();
    }
  }
}

TEST(DlrmGenerator, WritesWhatProgramFilesRead) {
  const DlrmConfig c = mlperf_dlrm_dcnv2();
  const Program p = dlrm_step_program(c);
  const std::string text = programs_to_yaml({p}, dlrm_program_comment(c));
  EXPECT_NE(text.find("mlcommons/training"), std::string::npos);
  EXPECT_NE(text.find("#   GPU 0: tables 20 (pooling 100"), std::string::npos);
  const auto again = load_programs_string(text, "dlrm.yaml");
  ASSERT_EQ(again.size(), 1U);
  EXPECT_EQ(programs_to_yaml(again), programs_to_yaml({p}));
}

}  // namespace
}  // namespace c3sim::wl
