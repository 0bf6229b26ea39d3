// c3sim validate PROGRAM.yaml --report PAGE.html: the page's embedded data for a hand-made program
// with traced durations and starts (kernels per lane, the errors of validate's own JSON), the same
// bytes from the same input, a program without traced starts, per-rank lanes, bad outputs, and the
// timeline drawn when headless Chromium renders it.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

// Two streams: a GEMM, an all-gather beside it, a GEMM after the gather and a measured kernel.
// Traced durations are round numbers near the predictions; the starts are those of such a trace.
const char* kProgram = R"(program:
  name: small
  gpus: 2
  streams: [{name: compute}, {name: comm}]
  kernels:
    - {name: g1, stream: compute, gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}, traced_us: 300, traced_start_us: 0}
    - {name: ag, stream: comm, collective: {op: all_gather, bytes: 64 MiB}, traced_us: 250, traced_start_us: 5}
    - {name: g2, stream: compute, after: [ag], gemm: {m: 4096, n: 8192, k: 4096, dtype: bf16}, traced_us: 600, traced_start_us: 310}
    - {name: m, stream: compute, measured: {time_us: 40, workgroups: 8}, traced_us: 40, traced_start_us: 915}
  measured_step_us: 955
)";

// The JSON the page's script reads (window.C3SIM_VALIDATION = ...;).
nlohmann::json page_data(const std::string& html) {
  const std::string key = "window.C3SIM_VALIDATION = ";
  const size_t from = html.find(key);
  if (from == std::string::npos) return nullptr;
  const size_t to = html.find(";</script>", from);
  return nlohmann::json::parse(html.substr(from + key.size(), to - from - key.size()));
}

class ValidationPageCli : public ScratchDir {
protected:
  CommandResult validate(const std::string& program, const std::string& args) {
    return run_command(c3sim_binary() + " validate " + program + " --hardware h200-sxm " + args + " 2>&1");
  }
};

