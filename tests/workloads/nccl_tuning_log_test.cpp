// NCCL's tuning lines (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=TUNING; src/enqueue.cc of NCCL 2.28):
// parsed from a synthetic log, bad lines named by file and line, and matched to a program's
// collectives in launch order by op and bytes.
#include <gtest/gtest.h>

#include "workloads/nccl_tuning_log.h"

namespace c3sim::wl {
namespace {

// Two ranks' process; rank 0's lines only (NCCL logs them on rank 0 of the communicator),
// between other INFO lines, the init's tuning table and a CRLF ending.
constexpr const char* kTuningLog =
    "node1:4242:4242 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>\n"
    "node1:4242:4300 [0] NCCL INFO   Algorithm   |            Tree            Ring |\n"
    "node1:4242:4242 [0] NCCL INFO AllReduce: 8192 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
    "node1:4242:4242 [0] NCCL INFO AllGather: 1048576 Bytes -> Algo RING proto LL128 "
    "channel{Lo..Hi}={0..15}\r\n"
    "node1:4242:4242 [0] NCCL INFO Broadcast: 64 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
    "node1:4242:4242 [0] NCCL INFO AllReduce: 268435456 Bytes -> Algo NVLS proto SIMPLE "
    "channel{Lo..Hi}={0..15}\n"
    "node1:4242:4242 [0] NCCL INFO ReduceScatter: 4194304 Bytes -> Algo RING proto SIMPLE "
    "channel{Lo..Hi}={8..31}\n"
    "node1:4242:4242 [0] NCCL INFO AllReduce: 8192 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..1}\n";

TEST(NcclTuningLog, ParsesOneRecordPerTuningLine) {
  const std::vector<NcclTuningLine> l = parse_nccl_tuning_log(kTuningLog, "nccl.log");
  ASSERT_EQ(l.size(), 6U);
  EXPECT_EQ(l[0].line, 3);
  EXPECT_EQ(l[0].op, CollectiveOp::all_reduce);
  EXPECT_EQ(l[0].bytes, 8192);
  EXPECT_EQ(l[0].algorithm, CollectiveAlgorithm::ring);
  EXPECT_EQ(l[0].protocol, CollectiveProtocol::ll);
  EXPECT_EQ(l[0].channels, 1);
  EXPECT_EQ(l[1].protocol, CollectiveProtocol::ll128);
  EXPECT_EQ(l[1].channels, 16);
  EXPECT_EQ(l[2].function, "Broadcast");
  EXPECT_FALSE(l[2].op.has_value());
  EXPECT_EQ(l[3].nccl_algorithm, "NVLS");
  EXPECT_FALSE(l[3].algorithm.has_value());
  EXPECT_EQ(l[4].channels, 24);  // channels 8..31
  EXPECT_EQ(l[5].algorithm, CollectiveAlgorithm::tree);
}

TEST(NcclTuningLog, MalformedTuningLinesNameFileLineAndField) {
  const struct {
    std::string line, key;
  } cases[] = {
      {"h:1:1 [0] NCCL INFO AllReduce: 8192 Bytes -> Algo RING proto LL256 channel{Lo..Hi}={0..0}", "proto"},
      {"h:1:1 [0] NCCL INFO AllReduce: 8192 Bytes -> Algo RING proto LL channel{Lo..Hi}={3..1}", "channel"},
      {"h:1:1 [0] NCCL INFO AllReduce: x Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}", "Bytes"},
      {"h:1:1 [0] AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}", "NCCL INFO"},
  };
  for (const auto& c : cases) {
    try {
      (void)parse_nccl_tuning_log("first line\n" + c.line + "\n", "bad.log");
      ADD_FAILURE() << c.line;
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().file, "bad.log");
      EXPECT_EQ(e.where().line, 2);
      EXPECT_EQ(e.key(), c.key) << e.what();
    }
  }
}

ProgramKernel collective(CollectiveOp op, std::int64_t bytes) {
  ProgramKernel k;
  k.kind = KernelKind::collective;
  k.collective.op = op;
  k.collective.bytes = bytes;
  return k;
}

// On 2 ranks: the 1 MiB per-rank all-gather is a 2 MiB gathered output; the 256 MiB all-reduce ran
// NVLS (not modelled: protocol and channels kept, algorithm left to the tuner); the second 8 KiB
// all-reduce takes the log's second 8 KiB line (in order), and a third finds none.
TEST(NcclTuningLog, MatchesCollectivesInOrderByOpAndBytes) {
  std::vector<ProgramKernel> k = {
      collective(CollectiveOp::all_reduce, 8192),      collective(CollectiveOp::all_gather, 2 << 20),
      collective(CollectiveOp::all_reduce, 256 << 20), collective(CollectiveOp::reduce_scatter, 4 << 20),
      collective(CollectiveOp::all_reduce, 8192),      collective(CollectiveOp::all_reduce, 8192),
      collective(CollectiveOp::all_to_all, 8192)};
  k.insert(k.begin() + 1, ProgramKernel{});  // a GEMM between them is skipped
  const NcclLogMatch m = apply_nccl_tuning(k, 2, parse_nccl_tuning_log(kTuningLog, "nccl.log"));
  EXPECT_EQ(m.lines, 6);
  EXPECT_EQ(m.matched, 5);
  EXPECT_EQ(m.unmatched, 2);  // the third 8 KiB all-reduce and the all-to-all
  EXPECT_EQ(m.algorithm_unmodelled, 1);
  EXPECT_EQ(k[0].collective.protocol, CollectiveProtocol::ll);
  EXPECT_EQ(k[0].collective.channels, 1);
  EXPECT_FALSE(k[1].collective.protocol.has_value());  // the GEMM
  EXPECT_EQ(k[2].collective.protocol, CollectiveProtocol::ll128);
  EXPECT_EQ(k[2].collective.channels, 16);
  EXPECT_FALSE(k[3].collective.algorithm.has_value());
  EXPECT_EQ(k[3].collective.protocol, CollectiveProtocol::simple);
  EXPECT_EQ(k[4].collective.channels, 24);
  EXPECT_EQ(k[5].collective.algorithm, CollectiveAlgorithm::tree);
  EXPECT_EQ(k[5].collective.channels, 2);
  EXPECT_FALSE(k[6].collective.protocol.has_value());
  EXPECT_FALSE(k[7].collective.protocol.has_value());
  EXPECT_NE(nccl_log_summary(m).find("5 of 7 collectives matched"), std::string::npos) << nccl_log_summary(m);
}

}  // namespace
}  // namespace c3sim::wl
