// Table I and Table II exactly as printed in the main paper (seed 003, Section IV-A).
#include <gtest/gtest.h>

#include <set>

#include "workloads/paper_catalog.h"

namespace c3sim::wl {
namespace {

constexpr std::int64_t kMiB = 1 << 20;
constexpr std::int64_t kGiB = 1 << 30;

TEST(PaperCatalog, TableIShapesAsPrinted) {
  struct Row {
    const char* tag;
    const char* shape;
    const char* source;
  };
  const Row rows[] = {
      {"cb1", "8192x8192x8192", "LLaMA-70B"},     {"cb2", "16384x8192x16384", "LLaMA-405B"},
      {"cb3", "16384x16384x8192", "LLaMA-405B"},  {"cb4", "18432x8192x16384", "LLaMA-405B"},
      {"cb5", "106496x8192x16384", "LLaMA-405B"}, {"mb1", "8192x57344x8192", "LLaMA-70B"},
      {"mb2", "16384x106496x8192", "LLaMA-405B"},
  };
  ASSERT_EQ(table1_gemms().size(), std::size(rows));
  for (std::size_t i = 0; i < std::size(rows); ++i) {
    const Gemm& g = table1_gemms()[i];
    EXPECT_EQ(g.tag, rows[i].tag);
    EXPECT_EQ(g.shape_string(), rows[i].shape) << g.tag;
    EXPECT_EQ(g.source, rows[i].source) << g.tag;
    EXPECT_EQ(g.dtype, Dtype::bf16);
    EXPECT_EQ(find_paper_gemm(rows[i].tag)->shape_string(), rows[i].shape);
  }
  EXPECT_FALSE(find_paper_gemm("cb6"));
}

TEST(PaperCatalog, TableIICombinationsAsPrinted) {
  struct Row {
    const char* tag;
    const char* source;
    Taxonomy taxonomy;
  };
  using T = Taxonomy;
  const Row rows[] = {
      {"mb1_896M", "LLaMA-70B", T::g_long},   {"mb2_3.25G", "LLaMA-405B", T::g_long},
      {"mb1_4G", "synthetic", T::g_long},     {"mb1_6G", "synthetic", T::g_long},
      {"cb3_512M", "LLaMA-405B", T::g_long},  {"cb4_512M", "LLaMA-405B", T::g_long},
      {"cb5_1.63G", "LLaMA-405B", T::g_long}, {"cb4_1G", "synthetic", T::g_long},
      {"mb1_13G", "synthetic", T::c_long},    {"cb2_3.25G", "LLaMA-405B", T::c_long},
      {"cb4_2.5G", "synthetic", T::c_long},   {"cb1_896M", "LLaMA-70B", T::c_long},
      {"cb5_20G", "synthetic", T::c_long},    {"mb2_26.5G", "synthetic", T::gc_equal},
      {"cb5_13G", "synthetic", T::gc_equal},
  };
  ASSERT_EQ(table2_combinations().size(), 15u);
  for (std::size_t i = 0; i < std::size(rows); ++i) {
    const C3Combination& c = table2_combinations()[i];
    EXPECT_EQ(c.tag, rows[i].tag);
    EXPECT_EQ(c.source, rows[i].source) << c.tag;
    EXPECT_EQ(c.taxonomy, rows[i].taxonomy) << c.tag;
    EXPECT_EQ(c.tag, c.gemm_tag + "_" + c.size_label);
    EXPECT_TRUE(find_paper_gemm(c.gemm_tag)) << c.tag;
  }
  // "seven are manifested in training of LLaMA-70B and LLaMA-405B"
  int llama = 0;
  for (const auto& c : table2_combinations()) llama += c.source != "synthetic";
  EXPECT_EQ(llama, 7);
}

TEST(PaperCatalog, CollectiveBytesFollowTheReadingOfTableII) {
  auto bytes = [](const char* tag) { return find_paper_combination(tag)->bytes; };
  EXPECT_EQ(bytes("mb1_896M"), 8192LL * 57344 * 2);  // LLaMA-70B gate+up weight
  EXPECT_EQ(bytes("mb1_896M"), 896 * kMiB);
  EXPECT_EQ(bytes("mb2_3.25G"), 16384LL * 106496 * 2);
  EXPECT_EQ(bytes("mb2_3.25G"), 13 * kGiB / 4);        // 3.25 GiB exactly
  EXPECT_EQ(bytes("cb5_1.63G"), 16384LL * 53248 * 2);  // 1.625 GiB, printed rounded
  EXPECT_EQ(bytes("cb5_1.63G"), 13 * kGiB / 8);
  EXPECT_EQ(bytes("cb3_512M"), 16384LL * 16384 * 2);
  EXPECT_EQ(bytes("cb4_512M"), 512 * kMiB);
  EXPECT_EQ(bytes("cb4_1G"), kGiB);
  EXPECT_EQ(bytes("cb4_2.5G"), 5 * kGiB / 2);
  EXPECT_EQ(bytes("mb1_4G"), 4 * kGiB);
  EXPECT_EQ(bytes("mb1_6G"), 6 * kGiB);
  EXPECT_EQ(bytes("mb1_13G"), 13 * kGiB);
  EXPECT_EQ(bytes("cb5_13G"), 13 * kGiB);
  EXPECT_EQ(bytes("cb5_20G"), 20 * kGiB);
  EXPECT_EQ(bytes("mb2_26.5G"), 53 * kGiB / 2);
  EXPECT_EQ(bytes("cb2_3.25G"), bytes("mb2_3.25G"));
  EXPECT_EQ(bytes("cb1_896M"), bytes("mb1_896M"));
}

TEST(PaperCatalog, EveryCollectiveSplitsIntoWholeBf16Shards) {
  for (const auto& c : table2_combinations()) {
    EXPECT_EQ(c.bytes % (std::int64_t{kPaperGpus} * 2), 0) << c.tag;
  }
}

TEST(PaperCatalog, SizeLabelsAsPrinted) {
  for (const auto& c : table2_combinations()) EXPECT_EQ(paper_size_label(c.bytes), c.size_label) << c.tag;
  EXPECT_EQ(paper_size_label(128 * kMiB), "128M");
  EXPECT_EQ(paper_size_label(16 * 1024 + 512), "16.5K");
  EXPECT_EQ(paper_size_label(1000), "1000B");
}

TEST(PaperCatalog, ThirtyScenariosAllGatherThenAllToAll) {
  const auto& all = paper_scenarios();
  ASSERT_EQ(all.size(), 30u);
  std::set<std::string> names;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Scenario& s = all[i];
    const C3Combination& c = table2_combinations()[i % 15];
    const bool ag = i < 15;
    EXPECT_EQ(s.name, c.tag + (ag ? "_ag" : "_a2a"));
    EXPECT_EQ(s.tag, c.tag);
    EXPECT_EQ(s.source, c.source);
    EXPECT_EQ(s.paper_taxonomy, c.taxonomy);
    EXPECT_EQ(s.gpus, 8);
    EXPECT_EQ(s.gemm.tag, c.gemm_tag);
    EXPECT_EQ(s.collective.op, ag ? CollectiveOp::all_gather : CollectiveOp::all_to_all);
    EXPECT_EQ(s.collective.bytes, c.bytes);
    EXPECT_EQ(s.collective.impl, CollectiveImpl::cu);
    EXPECT_TRUE(s.policies.empty());
    names.insert(s.name);
  }
  EXPECT_EQ(names.size(), 30u);
}

TEST(PaperCatalog, LookupByName) {
  const auto s = find_paper_scenario("cb5_1.63G_a2a");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->gemm.shape_string(), "106496x8192x16384");
  EXPECT_EQ(s->collective.op, CollectiveOp::all_to_all);
  EXPECT_EQ(s->paper_taxonomy, Taxonomy::g_long);
  EXPECT_FALSE(find_paper_scenario("cb5_1.63G"));
  EXPECT_FALSE(find_paper_scenario("cb5_1.63G_rs"));
  EXPECT_TRUE(find_paper_combination("cb5_1.63G"));
  EXPECT_FALSE(find_paper_combination("cb5_1.62G"));
}

}  // namespace
}  // namespace c3sim::wl
