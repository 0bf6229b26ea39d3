// PyTorch profiler trace import on bad input: every value a program cannot carry is an
// InputError naming the trace's event (traceEvents[i]), its line and the field, at parse time;
// what imports loads back as a program; the reader's bounds (depth, events, bytes) hold.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workloads/json_event_stream.h"
#include "workloads/program_io.h"
#include "workloads/torch_trace_import.h"

namespace c3sim::wl {
namespace {

// A trace with one event per line after the two header lines: event i is on line i + 3.
std::string trace_of(const std::vector<std::string>& events, const std::string& header = "") {
  std::string s = "{\"schemaVersion\": 1," + header + "\n\"traceEvents\": [\n";
  for (size_t i = 0; i < events.size(); ++i) s += events[i] + (i + 1 < events.size() ? ",\n" : "\n");
  return s + "]}\n";
}

std::string launch(int corr, double ts) {
  return R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "tid": 1, "ts": )" +
         std::to_string(ts) + R"(, "dur": 2, "args": {"correlation": )" + std::to_string(corr) + "}}";
}

std::string kernel(const std::string& name, int corr, double ts, const std::string& extra_args = "") {
  return R"({"ph": "X", "cat": "kernel", "name": ")" + name + R"(", "tid": 7, "ts": )" + std::to_string(ts) +
         R"(, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": )" + std::to_string(corr) +
         extra_args + "}}";
}

std::string comm_op(const std::string& args) {
  return R"({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "tid": 1, "ts": 0, "dur": 100, "args": {)" +
         args + "}}";
}

std::string mm_op(const std::string& dims) {
  return R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "tid": 1, "ts": 0, "dur": 100, "args": {"Input Dims": )" +
         dims + R"(, "Input type": ["c10::BFloat16", "c10::BFloat16"]}})";
}

// The InputError of importing `text`, or a failure when it imports.
InputError import_error(const std::string& text, const TorchImportOptions& o = {}) {
  try {
    (void)import_torch_trace(text, "t.json", o);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "imported:\n" << text;
  return InputError(SourceLocation{}, "", "");
}

void expect_names(const InputError& e, int line, const std::string& key) {
  EXPECT_EQ(e.where().file, "t.json");
  EXPECT_EQ(e.where().line, line) << e.what();
  EXPECT_EQ(e.key(), key) << e.what();
}

const std::string kAllGather = "ncclDevKernel_AllGather_RING_LL";

TEST(TorchTraceBadInput, GroupSizeBeyondIntIsRefusedNotTruncated) {
  // 2^32 + 2 became 2 through a cast to int: a plausible all-gather over 2 GPUs.
  const std::string t = trace_of({comm_op(R"("In msg nelems": 8, "Out msg nelems": 16, "dtype": "Float", )"
                                          R"("Group size": 4294967298)"),
                                  launch(1, 10), kernel(kAllGather, 1, 20)});
  const InputError e = import_error(t);
  expect_names(e, 3, "traceEvents[0].args.Group size");
  EXPECT_NE(std::string(e.what()).find("4294967298"), std::string::npos) << e.what();
}

TEST(TorchTraceBadInput, GroupOfTooManyGpusIsRefused) {
  const std::string t = trace_of({launch(1, 10),
                                  comm_op(R"("In msg nelems": 8, "Out msg nelems": 800000, )"
                                          R"("dtype": "Float", "Group size": 100000)"),
                                  kernel(kAllGather, 1, 20)});
  expect_names(import_error(t), 4, "traceEvents[1].args.Group size");
}

TEST(TorchTraceBadInput, GemmSideBeyondTheModelIsRefused) {
  // 2^40 x 2^40 output: m*n overflowed nothing before, but the program's reader refuses the side.
  const std::string t = trace_of({mm_op("[[1099511627776, 64], [64, 1099511627776]]"), launch(1, 10),
                                  kernel("sm90_xmma_gemm_bf16", 1, 20)});
  expect_names(import_error(t), 3, "traceEvents[0].args.Input Dims");
  // A product of leading dimensions that overflows int64 (2^40 x 2^40 x 2^40) is the same error.
  const std::string folded = trace_of({mm_op("[[1099511627776, 1099511627776, 1099511627776, 64], [64, 8]]"),
                                       launch(1, 10), kernel("sm90_xmma_gemm_bf16", 1, 20)});
  expect_names(import_error(folded), 3, "traceEvents[0].args.Input Dims");
}

TEST(TorchTraceBadInput, ControlCharactersInKernelNamesAreRefusedAndCommentsStayComments) {
  expect_names(import_error(trace_of({launch(1, 10), kernel("bad\\u0007name", 1, 20)})), 4,
               "traceEvents[1].name");
  // A newline in a collective name quoted in an `unmapped` comment would end the comment and put
  // trace text into the YAML; it is written as '?' and the program loads back.
  const std::string t = trace_of({comm_op(R"("In msg nelems": 8, "Out msg nelems": 16, "dtype": "Float", )"
                                          R"("Group size": 2, "Collective name": "x\nprograms: [")"),
                                  launch(1, 10), kernel("ncclDevKernel_Broadcast", 1, 20)});
  const TorchImportResult r = import_torch_trace(t, "t.json", {});
  const std::string yaml = torch_import_yaml(r, "dir\nwith newline/t.json");
  EXPECT_EQ(yaml.find("\nprograms: [\n"), std::string::npos);
  EXPECT_EQ(load_programs_string(yaml, "imported.yaml").size(), 1U);
  TorchImportOptions o;
  o.name = "a\tb";
  EXPECT_EQ(import_error(trace_of({launch(1, 10), kernel("k", 1, 20)}), o).key(), "--name");
}

TEST(TorchTraceBadInput, NegativeNonFiniteAndNonNumericTimesAreRefused) {
  const std::string neg = R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 20, "dur": -5, "args": {}})";
  expect_names(import_error(trace_of({neg})), 3, "traceEvents[0].dur");
  const std::string nan = R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 20, "dur": "NaN", "args": {}})";
  expect_names(import_error(trace_of({nan})), 3, "traceEvents[0].dur");
  // A number beyond a double stops the parser itself, at its line and column.
  const std::string inf = R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 20, "dur": 1e999, "args": {}})";
  const InputError overflow = import_error(trace_of({inf}));
  expect_names(overflow, 3, "");
  EXPECT_EQ(overflow.problem(), "not valid JSON: number overflow parsing '1e999'");
  const std::string far = R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1e308, "dur": 1, "args": {}})";
  expect_names(import_error(trace_of({far})), 3, "traceEvents[0].ts");
  const std::string no_ts = R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "args": {}})";
  expect_names(import_error(trace_of({no_ts})), 3, "traceEvents[0].ts");
}

