// Property test of the bad-input contract over every subcommand: a generated corpus of bad inputs
// (mutated scenario/sweep YAML, measurement JSONL and nccl-tests logs, hostile input and output
// paths) must each give exit 2, a message naming the offending file, no file created anywhere in
// the scratch folder and every input byte-identical afterwards. Each mutation is chosen so the
// result is invalid whatever the seed value (a duplicated key, a control byte, a zero/negative/
// non-numeric/overflowing number where every such field must be positive, a cut-short table row).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli_test_util.h"

namespace c3sim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kScenario = R"(scenarios:
  - name: small
    gpus: 8
    gemm: {m: 2048, n: 2048, k: 2048, dtype: bf16}
    collective: {op: all_gather, bytes: 16777216, impl: cu, max_workgroups: 32}
    policies: [base]
)";

constexpr const char* kSweep = R"(hardware: mi300x
scenarios: [mb1_896M_ag]
policies: [base]
grid:
  spec.dma.engines: [8, 16]
  workload.gpus: [4, 8]
  workload.collective.bytes_scale: [1, 2]
)";

constexpr const char* kMeasurement =
    R"({"schema":"c3sim.measurement","version":1,"kind":"iso_coll","op":"all_gather","bytes":1048576,"impl":"cu","gpus":8,"time_us":40.5,"trials":3})"
    "\n"
    R"({"schema":"c3sim.measurement","version":1,"kind":"iso_gemm","m":4096,"n":4096,"k":4096,"dtype":"bf16","cus":304,"time_us":900.25,"trials":3})"
    "\n";

constexpr const char* kLog =
    R"(# nThread 1 nGpus 8 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Collective test starting: all_gather_perf
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576         32768     float    none      -1    40.52   25.88   22.64      0    39.87   26.30   23.01      0
     2097152         65536     float    none      -1    61.10   34.32   30.03      0    60.44   34.70   30.36      0
)";

struct Case {
  std::string label;
  std::string args;     // c3sim arguments; {IN} is the mutated input, {OUT} a fresh output path
  std::string mention;  // must appear in the message: the file the error is about
};

class BadInputProperty : public ScratchDir {
protected:
  // Every path under the scratch folder with its contents (symlinks and FIFOs by kind only).
  std::map<std::string, std::string> snapshot() const {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      const auto st = fs::symlink_status(e.path());
      out[e.path().string()] = fs::is_regular_file(st) ? read_file(e.path()) : std::string("<special>");
    }
    return out;
  }

  void expect_refused(const Case& c, const std::string& input) {
    std::string args = c.args;
    const std::string out = path("out.file");
    for (std::string::size_type p; (p = args.find("{IN}")) != std::string::npos;) args.replace(p, 4, input);
    for (std::string::size_type p; (p = args.find("{OUT}")) != std::string::npos;) args.replace(p, 5, out);
    const auto before = snapshot();
    const CommandResult r = run_command("timeout 60 " + c3sim_binary() + " " + args + " 2>&1 >/dev/null");
    ++checked_;
    EXPECT_EQ(r.exit_code, 2) << c.label << ": c3sim " << args << "\n" << r.output;
    std::string mention = c.mention;
    if (const auto p = mention.find("{IN}"); p != std::string::npos) mention.replace(p, 4, input);
    EXPECT_NE(r.output.find(mention), std::string::npos)
        << c.label << ": message does not name '" << mention << "': " << r.output;
    EXPECT_EQ(snapshot(), before) << c.label << ": a file was created, changed or removed";
  }

  int checked_ = 0;
};

