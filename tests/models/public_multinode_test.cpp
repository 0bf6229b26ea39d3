// c3sim against public multi-node nccl-tests results (hardware/measurements/public_multinode/
// points.yaml): each collective runs as a program on its nodes with the preset's cluster section,
// and its bus bandwidth (nccl-tests' definition) must lie within the file's tolerance of the
// published one, unless the point names its known gap (then it must stay outside, so a fix deletes
// the line). Nothing was fitted to these points. A point runs what its source forced (NCCL_ALGO as
// `algorithm`, NCCL_MIN/MAX_NCHANNELS or NCCL_MIN_CTAS as `channels`), else the library's choice.
// The test prints the table docs/scale-out.md shows:
//   ctest --test-dir build -R PublicMultinode -V
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/program/program_simulator.h"
#include "sim/base/strict_yaml.h"
#include "sim/base/units.h"
#include "workloads/program_io.h"

namespace c3sim::models {
namespace {

const std::string kSourceRoot = std::string(C3SIM_SOURCE_DIR);

// nccl-tests' bus bandwidth of `op` over `ranks` for its `size` column taking `seconds`.
double bus_bandwidth(const std::string& op, double size, int ranks, double seconds) {
  const double r = ranks;
  const double factor = op == "all_reduce" ? 2 * (r - 1) / r : (r - 1) / r;
  return size / seconds * factor;
}

// c3sim's per-GPU `bytes` for the nccl-tests size: reduce-scatter's size is its input, every other
// op's its output.
double c3sim_bytes(const std::string& op, double size, int ranks) {
  return op == "reduce_scatter" ? size / ranks : size;
}

TEST(PublicMultinode, EveryPointWithinToleranceOrItsKnownGap) {
  const YamlDocument doc =
      load_yaml_file(kSourceRoot + "/hardware/measurements/public_multinode/points.yaml");
  StrictMap root(doc.root, doc.file, "");
  const double tolerance = root.number("tolerance");
  int points = 0;
  std::string table =
      "| source | nodes x GPUs | op | size | public busbw (GB/s) | c3sim (GB/s) | error |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const YAML::Node& n : root.sequence("points")) {
    StrictMap e(n, doc.file, "points");
    const std::string source = e.string("source");
    (void)e.string("quote");
    (void)e.string("system");
    const auto nodes = static_cast<int>(e.integer("nodes"));
    const auto gpus = static_cast<int>(e.integer("gpus_per_node"));
    const std::string op = e.string("op");
    const std::string size_text = e.string("size");
    (void)e.optional_string("size_note");
    const double busbw = e.number("busbw_gbps") * 1e9;
    const std::string hardware = e.string("hardware");
    const std::optional<std::string> algorithm = e.optional_string("algorithm");
    const std::optional<std::int64_t> channels = e.optional_integer("channels");
    const std::optional<std::string> known_gap = e.optional_string("known_gap");
    e.finish();
    const double size = *parse_quantity(size_text, Dimension::bytes, nullptr);
    const int ranks = nodes * gpus;
    const wl::Program p =
        wl::load_programs_string(
            fmt::format(R"(program:
  name: point
  gpus: {}
  nodes: {}
  streams: [{{name: comm}}]
  kernels:
    - {{name: c, stream: comm, collective: {{op: {}, bytes: {}{}{}}}}}
)",
                        gpus, nodes, op, static_cast<std::int64_t>(c3sim_bytes(op, size, ranks)),
                        algorithm ? ", algorithm: " + *algorithm : "",
                        channels ? fmt::format(", channels: {}", *channels) : ""),
            "point.yaml")
            .front();
    ProgramSimulator sim(hw::load_hardware(hardware));
    const KernelRun run = sim.simulate(p).kernels.front();
    const double predicted = bus_bandwidth(op, size, ranks, (run.end_us - run.ready_us) * 1e-6);
    const double error = predicted / busbw - 1;
    const std::string where = fmt::format("{} {} nodes {}", source, nodes, op);
    if (known_gap) {
      EXPECT_GT(std::abs(error), tolerance) << where << ": inside the tolerance now; delete its known_gap";
    } else {
      EXPECT_LE(std::abs(error), tolerance) << where << ": c3sim " << predicted / 1e9 << " GB/s";
    }
    table +=
        fmt::format("| {} | {} x {} | {} | {} | {:.0f} | {:.0f} | {:+.1f}%{} |\n", source, nodes, gpus, op,
                    size_text, busbw / 1e9, predicted / 1e9, 100 * error, known_gap ? " (known gap)" : "");
    ++points;
  }
  EXPECT_GE(points, 12);
  std::fputs(table.c_str(), stdout);
  // Sources read and not used, each with its reason.
  for (const YAML::Node& n : root.sequence("considered")) {
    StrictMap e(n, doc.file, "considered");
    EXPECT_FALSE(e.string("source").empty());
    (void)e.string("quote");
    EXPECT_FALSE(e.string("reason").empty());
    e.finish();
  }
}

}  // namespace
}  // namespace c3sim::models