TEST_F(ValidationPageCli, EmbeddedDataHasALanePerStreamAndTheTablesErrors) {
  const std::string yaml = write("small.yaml", kProgram);
  const CommandResult r =
      validate(yaml, "--format json -o " + path("v.json") + " --report " + path("page.html"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json table = nlohmann::json::parse(read_file(path("v.json")))[0];
  const std::string html = read_file(path("page.html"));
  const nlohmann::json data = page_data(html);
  ASSERT_TRUE(data.is_object());
  ASSERT_EQ(data["programs"].size(), 1U);
  const nlohmann::json& p = data["programs"][0];
  EXPECT_TRUE(p["traced_starts"].get<bool>());
  // Lanes by stream name: comm holds the gather, compute the two GEMMs and the measured kernel.
  ASSERT_EQ(p["lanes"].size(), 2U);
  EXPECT_EQ(p["lanes"][0]["stream"], "comm");
  EXPECT_EQ(p["lanes"][0]["kernels"].size(), 1U);
  EXPECT_EQ(p["lanes"][1]["stream"], "compute");
  EXPECT_EQ(p["lanes"][1]["kernels"], nlohmann::json::parse("[0, 2, 3]"));
  // Every kernel's numbers and the per-kind table are validate's own.
  ASSERT_EQ(p["kernels"].size(), 4U);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p["kernels"][i]["pct_error"], table["kernels"][i]["pct_error"]) << i;
    EXPECT_EQ(p["kernels"][i]["predicted_us"], table["kernels"][i]["predicted_us"]) << i;
  }
  EXPECT_EQ(p["kinds"], table["kinds"]);
  EXPECT_EQ(p["step_pct_error"], table["step_pct_error"]);
  // Starts: the traced ones as given; the predicted ones from the first kernel's start, and the GEMM
  // after the gather starts no earlier than the gather's predicted end.
  EXPECT_EQ(p["kernels"][2]["traced_start_us"], 310);
  EXPECT_EQ(p["kernels"][0]["predicted_start_us"], 0);
  EXPECT_GE(
      p["kernels"][2]["predicted_start_us"].get<double>(),
      p["kernels"][1]["predicted_start_us"].get<double>() + p["kernels"][1]["predicted_us"].get<double>());
  // The worst kernels point at their rows; the measured kernel is never among them.
  ASSERT_EQ(p["worst_rows"].size(), table["worst"].size());
  ASSERT_EQ(p["worst_rows"].size(), 3U);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(p["kernels"][p["worst_rows"][i].get<size_t>()]["kernel"], table["worst"][i]["kernel"]);
  // The page's tables print the same numbers: the GEMMs' MAE to two decimals, the step error.
  char mae[32];
  std::snprintf(mae, sizeof mae, "<td>%.2f</td>", table["kinds"][0]["mean_abs_pct_error"].get<double>());
  EXPECT_NE(html.find(mae), std::string::npos) << mae;
  char step[32];
  std::snprintf(step, sizeof step, "error %+.2f%%", table["step_pct_error"].get<double>());
  EXPECT_NE(html.find(step), std::string::npos) << step;
  // Self-contained: nothing fetched from the network.
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST_F(ValidationPageCli, SameInputSameBytes) {
  const std::string yaml = write("small.yaml", kProgram);
  ASSERT_EQ(validate(yaml, "-o " + path("a.txt") + " --report " + path("a.html")).exit_code, 0);
  ASSERT_EQ(validate(yaml, "-o " + path("b.txt") + " --report " + path("b.html")).exit_code, 0);
  EXPECT_EQ(read_file(path("a.html")), read_file(path("b.html")));
  EXPECT_FALSE(read_file(path("a.html")).empty());
}

TEST_F(ValidationPageCli, WithoutTracedStartsThePageSaysSo) {
  std::string text = kProgram;
  for (size_t at = text.find(", traced_start_us: "); at != std::string::npos;
       at = text.find(", traced_start_us: ")) {
    text.erase(at, text.find('}', at) - at);
  }
  const std::string yaml = write("durations.yaml", text);
  const CommandResult r = validate(yaml, "-o " + path("v.txt") + " --report " + path("page.html"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string html = read_file(path("page.html"));
  EXPECT_FALSE(page_data(html)["programs"][0]["traced_starts"].get<bool>());
  EXPECT_NE(html.find("no traced start times"), std::string::npos);
}

// A program with every rank's kernel list: a lane per rank and stream, rank 1's kernels too.
TEST_F(ValidationPageCli, ProgramWithRanksHasALanePerRankAndStream) {
  const std::string yaml = write("ranks.yaml", R"(program:
  name: two
  gpus: 2
  streams: [{name: compute}, {name: comm}]
  ranks:
    - rank: 0
      start_us: 0
      kernels:
        - {name: g, stream: compute, gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}, traced_us: 300, traced_start_us: 0}
        - {name: ag, stream: comm, after: [g], collective: {op: all_gather, bytes: 64 MiB}, traced_us: 400, traced_start_us: 305}
    - rank: 1
      start_us: 100
      kernels:
        - {name: ag, stream: comm, collective: {op: all_gather, bytes: 64 MiB}, traced_us: 250, traced_start_us: 0}
  measured_step_us: 800
)");
  const CommandResult r =
      validate(yaml, "--format json -o " + path("v.json") + " --report " + path("page.html"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json p = page_data(read_file(path("page.html")))["programs"][0];
  ASSERT_EQ(p["lanes"].size(), 3U);
  EXPECT_EQ(p["lanes"][0]["rank"], 0);
  EXPECT_EQ(p["lanes"][0]["stream"], "comm");
  EXPECT_EQ(p["lanes"][1]["stream"], "compute");
  EXPECT_EQ(p["lanes"][2]["rank"], 1);
  EXPECT_EQ(p["lanes"][2]["kernels"], nlohmann::json::parse("[2]"));
  EXPECT_EQ(p["kernels"][2]["rank"], 1);
  // Rank 1's gather is its first kernel: its channels are up at once and spin until rank 0 has
  // arrived (at its GEMM's end, on rank 1's clock 100 us less), then the data moves on both ranks
  // at once and both instances end together, so rank 1's span starts at 0 and is rank 0's plus the
  // wait.
  const auto us = [&](int k) { return p["kernels"][k]["predicted_us"].get<double>(); };
  EXPECT_EQ(p["kernels"][2]["predicted_start_us"], 0);
  EXPECT_NEAR(us(2) - us(1), us(0) - 100, 10);
  // The table's rows are every rank's.
  EXPECT_EQ(nlohmann::json::parse(read_file(path("v.json")))[0]["kernels"].size(), 3U);
}

TEST_F(ValidationPageCli, BadOutputsExitTwoAndWriteNothing) {
  const std::string yaml = write("small.yaml", kProgram);
  const std::string before = read_file(yaml);
  // A folder that does not exist: the message names the path and the option; no -o output either.
  CommandResult r = validate(yaml, "-o " + path("v.txt") + " --report " + path("missing/page.html"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--report"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("missing/page.html"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("v.txt")));
  // The input itself, and the -o file.
  r = validate(yaml, "--report " + yaml);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is an input"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(yaml), before);
  r = validate(yaml, "-o " + path("same.html") + " --report " + path("same.html"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("same.html")));
  // A directory.
  r = validate(yaml, "--report " + dir_.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // Measurement files have no timelines: exit 2 naming the option, nothing written.
  const std::string meas = write(
      "m.jsonl", read_file(std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/h200x4_table1.jsonl"));
  r = validate(meas, "--report " + path("m.html"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--report"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("m.html")));
}

TEST_F(ValidationPageCli, TimelineDrawsInHeadlessChromium) {
  std::string browser;
  for (const char* b : {"chromium", "chromium-browser", "google-chrome"}) {
    if (have_tool(b)) {
      browser = b;
      break;
    }
  }
  if (browser.empty()) GTEST_SKIP() << "no chromium on PATH (Debian: chromium); CI installs it";
  const std::string yaml = write("small.yaml", kProgram);
  ASSERT_EQ(validate(yaml, "-o " + path("v.txt") + " --report " + path("page.html")).exit_code, 0);
  const CommandResult dom =
      run_command("timeout 120 " + browser +
                  " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                  "--disable-background-networking --disable-component-update --disable-sync "
                  "--user-data-dir=" +
                  path("profile") + " --dump-dom file://" + path("page.html") + " 2>/dev/null");
  ASSERT_EQ(dom.exit_code, 0);
  EXPECT_NE(dom.output.find("data-timelines-drawn=\"1\""), std::string::npos) << dom.output.substr(0, 400);
}

}  // namespace
}  // namespace c3sim::testing