// Line-wise mutations of a YAML text that are invalid whatever the line held.
std::vector<std::pair<std::string, std::string>> yaml_mutations(const std::string& text) {
  std::vector<std::string> lines;
  for (std::string::size_type p = 0; p < text.size();) {
    const auto e = text.find('\n', p);
    lines.push_back(text.substr(p, e - p));
    p = e == std::string::npos ? text.size() : e + 1;
  }
  auto join = [&](const std::vector<std::string>& ls) {
    std::string s;
    for (const auto& l : ls) s += l + "\n";
    return s;
  };
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const auto colon = l.find(": ");
    if (colon == std::string::npos || l.find('{') != std::string::npos) continue;
    // The same key twice in one mapping.
    std::vector<std::string> dup = lines;
    dup.insert(dup.begin() + static_cast<std::ptrdiff_t>(i) + 1, l);
    out.emplace_back("duplicate line " + std::to_string(i + 1), join(dup));
  }
  // Every plain number: zero, negative, past int64, not a number (all fields here must be positive).
  for (std::size_t i = 0; i < lines.size(); ++i) {
    for (const char* bad : {"0", "-3", "99999999999999999999999", "1e400", "x7"}) {
      std::string l = lines[i];
      bool changed = false;
      for (std::string::size_type p = 0; p < l.size(); ++p) {
        if (l[p] < '0' || l[p] > '9' ||
            (p > 0 &&
             (std::isalnum(static_cast<unsigned char>(l[p - 1])) || l[p - 1] == '.' || l[p - 1] == '_'))) {
          continue;
        }
        auto e = p;
        while (e < l.size() && std::isdigit(static_cast<unsigned char>(l[e]))) ++e;
        if (e < l.size() && (std::isalpha(static_cast<unsigned char>(l[e])) || l[e] == '_' || l[e] == '.'))
          break;
        l.replace(p, e - p, bad);
        changed = true;
        break;
      }
      if (!changed) continue;
      std::vector<std::string> m = lines;
      m[i] = l;
      out.emplace_back("number on line " + std::to_string(i + 1) + " -> " + bad, join(m));
    }
  }
  // A control byte (BEL, escaped in a quoted scalar) in the first name.
  std::string ctrl = text;
  const auto name = ctrl.find("name: ");
  if (name != std::string::npos) {
    ctrl.insert(name + 6, "\"a\\x07b\" #");
  } else {
    ctrl.insert(ctrl.find('[') + 1, "\"a\\x07b\", ");
  }
  out.emplace_back("control character", ctrl);
  // An overlong UTF-8 form of DEL (C1 BF) in the first name: yaml-cpp passes it through and its
  // emitter wrote it back as "\x7f" (found by fuzz_program_yaml); refused as not UTF-8.
  std::string overlong = text;
  if (name != std::string::npos) {
    overlong.insert(name + 6,
                    "a\xC1\xBF"
                    "b #");
  } else {
    overlong.insert(overlong.find('[') + 1,
                    "a\xC1\xBF"
                    "b, ");
  }
  out.emplace_back("not valid UTF-8", overlong);
  return out;
}

TEST_F(BadInputProperty, MutatedScenariosAndSweeps) {
  const std::string scenario = write("scenario.yaml", kScenario);
  const std::string sweep = write("sweep.yaml", kSweep);
  ASSERT_EQ(
      run_command(c3sim_binary() + " run " + scenario + " --no-attribution -o " + path("ok.jsonl")).exit_code,
      0);
  ASSERT_EQ(run_command(c3sim_binary() + " sweep -q " + sweep + " -o " + path("ok.csv")).exit_code, 0);
  fs::remove(path("ok.jsonl"));
  fs::remove(path("ok.csv"));
  for (const auto& [what, text] : yaml_mutations(kScenario)) {
    const std::string in = write("bad_scenario.yaml", text);
    expect_refused({"scenario " + what, "run {IN} --no-attribution -o {OUT}", "{IN}"}, in);
  }
  for (const auto& [what, text] : yaml_mutations(kSweep)) {
    const std::string in = write("bad_sweep.yaml", text);
    expect_refused({"sweep " + what, "sweep -q {IN} -o {OUT}", "{IN}"}, in);
  }
  EXPECT_GT(checked_, 40);
}

