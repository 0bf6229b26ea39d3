// The iso_copy record (c3bench sweep --what copy_engine): round trip, strict reading of its
// fields, and the committed 2 x H200 characterization read back whole.
#include <gtest/gtest.h>

#include <string>

#include "workloads/measurement.h"

namespace c3sim::wl {
namespace {

IsoCopyRecord copy_record() {
  IsoCopyRecord r;
  r.pattern = "bidirectional";
  r.bytes = 1 << 30;
  r.gpus = 2;
  r.peers = 1;
  r.streams = 2;
  r.chunks = 4;
  r.batched = true;
  r.time_us = 2744.25;
  r.spread_us = 3.5;
  r.trials = 5;
  r.extra = {{"sweep", "copy_engine"}};
  return r;
}

TEST(IsoCopyRecord, RoundTripsThroughJsonLines) {
  const std::string text = to_jsonl({copy_record()});
  const std::vector<Record> back = read_measurements_string(text, "copy.jsonl");
  ASSERT_EQ(back.size(), 1u);
  const auto* r = std::get_if<IsoCopyRecord>(&back[0]);
  ASSERT_NE(r, nullptr);
  EXPECT_STREQ(kind_of(back[0]), "iso_copy");
  EXPECT_EQ(r->pattern, "bidirectional");
  EXPECT_EQ(r->bytes, 1 << 30);
  EXPECT_EQ(r->streams, 2);
  EXPECT_EQ(r->chunks, 4);
  EXPECT_TRUE(r->batched);
  EXPECT_EQ(r->time_us, 2744.25);
  EXPECT_EQ(to_jsonl(back), text);
}

TEST(IsoCopyRecord, RejectsUnknownPatternAndNonBooleanBatchedNamingTheLine) {
  std::string text = to_jsonl({copy_record()});
  const std::string good = text;
  text.replace(text.find("bidirectional"), 13, "sideways");
  try {
    (void)read_measurements_string("\n" + text, "copy.jsonl");
    FAIL() << "accepted an unknown pattern";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("copy.jsonl:2"), std::string::npos) << what;
    EXPECT_NE(what.find("pattern"), std::string::npos) << what;
  }
  std::string bad = good;
  bad.replace(bad.find("\"batched\":true"), 14, "\"batched\":1");
  EXPECT_THROW((void)read_measurements_string(bad, "copy.jsonl"), InputError);
}

// The committed characterization: every copy-engine record reads, its bytes were verified, and a
// large one-peer push runs near the NVLink port rate (396 GB/s measured; 450 GB/s per direction
// by the datasheet) while a local copy runs at HBM speed, several times faster.
TEST(IsoCopyRecord, CommittedH200x2CharacterizationIsConsistent) {
  const auto records = read_measurements(std::string(C3SIM_SOURCE_DIR) +
                                         "/hardware/measurements/h200x2_ordered_sweep_copy.jsonl");
  int copies = 0;
  double push_gbps = 0;
  double local_gbps = 0;
  for (const Record& rec : records) {
    const auto* r = std::get_if<IsoCopyRecord>(&rec);
    if (r == nullptr) continue;
    ++copies;
    EXPECT_EQ(r->extra.at("verified_wrong_words").get<std::uint64_t>(), 0u);
    if (r->bytes == (std::int64_t{1} << 30) && r->streams == 1 && r->chunks == 1 && !r->batched) {
      const double gbps = static_cast<double>(r->bytes) / (r->time_us * 1e3);
      if (r->pattern == "push") push_gbps = gbps;
      if (r->pattern == "local") local_gbps = gbps;
    }
  }
  EXPECT_GT(copies, 100);
  EXPECT_GT(push_gbps, 300.0);
  EXPECT_LT(push_gbps, 450.0);
  EXPECT_GT(local_gbps, 3.0 * push_gbps);
}

}  // namespace
}  // namespace c3sim::wl
