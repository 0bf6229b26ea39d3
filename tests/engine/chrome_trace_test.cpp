// The Chrome trace exporter against the trace-event format rules Perfetto's JSON importer
// enforces: known phases, integer pid/tid, non-negative microsecond timestamps, complete events
// with durations, and on any one thread only disjoint or properly nested slices.
#include "sim/engine/chrome_trace.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace c3sim::engine {
namespace {

using nlohmann::json;

TEST(ChromeTrace, OverlappingCohortsSplitIntoLanesAndNestedSpansShareOne) {
  TraceRecorder tr;
  // Two cohorts on xcd0 that overlap without nesting: [0, 10] and [5, 15] us.
  tr.span("gpu0", TraceTrack::xcd(0), "gemm x38", 0, 10'000'000, {KernelKind::gemm});
  tr.span("gpu0", TraceTrack::xcd(0), "gemm x14", 5'000'000, 15'000'000, {KernelKind::gemm});
  // A kernel with its queueing time nested inside it, on one stream.
  tr.span("gpu0", TraceTrack::stream("comm_stream"), "comm:ag", 0, 20'000'000, {KernelKind::cu_collective});
  tr.span("gpu0", TraceTrack::stream("comm_stream"), "waiting for CUs", 0, 4'000'000,
          {KernelKind::cu_collective, /*waiting=*/true});
  const json doc = json::parse(to_chrome_trace({{"run", &tr}}));
  std::map<std::string, int> tid_of;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") tid_of[e["args"]["name"]] = e["tid"];
  }
  ASSERT_TRUE(tid_of.contains("xcd0"));
  ASSERT_TRUE(tid_of.contains("xcd0 #2"));          // the second cohort cannot nest in the first
  EXPECT_FALSE(tid_of.contains("comm_stream #2"));  // the wait nests inside its kernel
  // Streams come before XCDs (sort index = tid).
  EXPECT_LT(tid_of["comm_stream"], tid_of["xcd0"]);
  // Categories come from the span's kind: the wait is "queue", the CU collective "collective".
  std::map<std::string, std::string> cat_of;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") cat_of[e["name"]] = e["cat"];
  }
  EXPECT_EQ(cat_of["waiting for CUs"], "queue");
  EXPECT_EQ(cat_of["comm:ag"], "collective");
  EXPECT_EQ(cat_of["gemm x38"], "gemm");
}

TEST(ChromeTrace, TracksAreOrderedByKindNotByName) {
  TraceRecorder tr;
  // Names chosen so that name order would be wrong: a stream called "zz", an XCD track named
  // by kind with index 10 before index 9, a copy engine and the host.
  tr.span("gpu0", TraceTrack::dma_engine(0), "to gpu1", 0, 5, {KernelKind::dma_transfer});
  tr.span("gpu0", TraceTrack::xcd(10), "a", 0, 5, {KernelKind::gemm});
  tr.span("gpu0", TraceTrack::xcd(9), "b", 0, 5, {KernelKind::gemm});
  tr.span("gpu0", TraceTrack::host(), "dma collective", 0, 5, {KernelKind::dma_transfer});
  tr.span("gpu0", TraceTrack::stream("zz"), "k", 0, 5, {KernelKind::memory});
  const json doc = json::parse(to_chrome_trace({{"", &tr}}));
  std::vector<std::string> order;  // thread names in tid order (tids are assigned in sort order)
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") order.push_back(e["args"]["name"]);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"zz", "host", "xcd9", "xcd10", "sdma0"}));
}

TEST(ChromeTrace, EveryEventFollowsTheFormatRules) {
  TraceRecorder tr;
  tr.span("gpu0", TraceTrack::stream("gemm_stream"), "gemm:cb1", 5'000'000, 1'900'000'000,
          {KernelKind::gemm});
  tr.span("gpu0", TraceTrack::dma_engine(3), "to gpu4", 10'000'000, 900'000'000, {KernelKind::dma_transfer});
  const json doc = json::parse(to_chrome_trace({{"cb1 / dma", &tr}}));
  ASSERT_TRUE(doc.contains("traceEvents"));
  for (const auto& e : doc["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string());
    const std::string ph = e["ph"];
    ASSERT_TRUE(ph == "M" || ph == "X" || ph == "C") << e.dump();
    ASSERT_TRUE(e["pid"].is_number_integer());
    ASSERT_TRUE(e["tid"].is_number_integer());
    ASSERT_TRUE(e["name"].is_string());
    if (ph == "X") {
      ASSERT_GE(e["ts"].get<double>(), 0.0);
      ASSERT_GE(e["dur"].get<double>(), 0.0);
    }
    if (ph == "M") {
      ASSERT_TRUE(e["args"].is_object());
    }
  }
  EXPECT_EQ(doc["traceEvents"][0]["args"]["name"], "cb1 / dma / gpu0");
  // ps -> us: 5,000,000 ps is 5 us.
  bool found = false;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "gemm:cb1") {
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 5.0);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 1895.0);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(ChromeTrace, CounterNamesSayWhatTheResourceIs) {
  // Titles come from the kind and the instance, whatever the resource's name says.
  EXPECT_EQ(counter_name({"mem", ResourceKind::hbm, ""}), "HBM util %");
  EXPECT_EQ(counter_name({"llc", ResourceKind::llc, ""}), "LLC util %");
  EXPECT_EQ(counter_name({"l2_xcd3", ResourceKind::l2, "xcd3"}), "L2 util % xcd3");
  EXPECT_EQ(counter_name({"link_out2", ResourceKind::link, "out2"}), "link util % out2");
  EXPECT_EQ(counter_name({"dma5", ResourceKind::dma_engine, "sdma5"}), "DMA engine util % sdma5");
  EXPECT_EQ(counter_name({"hbm_lookalike", ResourceKind::other, ""}), "hbm_lookalike util %");
}

TEST(ChromeTrace, SameInputSameBytes) {
  TraceRecorder tr;
  tr.span("gpu0", TraceTrack::xcd(1), "a", 0, 7, {KernelKind::gemm});
  tr.span("gpu0", TraceTrack::xcd(1), "b", 3, 9, {KernelKind::gemm});
  EXPECT_EQ(to_chrome_trace({{"x", &tr}}), to_chrome_trace({{"x", &tr}}));
}

}  // namespace
}  // namespace c3sim::engine
