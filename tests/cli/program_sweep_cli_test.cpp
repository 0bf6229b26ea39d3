// c3sim sweep over programs (issue 15): the same bytes at any thread count and under MPI, each row
// the number `c3sim run` gives for the same program, hardware and policy, and the bad-input
// contract (exit 2, file:line and key named, no output file).
#include <algorithm>
#include <regex>
#include <vector>

#include "tests/cli/cli_test_util.h"

namespace c3sim::testing {
namespace {

// The FiCCO case (examples/programs/ag_gemm_chain.yaml): the GEMM waits for the all-gather, so the
// untransformed program is one dependency chain. Its own `policies:` are not read by a sweep.
constexpr const char* kChain = R"(program:
  name: chain
  streams:
    - {name: compute}
    - {name: comm}
  kernels:
    - {name: ag, stream: comm, collective: {op: all_gather, bytes: 896 MiB}}
    - {name: gemm, stream: compute, after: [ag], gemm: mb1}
  policies: [sp]
)";

constexpr const char* kSweep = R"(hardware: mi300x
programs:
  - {file: chain.yaml}
  - {generate: tp-block, model: llama-70b, tp: 8}
policies: [base, dma, ficco_best]
grid:
  spec.dma.engines: [7, 14]
variants:
  - {name: host}
  - {name: fast_launch, model.dma.submit_latency: 1 us}
)";

class ProgramSweepCli : public ScratchDir {
protected:
  std::string sweep_file() const {
    write("chain.yaml", kChain);
    return write("s.yaml", kSweep);
  }
  CommandResult sweep(const std::string& file, const std::string& args) const {
    return run_command(c3sim_binary() + " sweep " + file + " -q " + args + " 2>&1");
  }
};

std::size_t lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

