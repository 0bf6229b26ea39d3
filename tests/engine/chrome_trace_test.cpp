// The Chrome trace exporter against the trace-event format rules Perfetto's JSON importer
// enforces: known phases, integer pid/tid, non-negative microsecond timestamps, complete events
// with durations, and on any one thread only disjoint or properly nested slices.
#include "sim/engine/chrome_trace.h"

#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace c3sim::engine {
namespace {

using nlohmann::json;

TEST(ChromeTrace, OverlappingCohortsSplitIntoLanesAndNestedSpansShareOne) {
  TraceRecorder tr;
  // Two cohorts on xcd0 that overlap without nesting: [0, 10] and [5, 15] us.
  tr.span("gpu0", "xcd0", "gemm x38", 0, 10'000'000, "gemm");
  tr.span("gpu0", "xcd0", "gemm x14", 5'000'000, 15'000'000, "gemm");
  // A kernel with its queueing time nested inside it, on one stream.
  tr.span("gpu0", "comm_stream", "comm:ag", 0, 20'000'000, "collective");
  tr.span("gpu0", "comm_stream", "waiting for CUs", 0, 4'000'000, "queue");
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
}

TEST(ChromeTrace, EveryEventFollowsTheFormatRules) {
  TraceRecorder tr;
  tr.span("gpu0", "gemm_stream", "gemm:cb1", 5'000'000, 1'900'000'000, "gemm");
  tr.span("gpu0", "sdma3", "to gpu4", 10'000'000, 900'000'000, "dma");
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
  EXPECT_EQ(counter_name("hbm"), "HBM util %");
  EXPECT_EQ(counter_name("llc"), "LLC util %");
  EXPECT_EQ(counter_name("l2_xcd3"), "L2 util % xcd3");
  EXPECT_EQ(counter_name("link_out2"), "link util % out2");
  EXPECT_EQ(counter_name("dma5"), "DMA engine util % sdma5");
}

TEST(ChromeTrace, SameInputSameBytes) {
  TraceRecorder tr;
  tr.span("gpu0", "xcd1", "a", 0, 7, "gemm");
  tr.span("gpu0", "xcd1", "b", 3, 9, "gemm");
  EXPECT_EQ(to_chrome_trace({{"x", &tr}}), to_chrome_trace({{"x", &tr}}));
}

}  // namespace
}  // namespace c3sim::engine