TEST(TorchTraceBadInput, HostTimeBeyondAProgramIsRefused) {
  // Two launches 10^15 us apart (both valid timestamps): a gap no program may hold.
  const std::string t =
      trace_of({launch(1, 10), kernel("k", 1, 20), launch(2, 1e15), kernel("k", 2, 1e15 + 20)});
  expect_names(import_error(t), 5, "traceEvents[2].ts");
}

TEST(TorchTraceBadInput, KernelStartingBeforeItsLaunchIsRefused) {
  const InputError e = import_error(trace_of({launch(1, 50), kernel("k", 1, 20)}));
  expect_names(e, 4, "traceEvents[1].ts");
  EXPECT_NE(std::string(e.what()).find("traceEvents[0], line 3"), std::string::npos) << e.what();
}

TEST(TorchTraceBadInput, RankThatIsNoRankIsRefusedWhenOneIsAsked) {
  const std::vector<std::string> events = {launch(1, 10), kernel("k", 1, 20)};
  TorchImportOptions o;
  o.rank = 0;
  // 2^40 would have matched rank 0 through a cast to int; a string never matched anything.
  for (const char* rank : {"1099511627776", "\"0\"", "-1", "1.5"}) {
    const std::string t = trace_of(events, std::string(R"( "distributedInfo": {"rank": )") + rank + "},");
    EXPECT_EQ(import_error(t, o).key(), "distributedInfo.rank") << rank;
    EXPECT_NO_THROW((void)import_torch_trace(t, "t.json", {})) << rank;  // not asked: not read
  }
}

TEST(TorchTraceBadInput, IdsBeyondInt64AreInputErrors) {
  // Digit strings beyond int64 threw std::out_of_range from stoll ("internal error", exit 1).
  expect_names(import_error(trace_of(
                   {launch(1, 10), kernel("k", 1, 20, R"(, "External id": "99999999999999999999")")})),
               4, "traceEvents[1].args.External id");
  const std::string corr =
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1, "args": {"correlation": "99999999999999999999"}})";
  expect_names(import_error(trace_of({corr})), 3, "traceEvents[0].args.correlation");
  const std::string dev =
      R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "args": {"device": 99999999999999999999}})";
  expect_names(import_error(trace_of({dev})), 3, "traceEvents[0].args.device");
  const std::string frac = R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "args": {"stream": 7.5}})";
  expect_names(import_error(trace_of({frac})), 3, "traceEvents[0].args.stream");
}