// Every "step_us":<number> of a JSONL text, in order.
std::vector<std::string> step_times(const std::string& jsonl) {
  std::vector<std::string> out;
  const std::regex step("\"step_us\":([-0-9.e+]+)");
  for (auto it = std::sregex_iterator(jsonl.begin(), jsonl.end(), step); it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

TEST_F(ProgramSweepCli, SameBytesAtOneAndThreeThreads) {
  const std::string f = sweep_file();
  for (const char* ext : {"csv", "jsonl"}) {
    const std::string one = path(std::string("1.") + ext), three = path(std::string("3.") + ext);
    const auto a = sweep(f, "--threads 1 -o " + one);
    ASSERT_EQ(a.exit_code, 0) << a.output;
    const auto b = sweep(f, "--threads 3 -o " + three);
    ASSERT_EQ(b.exit_code, 0) << b.output;
    EXPECT_EQ(read_file(one), read_file(three)) << ext;
    // 2 listed x 2 grid variants x 2 programs x 3 policies = 24 rows, plus the header or env record.
    EXPECT_EQ(lines(read_file(one)), 1u + 24u) << ext;
  }
  const std::string csv = read_file(path("1.csv"));
  EXPECT_EQ(
      csv.rfind("point,variant,name,spec.dma.engines,model.dma.submit_latency,program,policy,chosen,gpus,"
                "step_us,serial_us,ideal_us,overlap_percent\n",
                0),
      0u)
      << csv.substr(0, 200);
  // Keys in first-appearance order (host lists none, then the grid's, then fast_launch's).
  // Variant-major, programs in file order: point 0 is the chain under base on 7 engines; its
  // overlap is empty (one dependency chain: serial == ideal). ficco_best names the split it chose.
  EXPECT_NE(csv.find("\n0,0,host,7,,chain,base,,8,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",chain,ficco_best,ficco:"), std::string::npos) << csv;
  const auto first_row =
      csv.substr(csv.find('\n') + 1, csv.find('\n', csv.find('\n') + 1) - csv.find('\n') - 1);
  EXPECT_EQ(first_row.back(), ',') << first_row;
  EXPECT_NE(read_file(path("1.jsonl")).find("\"kind\":\"program\""), std::string::npos);
}

TEST_F(ProgramSweepCli, RowsAreWhatRunGivesOnTheVariantsHardware) {
  // The sweep's variant fast_launch on 14 engines is the preset with submit_latency 1 us (the
  // preset has 14 engines): as a hardware file, `c3sim run` on it must give the same step times.
  write("chain.yaml", kChain);
  const std::string f = write("one.yaml", R"(hardware: mi300x
programs:
  - {file: chain.yaml}
policies: [base, dma, ficco_best]
variants:
  - {name: fast_launch, model.dma.submit_latency: 1 us, spec.dma.engines: 14}
)");
  const std::string hw =
      write("fast.yaml",
            "extends: mi300x\nname: fast\ndescription: the sweep's variant\nmodel:\n  dma:\n"
            "    submit_latency: 1 us\n");
  const auto s = sweep(f, "--format jsonl");
  ASSERT_EQ(s.exit_code, 0) << s.output;
  const auto r = run_command(c3sim_binary() + " run " + path("chain.yaml") + " --hardware " + hw +
                             " --policy base,dma,ficco_best --format jsonl 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(step_times(s.output).size(), 3u) << s.output;
  EXPECT_EQ(step_times(s.output), step_times(r.output));
}

TEST_F(ProgramSweepCli, ScenariosAndProgramsShareOneTable) {
  const std::string f = write("mixed.yaml", R"(hardware: mi300x
scenarios: [cb1_896M_ag]
programs:
  - {generate: moe-layer}
policies: [base, dma]
)");
  const auto r = sweep(f, "");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string header =
      "point,variant,name,scenario,program,policy,chosen,gpus,bytes,time_us,gemm_us,coll_us,iso_gemm_us,"
      "iso_coll_us,speedup,ideal_speedup,percent_of_ideal,step_us,serial_us,ideal_us,overlap_percent\n";
  ASSERT_EQ(r.output.rfind(header, 0), 0u) << r.output.substr(0, 300);
  // Points: scenario then program, each under base and dma; every row has the header's 21 fields.
  EXPECT_NE(r.output.find("\n0,0,v0,cb1_896M_ag,,base,,8,"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\n2,0,v0,,mixtral-8x7b_moe_layer,base,,8,,,,,,,,,,"), std::string::npos)
      << r.output;
  std::istringstream rows(r.output);
  for (std::string row; std::getline(rows, row);)
    EXPECT_EQ(std::count(row.begin(), row.end(), ','), 20) << row;
  EXPECT_EQ(lines(r.output), 1u + 4u);
}

TEST_F(ProgramSweepCli, MpiTwoRanksWriteTheSameResult) {
  if (!have_tool("mpirun")) GTEST_SKIP() << "mpirun not found (Debian: openmpi-bin); CI installs it";
  const std::string f = sweep_file();
  ASSERT_EQ(sweep(f, "--threads 1 -o " + path("1.csv")).exit_code, 0);
  const auto r = sweep_on_two_mpi_ranks(f, path("mpi.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  if (r.output.find("rank 0 of 2") == std::string::npos) {
    GTEST_SKIP() << "c3sim was built without MPI (C3SIM_WITH_MPI=OFF): " << r.output;
  }
  EXPECT_EQ(read_file(path("1.csv")), read_file(path("mpi.csv")));
}

TEST_F(ProgramSweepCli, BadProgramsExitTwoNamingFileLineAndKey) {
  write("broken.yaml",
        "program:\n  name: x\n  streams: [{name: a}]\n  kernels:\n"
        "    - {name: k, stream: a, gemm: mb1, bogus: 1}\n");
  write("masked.yaml", R"(program:
  name: masked
  streams:
    - {name: compute}
    - {name: comm, cus: 180}
  kernels:
    - {name: gemm, stream: compute, gemm: mb1}
    - {name: ag, stream: comm, collective: {op: all_gather, bytes: 896 MiB}}
)");
  struct Bad {
    const char* name;
    const char* body;     // after "hardware: mi300x\n"
    const char* mention;  // file:line:column: key (the file's name, relative to the scratch folder)
  };
  const Bad cases[] = {
      {"bad_program", "programs:\n  - {file: broken.yaml}\npolicies: [base]\n",
       "broken.yaml:5:39: key 'program.kernels[0].bogus': unknown key"},
      {"missing_program", "programs:\n  - {file: nope.yaml}\npolicies: [base]\n",
       "missing_program.yaml:3:6: key 'programs[0].file'"},
      {"unknown_generator", "programs:\n  - {generate: fsdp-layr}\npolicies: [base]\n",
       "unknown_generator.yaml:3:6: key 'programs[0].generate': unknown program kind 'fsdp-layr'"},
      // 400 CUs for the collective leave none of MI300X's 304.
      {"policy_hardware_cannot_run", "programs:\n  - {generate: tp-block}\npolicies: [base, rp:400]\n",
       "policy_hardware_cannot_run.yaml:4:18: key 'policies'"},
      {"pair_only_key",
       "programs:\n  - {generate: tp-block}\npolicies: [base]\ngrid:\n  workload.collective.bytes: [1 GiB]\n",
       "pair_only_key.yaml:6:31: key 'grid.workload.collective.bytes'"},
      // The stream's 180 CUs fit 8 x 35 = 280 and 5 x 38 = 190 CUs, not 5 x 35 = 175: only the pair
      // clashes, as variant 3 x 10^4 (four filler axes of ten values follow), past the 4096
      // variants built eagerly; the load-time check still finds it.
      {"mask_clash",
       "programs:\n  - {file: masked.yaml}\npolicies: [base]\ngrid:\n  spec.compute.xcds: [8, 5]\n"
       "  spec.compute.cus_per_xcd: [38, 35]\n"
       "  model.collective.launch_latency: [1 us, 2 us, 3 us, 4 us, 5 us, 6 us, 7 us, 8 us, 9 us, 10 us]\n"
       "  model.collective.step_latency: [1 us, 2 us, 3 us, 4 us, 5 us, 6 us, 7 us, 8 us, 9 us, 10 us]\n"
       "  model.dma.submit_latency: [1 us, 2 us, 3 us, 4 us, 5 us, 6 us, 7 us, 8 us, 9 us, 10 us]\n"
       "  model.dma.completion_latency: [1 us, 2 us, 3 us, 4 us, 5 us, 6 us, 7 us, 8 us, 9 us, 10 us]\n",
       "mask_clash.yaml:7:34: key 'grid.spec.compute.cus_per_xcd[1]': variant v30000"},
  };
  for (const auto& c : cases) {
    const std::string f = write(std::string(c.name) + ".yaml", std::string("hardware: mi300x\n") + c.body);
    const std::string out = path(std::string(c.name) + ".csv");
    const auto r = sweep(f, "-o " + out);
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(c.mention), std::string::npos) << c.name << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.name;
  }
}

}  // namespace
}  // namespace c3sim::testing