TEST_F(BadInputProperty, MutatedMeasurementsAndLogs) {
  const std::string good = write("good.jsonl", kMeasurement);
  const std::string keys[] = {"bytes", "gpus", "time_us", "trials", "m", "k", "cus"};
  for (const auto& key : keys) {
    for (const char* bad_text : {"0", "-1", "1e999", "\"x\"", "null", "99999999999999999999"}) {
      const std::string bad = bad_text;
      if (key == "time_us" && bad.size() > 10) continue;  // 1e20 us is a (long) time
      std::string text = kMeasurement;
      const auto p = text.find("\"" + key + "\":");
      ASSERT_NE(p, std::string::npos) << key;
      const auto v = p + key.size() + 3;
      text.replace(v, text.find_first_of(",}", v) - v, bad);
      const std::string in = write("bad.jsonl", text);
      for (const std::string& cmd :
           {std::string("calibrate {IN} --hardware mi300x -o {OUT}"), "validate {IN} " + good + " -o {OUT}",
            std::string("report {IN} -o {OUT}")}) {
        expect_refused({key + "=" + bad + " " + cmd, cmd, "{IN}:"}, in);
      }
    }
  }
  const std::string cells[] = {"inf", "nan", "40.", "-1.00", "1e5", "40.52x"};
  for (const auto& bad : cells) {
    std::string text = kLog;
    text.replace(text.find("40.52"), 5, bad);
    expect_refused({"log time " + bad, "import {IN} -o {OUT}", "{IN}:7"}, write("bad.log", text));
  }
  for (const char* bad : {"99999999999999999999", "-8", "8x", "1048577"}) {
    std::string text = kLog;
    text.replace(text.find("1048576         32768"), 7, bad);
    expect_refused({std::string("log size ") + bad, "import {IN} -o {OUT}", "{IN}:7"},
                   write("bad.log", text));
  }
  std::string cut = kLog;
  cut.resize(cut.find("   25.88"));
  expect_refused({"log row cut short", "import {IN} -o {OUT}", "{IN}:7"}, write("bad.log", cut + "\n"));
  for (const char* g : {"0", "-1", "1"}) {
    expect_refused(
        {std::string("import --gpus ") + g, std::string("import {IN} --gpus ") + g + " -o {OUT}", "--gpus"},
        write("good.log", kLog));
  }
  EXPECT_GT(checked_, 120);
}

TEST_F(BadInputProperty, HostilePaths) {
  const std::string scenario = write("scenario.yaml", kScenario);
  const std::string meas = write("m.jsonl", kMeasurement);
  const std::string log = write("nccl.log", kLog);
  const std::string sweep = write("sweep.yaml", kSweep);
  fs::create_directories(dir_ / "folder");
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", dir_ / "zero_link");
  fs::create_symlink(path("fifo"), dir_ / "fifo_link");
  fs::create_symlink(path("folder"), dir_ / "folder_link");
  // Inputs that are not regular files: never read (a FIFO would block, /dev/zero never ends).
  for (const std::string& bad :
       {std::string("/dev/zero"), path("fifo"), path("folder"), path("zero_link"), path("missing")}) {
    expect_refused({"run input " + bad, "run {IN} -o {OUT}", "{IN}"}, bad);
    expect_refused({"sweep input " + bad, "sweep -q {IN} -o {OUT}", "{IN}"}, bad);
    expect_refused({"calibrate input " + bad, "calibrate {IN} -o {OUT}", "{IN}"}, bad);
    expect_refused({"validate input " + bad, "validate {IN} -o {OUT}", "{IN}"}, bad);
    expect_refused({"report input " + bad, "report {IN} -o {OUT}", "{IN}"}, bad);
    expect_refused({"import input " + bad, "import {IN} -o {OUT}", "{IN}"}, bad);
    expect_refused({"hardware input " + bad, "paper --only dma --hardware {IN} -o {OUT}", "{IN}"}, bad);
  }
  // Outputs onto an input, a special file, a folder, a missing folder, or one path twice.
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"run " + scenario + " --no-attribution", scenario},
      {"sweep -q " + sweep, sweep},
      {"import " + log, log},
      {"calibrate " + meas + " --hardware mi300x", meas},
      {"report " + meas + " --paper " + scenario, scenario}};
  for (const auto& [cmd, input] : commands) {
    for (const std::string& bad : {input, path("fifo"), path("fifo_link"), path("folder"),
                                   path("folder_link"), path("no/such/dir/x")}) {
      expect_refused({cmd + " -o " + bad, cmd + " -o " + bad, bad}, bad);
    }
  }
  expect_refused({"run -o X --trace X", "run " + scenario + " -o {OUT} --trace {OUT}", "--trace"}, scenario);
  // A failing second output leaves no first output.
  expect_refused({"run trace in a missing folder",
                  "run " + scenario + " -o {OUT} --trace " + path("none/t.json"), "none/t.json"},
                 scenario);
  EXPECT_GT(checked_, 60);
}

}  // namespace
}  // namespace c3sim::testing