TEST(TorchTraceBadInput, SyntaxErrorsKeepTheirLineAndColumn) {
  const InputError e = import_error("{\"traceEvents\": [\n  {\"ph\": \"X\"},\n  {\"ph\": X}\n]}\n");
  EXPECT_EQ(e.where().line, 3) << e.what();
  EXPECT_EQ(e.where().column, 10) << e.what();  // the X
  EXPECT_NE(std::string(e.what()).find("syntax error"), std::string::npos) << e.what();
}

TEST(TorchTraceBadInput, DeepNestingIsAnInputErrorNotAStackOverflow) {
  // 10^5 brackets in a tid: the old reader built the tree, then dump() recursed once per level.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string t =
      trace_of({launch(1, 10), R"({"ph": "X", "cat": "cuda_runtime", "tid": )" + deep + "}"});
  const InputError e = import_error(t);
  EXPECT_EQ(e.where().line, 4) << e.what();
  EXPECT_NE(std::string(e.what()).find("nesting deeper than"), std::string::npos) << e.what();
  // Nested within the bound, a tid that is no number or string is refused by name.
  expect_names(import_error(trace_of({R"({"ph": "X", "cat": "cuda_runtime", "ts": 1, "tid": [[1]]})"})), 3,
               "traceEvents[0].tid");
}

TEST(JsonEventStream, EventsArriveOneByOneWithIndexAndLine) {
  std::vector<std::pair<std::size_t, int>> seen;
  std::string member;
  JsonStreamCallbacks cb;
  cb.event = [&](std::size_t i, int line, const nlohmann::json& e) {
    seen.emplace_back(i, line);
    EXPECT_TRUE(e.is_object() || e.is_number());
  };
  cb.member = [&](const std::string& key, const nlohmann::json& v) { member = key + "=" + v.dump(); };
  const JsonStreamSummary s =
      read_json_event_stream_string("{\"a\": [1, {\"b\": 2}],\n\"ev\": [{},\n\n{\"x\": [1]}, 5]}", "f", "ev",
                                    JsonStreamLimits{1000, 4, 10}, cb);
  EXPECT_TRUE(s.object);
  EXPECT_TRUE(s.had_events);
  EXPECT_EQ(s.events, 3U);
  EXPECT_EQ(member, R"(a=[1,{"b":2}])");
  ASSERT_EQ(seen.size(), 3U);
  EXPECT_EQ(seen[0], std::make_pair(std::size_t{0}, 2));
  EXPECT_EQ(seen[1], std::make_pair(std::size_t{1}, 4));
  EXPECT_EQ(seen[2], std::make_pair(std::size_t{2}, 4));
}

TEST(JsonEventStream, LimitsOnDepthEventsAndBytesAreNamed) {
  const JsonStreamCallbacks none;
  auto problem = [&](const std::string& text, JsonStreamLimits limits) -> std::string {
    try {
      (void)read_json_event_stream_string(text, "f", "ev", limits, none);
    } catch (const InputError& e) {
      return e.problem();
    }
    return "accepted";
  };
  const std::string text = R"({"ev": [{"a": [[1]]}, 2, 3]})";
  EXPECT_EQ(problem(text, {1000, 5, 10}), "accepted");
  EXPECT_NE(problem(text, {1000, 4, 10}).find("nesting deeper than 4"), std::string::npos);
  EXPECT_NE(problem(text, {1000, 5, 2}).find("more than 2 events"), std::string::npos);
  EXPECT_NE(problem(text, {10, 5, 10}).find("over the 0 MiB limit"), std::string::npos);
  // Not an object, or no events array: for the caller to judge.
  EXPECT_FALSE(read_json_event_stream_string("[1, 2]", "f", "ev", {100, 4, 4}, none).object);
  EXPECT_FALSE(read_json_event_stream_string(R"({"ev": 1})", "f", "ev", {100, 4, 4}, none).had_events);
}

}  // namespace
}  // namespace c3sim::wl
