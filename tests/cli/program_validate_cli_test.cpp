// `c3sim validate --programs` through the real binary: c3sim's own program records validate at 0%
// error (the prediction path is the run path), and program records without --programs exit 2.
#include <gtest/gtest.h>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

class ProgramValidateCli : public ScratchDir {};

TEST_F(ProgramValidateCli, OwnRecordsValidateExactlyAndNeedTheProgramFile) {
  const std::string c3 = c3sim_binary();
  const std::string yaml = write("p.yaml", R"(program:
  name: small
  gpus: 2
  streams: [{name: compute}, {name: comm}]
  kernels:
    - {name: ag, stream: comm, collective: {op: all_gather, bytes: 64 MiB}}
    - {name: gemm, stream: compute, after: [ag], gemm: {m: 4096, n: 4096, k: 4096, dtype: bf16}}
)");
  const std::string meas = path("meas.jsonl");
  ASSERT_EQ(
      run_command(c3 + " run " + yaml + " --hardware h200-sxm --policy base,ficco:2 -o " + meas).exit_code,
      0);
  const CommandResult r =
      run_command(c3 + " validate " + meas + " --programs " + yaml + " --hardware h200-sxm 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("program records: 2  mean |step error|: 0.00%"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ficco:2"), std::string::npos) << r.output;
  const CommandResult missing = run_command(c3 + " validate " + meas + " --hardware h200-sxm 2>&1");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("--programs"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace c3sim::testing
