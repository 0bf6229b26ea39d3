// c3sim sweep: the same bytes at any thread count and under MPI, and the bad-input contract
// (exit 2, file:line and key named, no output file).
#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

constexpr const char* kSweep = R"(hardware: mi300x
scenarios: [cb1_896M_ag, mb1_896M_a2a, cb3_512M]
policies: [base, dma]
grid:
  spec.dma.engines: [7, 14]
  model.dma.engine_bandwidth: [39 GB/s, 100 GB/s]
variants:
  - {name: fast_launch, model.dma.submit_latency: 1 us}
  - {name: big_coll, workload.collective.bytes_scale: 2}
)";

class SweepCli : public ScratchDir {};

TEST_F(SweepCli, SameBytesWhateverTheThreadCount) {
  const std::string f = write("s.yaml", kSweep);
  const auto one =
      run_command(c3sim_binary() + " sweep " + f + " -q --threads 1 -o " + path("1.csv") + " 2>&1");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const auto two =
      run_command(c3sim_binary() + " sweep " + f + " -q --threads 2 -o " + path("2.csv") + " 2>&1");
  ASSERT_EQ(two.exit_code, 0) << two.output;
  const std::string csv = read_file(path("1.csv"));
  EXPECT_EQ(csv, read_file(path("2.csv")));
  // 2 listed x 4 grid variants x 4 scenarios (cb3_512M is both ops) x 2 policies, plus the header.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 4 * 4 * 2);
  EXPECT_EQ(
      csv.rfind("point,variant,name,model.dma.submit_latency,spec.dma.engines,model.dma.engine_bandwidth,"
                "workload.collective.bytes_scale,scenario,policy",
                0),
      0u)
      << csv.substr(0, 200);
  // Columns in first-appearance order (listed variant keys, then the grid's); bytes_scale 2
  // doubles the all-gather: 896 MiB -> 1792 MiB.
  EXPECT_NE(csv.find(",big_coll,,7,39 GB/s,2,cb1_896M_ag,base,,8,1879048192,"), std::string::npos);
}

