// A traced NCCL kernel's launch shape as the collective's channels (grid x) and, on NCCL 2.28, its
// algorithm and protocol (block x: workloads/nccl_launch_shape.h), on the hand-made snippet
// tests/data/torch_trace_small.json, whose all-gather kernel k1 is edited per case; and NCCL's
// tuning log overriding both.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/base/errors.h"
#include "tests/workloads/source_text.h"
#include "workloads/nccl_launch_shape.h"
#include "workloads/torch_trace_import.h"
#include "workloads/torch_trace_nccl.h"

namespace c3sim::wl {
namespace {

// The snippet with the all-gather kernel's grid and block replaced, and distributedInfo's
// nccl_version set ("" leaves it out) and the device named `device_name` ("" leaves it out).
std::string launch_shape_snippet(const nlohmann::json& grid, const nlohmann::json& block,
                                 const std::string& version, const std::string& device_name = "") {
  nlohmann::json j = nlohmann::json::parse(testing::source_text("tests/data/torch_trace_small.json"));
  for (auto& e : j["traceEvents"]) {
    if (e.value("cat", "") != "kernel" || e.value("name", "").rfind("ncclDevKernel_AllGather", 0) != 0)
      continue;
    e["args"]["grid"] = grid;
    if (block.is_null()) {
      e["args"].erase("block");
    } else {
      e["args"]["block"] = block;
    }
  }
  if (!version.empty()) j["distributedInfo"]["nccl_version"] = version;
  if (!device_name.empty())
    j["deviceProperties"] = nlohmann::json::array({{{"id", 0}, {"name", device_name}, {"numSms", 304}}});
  return j.dump();
}

const Collective& launch_shape_all_gather(const TorchImportResult& r) {
  EXPECT_EQ(r.program.kernels.at(1).kind, KernelKind::collective);
  return r.program.kernels.at(1).collective;
}

TEST(TorchTraceLaunchShape, BlockCountsNameAChoiceOnlyOnNccl228) {
  EXPECT_EQ(nccl_choice_of_block("2.28.9", 544)->protocol, CollectiveProtocol::simple);
  EXPECT_EQ(nccl_choice_of_block("2.28.9", 544)->algorithm, CollectiveAlgorithm::ring);
  EXPECT_EQ(nccl_choice_of_block("2.28.3", 512)->protocol, CollectiveProtocol::ll);
  // 640: LL128, a tree, NVLS, PAT, CollNet or send/receive alike; 256: a halved LL ring, or a
  // Simple ring under NCCL_NTHREADS=224; neither names one choice.
  EXPECT_FALSE(nccl_choice_of_block("2.28.9", 640).has_value());
  EXPECT_FALSE(nccl_choice_of_block("2.28.9", 256).has_value());
  EXPECT_FALSE(nccl_choice_of_block("2.27.7", 544).has_value());  // another version: not checked
  EXPECT_FALSE(nccl_choice_of_block("2.280.1", 544).has_value());
  EXPECT_FALSE(nccl_choice_of_block("", 544).has_value());
}

// NCCL 2.28.9 on 24 channels with 544 threads: RING SIMPLE on 24 channels, counted as from the
// kernel; the kernel name's "RING_LL" is not read.
TEST(TorchTraceLaunchShape, GridGivesChannelsAndBlockGivesAlgorithmAndProtocol) {
  const TorchImportResult r =
      import_torch_trace(launch_shape_snippet({24, 1, 1}, {544, 1, 1}, "2.28.9"), "t.json", {});
  const Collective& c = launch_shape_all_gather(r);
  EXPECT_EQ(c.channels, 24);
  EXPECT_EQ(c.algorithm, CollectiveAlgorithm::ring);
  EXPECT_EQ(c.protocol, CollectiveProtocol::simple);
  EXPECT_EQ(r.channels_from_grid, std::vector<std::size_t>{1});
  EXPECT_EQ(r.choice_from_block, std::vector<std::size_t>{1});
  EXPECT_EQ(
      collective_choice_summary(r),
      "collective choices: channels from the NCCL log 0, from the kernel grid 1, left to c3sim's tuner 0; "
      "algorithm and protocol from the NCCL log 0, from the kernel block (NCCL 2.28.9) 1, left to "
      "c3sim's tuner 0");
  // The choice reaches the program file, which loads back with it.
  const std::string yaml = torch_import_yaml(r, "t.json");
  EXPECT_NE(yaml.find("algorithm: ring, protocol: simple, channels: 24"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("# collective choices: channels from the NCCL log 0, from the kernel grid 1"),
            std::string::npos);

  // The import result outlives the reference into it.
  const TorchImportResult one =
      import_torch_trace(launch_shape_snippet({1, 1, 1}, {512, 1, 1}, "2.28.9"), "t.json", {});
  const Collective& ll = launch_shape_all_gather(one);
  EXPECT_EQ(ll.channels, 1);
  EXPECT_EQ(ll.protocol, CollectiveProtocol::ll);
}

// Where the block names no choice, the channels still come from the grid and the protocol is left
// to c3sim's tuner: no version, another version, a count with several choices, an AMD device
// (RCCL: 256 threads whatever it runs), no block.
TEST(TorchTraceLaunchShape, BlockWithoutOneChoiceLeavesTheProtocolToTheTuner) {
  const std::vector<std::string> traces = {
      launch_shape_snippet({24, 1, 1}, {544, 1, 1}, ""),
      launch_shape_snippet({24, 1, 1}, {544, 1, 1}, "2.27.7"),
      launch_shape_snippet({24, 1, 1}, {640, 1, 1}, "2.28.9"),
      launch_shape_snippet({24, 1, 1}, {544, 1, 1}, "2.28.9", "AMD Instinct MI300X"),
      launch_shape_snippet({24, 1, 1}, nullptr, "2.28.9"),
  };
  for (const std::string& t : traces) {
    const TorchImportResult r = import_torch_trace(t, "t.json", {});
    const Collective& c = launch_shape_all_gather(r);
    EXPECT_EQ(c.channels, 24);
    EXPECT_FALSE(c.protocol.has_value());
    EXPECT_FALSE(c.algorithm.has_value());
    EXPECT_TRUE(r.choice_from_block.empty());
    EXPECT_NE(collective_choice_summary(r).find("from the kernel block"), std::string::npos);
  }
  // A version that is no version number is not kept.
  EXPECT_EQ(import_torch_trace(launch_shape_snippet({24, 1, 1}, {544, 1, 1}, "2.28.9; rm"), "t.json", {})
                .nccl_version,
            "");
}

// A grid that is not {x, 1, 1} with x in range names no channels; it is no error (the grid is
// only read where it says something).
TEST(TorchTraceLaunchShape, GridThatIsNotOneDimensionalNamesNoChannels) {
  for (const nlohmann::json& grid :
       {nlohmann::json{24, 2, 1}, nlohmann::json{0, 1, 1}, nlohmann::json{-3, 1, 1},
        nlohmann::json{"24", 1, 1}, nlohmann::json::array(), nlohmann::json{int64_t{1} << 40, 1, 1}}) {
    const TorchImportResult r =
        import_torch_trace(launch_shape_snippet(grid, {544, 1, 1}, "2.28.9"), "t.json", {});
    EXPECT_FALSE(launch_shape_all_gather(r).channels.has_value()) << grid.dump();
    EXPECT_TRUE(r.channels_from_grid.empty());
    EXPECT_NE(collective_choice_summary(r).find("from the kernel grid 0, left to c3sim's tuner 1"),
              std::string::npos);
  }
}

// The snippet's all-gather gathers 4 MiB on 2 ranks: NCCL logs 2 MiB per rank. The log's 16 LL128
// channels override the grid's 24 and the block's Simple, and the counts say so.
TEST(TorchTraceLaunchShape, NcclLogOverridesTheLaunchShape) {
  TorchImportResult r =
      import_torch_trace(launch_shape_snippet({24, 1, 1}, {544, 1, 1}, "2.28.9"), "t.json", {});
  apply_nccl_log(
      r, parse_nccl_tuning_log("h:1:1 [0] NCCL INFO AllGather: 2097152 Bytes -> Algo RING proto LL128 "
                               "channel{Lo..Hi}={0..15}\n",
                               "nccl.log"));
  const Collective& c = launch_shape_all_gather(r);
  EXPECT_EQ(c.channels, 16);
  EXPECT_EQ(c.protocol, CollectiveProtocol::ll128);
  EXPECT_EQ(
      collective_choice_summary(r),
      "collective choices: channels from the NCCL log 1, from the kernel grid 0, left to c3sim's tuner 0; "
      "algorithm and protocol from the NCCL log 1, from the kernel block (NCCL 2.28.9) 0, left to "
      "c3sim's tuner 0");
  // A log line for another size matches nothing: the launch shape stays.
  TorchImportResult other =
      import_torch_trace(launch_shape_snippet({24, 1, 1}, {544, 1, 1}, "2.28.9"), "t.json", {});
  apply_nccl_log(
      other, parse_nccl_tuning_log(
                 "h:1:1 [0] NCCL INFO AllGather: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n",
                 "nccl.log"));
  EXPECT_EQ(launch_shape_all_gather(other).channels, 24);
  EXPECT_EQ(launch_shape_all_gather(other).protocol, CollectiveProtocol::simple);
  EXPECT_NE(collective_choice_summary(other).find("from the NCCL log 0, from the kernel grid 1"),
            std::string::npos);
}

// The log stays strictly parsed whatever the trace's launch shape gives: a tuning line that does not
// parse is an InputError naming the log's file, line and field.
TEST(TorchTraceLaunchShape, BadTuningLineStaysAnInputError) {
  try {
    parse_nccl_tuning_log(
        "ok\nh:1:1 [0] NCCL INFO AllGather: 2097152 Bytes -> Algo RING proto LL64 "
        "channel{Lo..Hi}={0..15}\n",
        "nccl.log");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "nccl.log");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.key(), "proto");
  }
}

}  // namespace
}  // namespace c3sim::wl
