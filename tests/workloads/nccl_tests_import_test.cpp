// nccl-tests output -> iso_coll records.
#include <gtest/gtest.h>

#include "workloads/measurement.h"
#include "workloads/nccl_tests_import.h"

namespace c3sim::wl {
namespace {

// Abridged all_gather_perf output (nccl-tests 2.13 layout, with the redop/root columns).
const char* kLog = R"(# Collective test starting: all_gather_perf
# nThread 1 nGpus 4 minBytes 1048576 maxBytes 4194304 step: 4(factor) warmup iters: 5 iters: 20
#
# Using devices
#  Rank  0 Group  0 Pid   1234 on     node device  0 [0x06] NVIDIA H200
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576         65536     float    none      -1    16.40   63.94   47.95      0    15.90   65.95   49.46      0
     4194304        262144     float    none      -1    38.50  108.94   81.71      0    37.80  110.96   83.22      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 65.58
)";

TEST(NcclTestsImport, RowsBecomeIsoCollRecords) {
  const auto recs = import_nccl_tests(kLog, "ag.log");
  ASSERT_EQ(recs.size(), 2u);
  const auto& r = std::get<IsoCollRecord>(recs[1]);
  EXPECT_EQ(r.op, "all_gather");
  EXPECT_EQ(r.bytes, 4194304);
  EXPECT_EQ(r.gpus, 4);
  EXPECT_EQ(r.impl, "cu");
  EXPECT_DOUBLE_EQ(r.time_us, 38.50);
}

// reduce_scatter_perf prints max(send, receive) bytes = the input, 4 blocks on 4 GPUs
// (nccl-tests' ReduceScatterGetCollByteCount: sendcount = recvcount x nranks); the record holds the
// per-GPU output, one block: 4194304 / 4.
TEST(NcclTestsImport, ReduceScatterSizeIsTheInputAndTheRecordTheOutput) {
  std::string log = kLog;
  log.replace(log.find("all_gather_perf"), 15, "reduce_scatter_perf");
  const auto recs = import_nccl_tests(log, "rs.log");
  ASSERT_EQ(recs.size(), 2u);
  const auto& r = std::get<IsoCollRecord>(recs[1]);
  EXPECT_EQ(r.op, "reduce_scatter");
  EXPECT_EQ(r.bytes, 4194304 / 4);
}

// A reduce-scatter's output is one block: at 8 GPUs a 32-byte row (8 floats in, 1 out per GPU) is
// a record of 4 bytes, which need not split over the GPUs, and reads back as measurement input.
TEST(NcclTestsImport, SmallReduceScatterRowReadsBack) {
  std::string log = kLog;
  log.replace(log.find("all_gather_perf"), 15, "reduce_scatter_perf");
  log.replace(log.find("nGpus 4"), 7, "nGpus 8");
  log.replace(log.find("     1048576         65536"), 26, "          32             1");
  const auto recs = import_nccl_tests(log, "rs.log");
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(std::get<IsoCollRecord>(recs[0]).bytes, 4);
  const auto again = read_measurements_string(to_jsonl(recs), "rs.jsonl");
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(std::get<IsoCollRecord>(again[0]).bytes, 4);
}

TEST(NcclTestsImport, MalformedRowNamesLineAndColumn) {
  std::string bad = kLog;
  bad.replace(bad.find("38.50"), 5, "abcde");
  try {
    (void)import_nccl_tests(bad, "ag.log");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "ag.log");
    EXPECT_EQ(e.where().line, 11);
    EXPECT_EQ(e.key(), "time");
  }
}

TEST(NcclTestsImport, NoTableIsAnInputError) {
  EXPECT_THROW((void)import_nccl_tests("hello\n", "x.log"), InputError);
}

}  // namespace
}  // namespace c3sim::wl