TEST_F(SweepCli, JsonlCarriesTheVariant) {
  const std::string f = write("s.yaml", kSweep);
  const auto r = run_command(c3sim_binary() + " sweep " + f + " -q -o " + path("o.jsonl") + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = read_file(path("o.jsonl"));
  EXPECT_NE(text.find("\"kind\":\"env\""), std::string::npos);
  EXPECT_NE(text.find("\"variant\":{\"index\":0,\"name\":\"fast_launch\""), std::string::npos);
}

TEST_F(SweepCli, MpiTwoRanksWriteTheSameResult) {
  if (!have_tool("mpirun")) GTEST_SKIP() << "mpirun not found (Debian: openmpi-bin); CI installs it";
  const std::string f = write("s.yaml", kSweep);
  ASSERT_EQ(run_command(c3sim_binary() + " sweep " + f + " -q --threads 1 -o " + path("1.csv")).exit_code, 0);
  const auto r = sweep_on_two_mpi_ranks(f, path("mpi.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  if (r.output.find("rank 0 of 2") == std::string::npos) {
    GTEST_SKIP() << "c3sim was built without MPI (C3SIM_WITH_MPI=OFF): " << r.output;
  }
  EXPECT_EQ(read_file(path("1.csv")), read_file(path("mpi.csv")));
}

struct BadCase {
  const char* name;
  const char* grid_line;
  const char* mention;
};

TEST_F(SweepCli, BadFilesExitTwoNamingFileLineAndKey) {
  const BadCase cases[] = {
      {"unknown_field", "  spec.dma.engine: [7]", ":5:3: key 'grid.spec.dma.engine': unknown field"},
      {"bad_value", "  model.dma.engine_bandwidth: [39 GB/s, fast]",
       ":5:41: key 'grid.model.dma.engine_bandwidth[1]'"},
      {"negative", "  spec.dma.engines: [7, -2]", ":5:25: key 'grid.spec.dma.engines[1]'"},
      {"empty_list", "  spec.dma.engines: []", ":5:3: key 'grid.spec.dma.engines': empty list"},
  };
  for (const auto& c : cases) {
    const std::string f =
        write(std::string(c.name) + ".yaml", std::string("hardware: mi300x\nscenarios: [all]\n"
                                                         "policies: [base]\ngrid:\n") +
                                                 c.grid_line + "\n");
    const std::string out = path(std::string(c.name) + ".csv");
    const auto r = run_command(c3sim_binary() + " sweep " + f + " -q -o " + out + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(f + c.mention), std::string::npos) << c.name << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.name;
  }
  const std::string f = write("bad_policy.yaml", "scenarios: [nope_1G_ag]\npolicies: [base]\n");
  const auto r = run_command(c3sim_binary() + " sweep " + f + " -q 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("key 'scenarios[0]'"), std::string::npos) << r.output;
}

// Four filler axes of ten values after the clashing ones: each value of the clashing axes is
// followed by 10^4 variants, so the clash (second value of each) is variant 10^4 x (2 + 1) = 30000
// or later, past the 4096 variants that were the only ones built at load before. Every value alone
// and every other pair is fine; the load-time check must still find the clash.
constexpr const char* kFillers =
    R"(  model.collective.launch_latency: [1 us, 2 us, 3 us, 4 us, 5 us, 6 us, 7 us, 8 us, 9 us, 10 us]
  model.collective.step_latency: [1 us, 2 us, 3 us, 4 us, 5 us, 6 us, 7 us, 8 us, 9 us, 10 us]
  model.dma.submit_latency: [1 us, 2 us, 3 us, 4 us, 5 us, 6 us, 7 us, 8 us, 9 us, 10 us]
  model.dma.completion_latency: [1 us, 2 us, 3 us, 4 us, 5 us, 6 us, 7 us, 8 us, 9 us, 10 us]
)";

TEST_F(SweepCli, ClashPastTheFirstVariantsFailsAtLoad) {
  struct Clash {
    const char* name;
    const char* axes;
    const char* mention;  // file:line:column: key
    const char* problem;
  };
  const Clash clashes[] = {
      // A pair: 8 x 16 = 128 and 2 x 38 = 76 CUs hold the preset's 64 default all-gather
      // workgroups; 2 x 16 = 32 CUs (variant 3 x 10^4) do not.
      {"pair", "  spec.compute.xcds: [8, 2]\n  spec.compute.cus_per_xcd: [38, 16]\n",
       ":6:34: key 'grid.spec.compute.cus_per_xcd[1]'", "grid.spec.compute.xcds[1] = 2"},
      // A workload triple, in file order bytes, bytes_scale, gpus, on the 8-GPU node, bf16 (2 B):
      // 768 MiB = 3 x 2^28 and 48 B split on 8 or 3 GPUs (multiples of 16 and 6 B); bytes_scale
      // 0.5 rounds to a multiple of 8 GPUs x 2 B: 768 MiB -> 384 MiB (still a multiple of 6),
      // 48 B -> round(24 / 16) x 16 = 32 B, fine on 8 GPUs; but 32 B on 3 GPUs is not a
      // multiple of 6 B: only the three values together clash (variant 7 x 10^4).
      {"triple",
       "  workload.collective.bytes: [768 MiB, 48 B]\n  workload.collective.bytes_scale: [1, 0.5]\n"
       "  workload.gpus: [8, 3]\n",
       ":7:22: key 'grid.workload.gpus[1]'", "32 bytes do not split into 3 equal shards"},
  };
  for (const auto& c : clashes) {
    const std::string f =
        write(std::string(c.name) + ".yaml",
              std::string("hardware: mi300x\nscenarios: [cb1_896M_ag]\npolicies: [base]\ngrid:\n") + c.axes +
                  kFillers);
    const std::string out = path(std::string(c.name) + ".csv");
    const auto r = run_command(c3sim_binary() + " sweep " + f + " -q -o " + out + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(f + c.mention), std::string::npos) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(c.problem), std::string::npos) << c.name << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.name;
  }
}

}  // namespace
}  // namespace c3sim::testing
