// Measurement-file and program errors name the file, the line and the key: whichever command
// reads it (validate, calibrate, report) and whether the parser or a later check (the policy name
// against the registry, a program record against the program files) finds it.
#include <string>
#include <vector>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

const std::string kHead = R"({"schema":"c3sim.measurement","version":1,)";
const std::string kEnv = kHead + R"("kind":"env","producer":"c3bench","hardware":"x","gpus":8})";
const std::string kC3 =
    kHead +
    R"("kind":"c3","scenario":"s","policy":"POLICY","m":1024,"n":1024,"k":1024,"dtype":"bf16","op":"all_gather","bytes":1048576,"impl":"cu","gpus":4,"time_us":100,"gemm_time_us":50,"coll_time_us":60,"trials":1})";

std::string with_policy(const std::string& policy) {
  std::string r = kC3;
  return r.replace(r.find("POLICY"), 6, policy);
}

class InputErrorLocation : public ScratchDir {
protected:
  // Every command that reads measurements must refuse `lines` as `file`:`line` key `key`.
  void expect_named(const std::vector<std::string>& lines, int line, const std::string& key,
                    const std::vector<std::string>& commands = {"validate", "calibrate", "report"}) {
    std::string text;
    for (const auto& l : lines) text += l + "\n";
    const std::string file = write("m.jsonl", text);
    for (const std::string& c : commands) {
      std::string command = c3sim_binary();
      for (const std::string& part : {c, file, "-o " + path("out"), std::string("2>&1")})
        command += " " + part;
      const CommandResult r = run_command(command);
      EXPECT_EQ(r.exit_code, 2) << c << ": " << r.output;
      EXPECT_NE(r.output.find(file + ":" + std::to_string(line) + ":"), std::string::npos)
          << c << ": " << r.output;
      EXPECT_NE(r.output.find("key '" + key + "'"), std::string::npos) << c << ": " << r.output;
      EXPECT_FALSE(std::filesystem::exists(path("out"))) << c;
    }
  }
};

TEST_F(InputErrorLocation, UnknownRecordKind) {
  expect_named({kEnv, kHead + R"("kind":"bogus"})"}, 2, "kind");
}

TEST_F(InputErrorLocation, RecordMissingAField) {
  expect_named(
      {kEnv,
       kHead + R"("kind":"iso_coll","op":"all_gather","bytes":1048576,"impl":"cu","gpus":8,"trials":3})"},
      2, "time_us");
}

TEST_F(InputErrorLocation, BadValueInAnEnvRecord) {
  expect_named({kHead + R"("kind":"env","producer":"c3bench","hardware":"x","gpus":"eight"})"}, 1, "gpus");
}

TEST_F(InputErrorLocation, PolicyTheRegistryDoesNotKnow) {
  expect_named({kEnv, with_policy("base"), with_policy("nosuch")}, 3, "policy", {"validate"});
}

TEST_F(InputErrorLocation, SizePastInt64IsOutOfRange) {
  const CommandResult r = [&] {
    write(
        "m.jsonl",
        kEnv + "\n" + kHead +
            R"("kind":"iso_gemm","m":9223372036854775808,"n":4,"k":4,"dtype":"bf16","cus":8,"time_us":3,"trials":3})" +
            "\n");
    return run_command(c3sim_binary() + " validate " + path("m.jsonl") + " 2>&1");
  }();
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("m.jsonl:2:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("out of range"), std::string::npos) << r.output;
}

// Program records checked against the program files: a program that is not there and a policy the
// registry does not know name the record's line.
TEST_F(InputErrorLocation, ProgramRecordErrorsNameTheirLine) {
  const std::string program = write("p.yaml", R"(program:
  name: chain
  streams:
    - {name: s}
  kernels:
    - {name: g, stream: s, gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}}
)");
  auto record = [&](const std::string& name, const std::string& policy) {
    return kHead + R"("kind":"program","program":")" + name + R"(","policy":")" + policy +
           R"(","gpus":8,"step_us":100,"kernels":[],"trials":1})";
  };
  const std::string run_validate =
      c3sim_binary() + " validate " + path("m.jsonl") + " --programs " + program + " --hardware mi300x 2>&1";
  write("m.jsonl", kEnv + "\n" + record("chain", "base") + "\n" + record("other", "base") + "\n");
  CommandResult r = run_command(run_validate);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("m.jsonl:3: key 'program'"), std::string::npos) << r.output;
  write("m.jsonl", kEnv + "\n" + record("chain", "nosuch") + "\n");
  r = run_command(run_validate);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("m.jsonl:2: key 'policy'"), std::string::npos) << r.output;
}

// A collective on one GPU is bad input (exit 2, file, line, key), not an internal error.
TEST_F(InputErrorLocation, OneGpuProgramWithACollectiveIsBadInput) {
  const std::string file = write("p.yaml", R"(program:
  name: one
  gpus: 1
  streams:
    - {name: s}
  kernels:
    - {name: ag, stream: s, collective: {op: all_gather, bytes: 64 MiB}}
)");
  const CommandResult r = run_command(c3sim_binary() + " run " + file + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(file + ":3:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("key 'program.gpus'"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace c3sim::testing
