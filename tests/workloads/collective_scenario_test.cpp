// Names round-trip through their parsers; the taxonomy thresholds are the paper's 115%.
#include <gtest/gtest.h>

#include <limits>

#include "workloads/collective.h"
#include "workloads/gemm.h"
#include "workloads/scenario.h"

namespace c3sim::wl {
namespace {

TEST(Collective, NamesRoundTripAndAliasesParse) {
  for (CollectiveOp op : {CollectiveOp::all_gather, CollectiveOp::all_to_all, CollectiveOp::reduce_scatter,
                          CollectiveOp::all_reduce}) {
    EXPECT_EQ(parse_collective_op(to_string(op)), op);
    EXPECT_EQ(parse_collective_op(short_name(op)), op);
  }
  EXPECT_EQ(parse_collective_op("all-gather"), CollectiveOp::all_gather);
  EXPECT_EQ(parse_collective_op("alltoall"), CollectiveOp::all_to_all);
  EXPECT_EQ(parse_collective_op("a2a"), CollectiveOp::all_to_all);
  EXPECT_FALSE(parse_collective_op("gather"));
  EXPECT_FALSE(parse_collective_op(""));
  EXPECT_STREQ(short_name(CollectiveOp::all_to_all), "a2a");
  for (CollectiveImpl impl : {CollectiveImpl::cu, CollectiveImpl::dma, CollectiveImpl::vendor_zero_cta}) {
    EXPECT_EQ(parse_collective_impl(to_string(impl)), impl);
  }
  EXPECT_EQ(parse_collective_impl("vendor-zero-cta"), CollectiveImpl::vendor_zero_cta);
  EXPECT_FALSE(parse_collective_impl("rccl"));
}

TEST(Gemm, ShapeStringAndCounts) {
  Gemm g;
  g.m = 8192;
  g.n = 57344;
  g.k = 8192;
  EXPECT_EQ(g.shape_string(), "8192x57344x8192");
  EXPECT_DOUBLE_EQ(g.flops(), 2.0 * 8192.0 * 57344.0 * 8192.0);
  // bf16: 2 B x (A 8192x8192 + B 8192x57344 + C 8192x57344)
  EXPECT_DOUBLE_EQ(g.min_bytes(), 2.0 * (8192.0 * 8192 + 8192.0 * 57344 * 2));
}

TEST(Taxonomy, ClassifiesAtThePapersThresholds) {
  EXPECT_EQ(classify(116, 100), Taxonomy::g_long);
  EXPECT_EQ(classify(100, 116), Taxonomy::c_long);
  EXPECT_EQ(classify(114, 100), Taxonomy::gc_equal);
  EXPECT_EQ(classify(100, 114), Taxonomy::gc_equal);
  EXPECT_EQ(classify(100, 100), Taxonomy::gc_equal);
  EXPECT_EQ(classify(0, 0), Taxonomy::gc_equal);
  EXPECT_EQ(classify(1, 0), Taxonomy::g_long);
  // Exactly 1.15x is "within 15%": GC-equal. (2.0 * 1.15 == 2.3 in double.)
  EXPECT_EQ(classify(2.3, 2.0), Taxonomy::gc_equal);
  EXPECT_EQ(classify(2.0, 2.3), Taxonomy::gc_equal);
}

TEST(Taxonomy, RejectsImpossibleTimes) {
  EXPECT_THROW((void)classify(-1, 1), ModelError);
  EXPECT_THROW((void)classify(1, std::numeric_limits<double>::quiet_NaN()), ModelError);
  EXPECT_THROW((void)classify(std::numeric_limits<double>::infinity(), 1), ModelError);
}

TEST(Taxonomy, NamesRoundTrip) {
  for (Taxonomy t : {Taxonomy::g_long, Taxonomy::c_long, Taxonomy::gc_equal}) {
    EXPECT_EQ(parse_taxonomy(to_string(t)), t);
  }
  EXPECT_STREQ(to_string(Taxonomy::gc_equal), "GC-equal");
  EXPECT_EQ(parse_taxonomy("c_long"), Taxonomy::c_long);
  EXPECT_FALSE(parse_taxonomy("long"));
}

TEST(Scenario, ShardBytes) {
  Collective c;
  c.bytes = 896LL << 20;
  EXPECT_EQ(shard_bytes(c, 8), 112LL << 20);
  EXPECT_THROW((void)shard_bytes(c, 0), ModelError);
}

}  // namespace
}  // namespace c3sim::wl
