// The collective ops' traits (sim/base/collective_op.h): one row per op, every spelling parses back,
// and the buffer and link sizes agree with how NCCL's own tests size each op.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "workloads/collective.h"

namespace c3sim::wl {
namespace {

TEST(CollectiveTraits, EveryOpHasOneRowAndEverySpellingParsesBack) {
  std::set<std::string> spellings;
  std::set<std::size_t> rows;
  for (const CollectiveOp op : kAllCollectiveOps) {
    const CollectiveOpTraits& t = op_traits(op);
    SCOPED_TRACE(t.name);
    EXPECT_EQ(t.op, op);
    EXPECT_TRUE(rows.insert(op_index(op)).second);
    EXPECT_LT(op_index(op), kCollectiveOpCount);
    EXPECT_STREQ(to_string(op), t.name);
    EXPECT_STREQ(short_name(op), t.short_name);
    for (const char* s : {t.name, t.short_name, t.hyphenated, t.joined}) {
      EXPECT_EQ(parse_collective_op(s), op) << s;
      EXPECT_TRUE(spellings.insert(s).second) << s << " names two ops";
    }
    EXPECT_GE(t.link_passes, 1);
  }
  EXPECT_EQ(rows.size(), kCollectiveOpCount);
  EXPECT_FALSE(parse_collective_op("gather"));
}

// Reductions are exactly the ops that sum contributions: the two whose names say so.
TEST(CollectiveTraits, ReductionsAreReduceScatterAndAllReduce) {
  for (const CollectiveOp op : kAllCollectiveOps) {
    const std::string name = to_string(op);
    EXPECT_EQ(op_traits(op).reduces, name.find("reduce") != std::string::npos) << name;
  }
  EXPECT_TRUE(op_traits(CollectiveOp::all_to_all).point_to_point);
  EXPECT_FALSE(op_traits(CollectiveOp::all_gather).point_to_point);
}

// nccl-tests size each op by one buffer S and report bus bandwidth = S / time x a factor that is
// what each rank sends over its links per byte of S (doc/PERFORMANCE.md): all-gather S = the
// output, (n-1)/n; reduce-scatter S = the input (n blocks), (n-1)/n; all-reduce S = the buffer,
// 2(n-1)/n; all-to-all S = the buffer, (n-1)/n. c3sim's `bytes` is the per-GPU output, so the
// traits must give S and the sent bytes as those definitions do.
TEST(CollectiveTraits, SizesMatchNcclTestsBusBandwidthFactors) {
  for (const int n : {2, 4, 8}) {
    const double bytes = 1 << 20;  // per-GPU output, divisible by every n
    SCOPED_TRACE(n);
    const double factor = (n - 1.0) / n;
    // all-gather: output S = bytes, input one shard
    EXPECT_DOUBLE_EQ(input_bytes(CollectiveOp::all_gather, bytes, n), bytes / n);
    EXPECT_DOUBLE_EQ(sent_bytes(CollectiveOp::all_gather, bytes, n), factor * bytes);
    // reduce-scatter: output one block, input S = n blocks
    const double rs_input = input_bytes(CollectiveOp::reduce_scatter, bytes, n);
    EXPECT_DOUBLE_EQ(rs_input, bytes * n);
    EXPECT_DOUBLE_EQ(sent_bytes(CollectiveOp::reduce_scatter, bytes, n), factor * rs_input);
    EXPECT_EQ(output_blocks(CollectiveOp::reduce_scatter, n), 1);
    // all-reduce: input = output = S
    EXPECT_DOUBLE_EQ(input_bytes(CollectiveOp::all_reduce, bytes, n), bytes);
    EXPECT_DOUBLE_EQ(sent_bytes(CollectiveOp::all_reduce, bytes, n), 2 * factor * bytes);
    // all-to-all: input = output = S, all but the own block leaves
    EXPECT_DOUBLE_EQ(input_bytes(CollectiveOp::all_to_all, bytes, n), bytes);
    EXPECT_DOUBLE_EQ(sent_bytes(CollectiveOp::all_to_all, bytes, n), factor * bytes);
    for (const CollectiveOp op :
         {CollectiveOp::all_gather, CollectiveOp::all_to_all, CollectiveOp::all_reduce}) {
      EXPECT_EQ(output_blocks(op, n), n);
      EXPECT_DOUBLE_EQ(block_bytes(op, bytes, n), bytes / n);
    }
  }
  // Integer buffers (c3bench) take the same rule.
  EXPECT_EQ(input_bytes<std::size_t>(CollectiveOp::reduce_scatter, 4096, 4), 16384U);
  EXPECT_EQ(input_bytes<std::size_t>(CollectiveOp::all_gather, 4096, 4), 1024U);
}

TEST(CollectiveTraits, LocalBlockIsTheShardOfTheCopyingOpsOnly) {
  for (const CollectiveOp op : kAllCollectiveOps) {
    const Collective c{op, 4096, CollectiveImpl::cu, {}, false};
    EXPECT_DOUBLE_EQ(local_block_bytes(c, 4), op_traits(op).reduces ? 0.0 : 1024.0) << to_string(op);
    Collective in_place = c;
    in_place.in_place = true;
    EXPECT_EQ(local_block_bytes(in_place, 4), 0.0);
  }
}

}  // namespace
}  // namespace c3sim::wl
