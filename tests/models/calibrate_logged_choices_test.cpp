// An isolated collective record may say how the library ran the call (extra.channels, algorithm,
// protocol: NCCL's log). calibrate simulates the record with those choices, so the per-channel rate
// it fits is the rate at the channels that ran, not at the channels the model would give the call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hardware/hardware_loader.h"
#include "models/fit/calibration.h"
#include "models/run/c3_simulator.h"
#include "tests/models/model_test_util.h"
#include "workloads/collective.h"
#include "workloads/measurement.h"

namespace c3sim::models {
namespace {

constexpr std::int64_t kLoggedMiB = 1 << 20;
using testing::two_h200;

// The collective alone on `spec` with the library's choice of `channels`.
double logged_us(const hw::NodeSpec& spec, wl::CollectiveOp op, std::int64_t bytes, int channels) {
  C3Simulator sim(spec);
  wl::Collective c;
  c.op = op;
  c.bytes = bytes;
  c.channels = channels;
  return sim.iso_coll(c, 2, std::nullopt).time_us;
}

// Records of calls that ran on 8 channels (a job capped by NCCL_MAX_NCHANNELS, say) on a node whose
// one CTA copies 15% slower than the base says; `name_channels` says whether each record names them.
std::vector<wl::Record> eight_channel_records(const hw::NodeSpec& truth, bool name_channels) {
  std::vector<wl::Record> out;
  for (const auto op : {wl::CollectiveOp::all_gather, wl::CollectiveOp::reduce_scatter})
    for (const std::int64_t mib : {64, 256, 1024, 2048}) {
      wl::IsoCollRecord r;
      r.op = wl::to_string(op);
      r.bytes = mib * kLoggedMiB;
      r.impl = "cu";
      r.gpus = 2;
      r.time_us = logged_us(truth, op, r.bytes, 8);
      r.trials = 5;
      if (name_channels) {
        r.extra["channels"] = 8;
        r.channels = 8;
      }
      out.emplace_back(r);
    }
  return out;
}

const StageReport& collective_stage(const CalibrationResult& r) {
  const auto it = std::find_if(r.stages.begin(), r.stages.end(),
                               [](const StageReport& s) { return s.name == "collective"; });
  EXPECT_NE(it, r.stages.end());
  return *it;
}

TEST(CalibrateLoggedChoices, FitsTheChannelRateAtTheChannelsThatRan) {
  const hw::NodeSpec base = two_h200();
  hw::NodeSpec truth = base;
  truth.model.collective.workgroup_copy_bw *= 0.85;
  const CalibrationResult named = calibrate(base, {{"named.jsonl", eight_channel_records(truth, true)}});
  const CalibrationResult unnamed = calibrate(base, {{"unnamed.jsonl", eight_channel_records(truth, false)}});
  // Simulated at the 8 channels that ran, the records are the model's own: the fit leaves (almost)
  // nothing, and an 8-channel call of a size it never saw comes out as the truth has it.
  EXPECT_LT(collective_stage(named).rms_log_after, 0.01);
  const auto ag = wl::CollectiveOp::all_gather;
  const double held_out = logged_us(truth, ag, 512 * kLoggedMiB, 8);
  EXPECT_NEAR(logged_us(named.spec, ag, 512 * kLoggedMiB, 8) / held_out, 1.0, 0.02);
  // Fitted as if the records ran the 24 channels the model gives such calls, the per-channel rate
  // comes out too low, and the same 8-channel call far too slow.
  EXPECT_GT(logged_us(unnamed.spec, ag, 512 * kLoggedMiB, 8) / held_out, 1.2);
}

// The choices come from the record's `extra` as read from a file, in NCCL's spelling; a value that
// cannot be the library's choice is an error naming the line and key.
TEST(CalibrateLoggedChoices, RecordsReadTheChoicesFromExtra) {
  const std::string line =
      R"({"schema":"c3sim.measurement","version":2,"kind":"iso_coll","op":"all_reduce","impl":"cu",)"
      R"("gpus":2,"bytes":8192,"time_us":6.6,"trials":20,)"
      R"("extra":{"channels":1,"algorithm":"RING","protocol":"LL","note":"from NCCL's TUNING line"}})";
  const auto records = wl::read_measurements_string(line + "\n", "logged.jsonl");
  ASSERT_EQ(records.size(), 1U);
  const auto& r = std::get<wl::IsoCollRecord>(records[0]);
  EXPECT_EQ(r.channels, 1);
  EXPECT_EQ(r.algorithm, wl::CollectiveAlgorithm::ring);
  EXPECT_EQ(r.protocol, wl::CollectiveProtocol::ll);
  // null: not known, as absent.
  const std::string unknown =
      R"({"schema":"c3sim.measurement","version":2,"kind":"iso_coll","op":"all_to_all","impl":"cu",)"
      R"("gpus":2,"bytes":8192,"time_us":6.6,"trials":20,"extra":{"channels":null,"algorithm":null}})";
  const auto unknown_records = wl::read_measurements_string(unknown + "\n", "u.jsonl");
  const auto& u = std::get<wl::IsoCollRecord>(unknown_records.at(0));
  EXPECT_FALSE(u.channels.has_value());
  EXPECT_FALSE(u.algorithm.has_value());
  const auto bad = [](const std::string& extra, const std::string& key) {
    const std::string text =
        R"({"schema":"c3sim.measurement","version":2,"kind":"iso_coll","op":"all_gather","impl":"cu",)"
        R"("gpus":2,"bytes":8192,"time_us":6.6,"trials":20,"extra":)" +
        extra + "}\n";
    try {
      (void)wl::read_measurements_string(text, "bad.jsonl");
      ADD_FAILURE() << extra << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.jsonl:1"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  bad(R"({"channels":0})", "extra.channels");
  bad(R"({"channels":"24"})", "extra.channels");
  bad(R"({"algorithm":"tree"})", "extra.algorithm");  // a tree all-gather
  bad(R"({"algorithm":"halving"})", "extra.algorithm");
  bad(R"({"protocol":"ll256"})", "extra.protocol");
}

}  // namespace
}  // namespace c3sim::models
