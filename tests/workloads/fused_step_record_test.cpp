// The fused_step record (c3bench sweep --what fused_a2a): round trip and strict reading of its
// fields.
#include <gtest/gtest.h>

#include <string>

#include "workloads/measurement.h"

namespace c3sim::wl {
namespace {

FusedStepRecord fused_record() {
  FusedStepRecord r;
  r.variant = "fused";
  r.gpus = 2;
  r.batch = 16384;
  r.tables = 8;
  r.dim = 128;
  r.pooling = 16;
  r.rows = 500000;
  r.bytes = 16384ll * 8 * 128 * 4;
  r.chunk = 16;
  r.time_us = 296.875;
  r.spread_us = 3.25;
  r.trials = 15;
  r.extra = {{"sweep", "fused_a2a"}, {"verified_wrong_words", 0}};
  return r;
}

TEST(FusedStepRecord, RoundTripsThroughJsonLines) {
  const std::string text = to_jsonl({fused_record()});
  const std::vector<Record> back = read_measurements_string(text, "fused.jsonl");
  ASSERT_EQ(back.size(), 1u);
  const auto* r = std::get_if<FusedStepRecord>(&back.front());
  ASSERT_NE(r, nullptr);
  EXPECT_STREQ(kind_of(back.front()), "fused_step");
  EXPECT_EQ(r->step, "embedding_all_to_all");
  EXPECT_EQ(r->variant, "fused");
  EXPECT_EQ(r->pooling, 16);
  EXPECT_EQ(r->chunk, 16);
  EXPECT_EQ(r->time_us, 296.875);
  EXPECT_EQ(to_jsonl(back), text);
}

TEST(FusedStepRecord, ChunkIsOptionalAndPositive) {
  FusedStepRecord bulk = fused_record();
  bulk.variant = "bulk";
  bulk.chunk.reset();
  const std::string text = to_jsonl({bulk});
  EXPECT_EQ(text.find("\"chunk\""), std::string::npos);
  const std::vector<Record> back = read_measurements_string(text, "f.jsonl");
  ASSERT_EQ(back.size(), 1u);
  const auto* r = std::get_if<FusedStepRecord>(&back.front());
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->chunk.has_value());
  std::string zero = to_jsonl({fused_record()});
  zero.replace(zero.find("\"chunk\":16"), 10, "\"chunk\":0");
  EXPECT_THROW((void)read_measurements_string(zero, "f.jsonl"), InputError);
}

TEST(FusedStepRecord, RejectsUnknownVariantAndStepNamingTheLine) {
  std::string text = to_jsonl({fused_record()});
  const std::string good = text;
  text.replace(text.find("\"fused\""), 7, "\"fusion\"");
  try {
    (void)read_measurements_string("\n" + text, "fused.jsonl");
    FAIL() << "accepted an unknown variant";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("fused.jsonl:2"), std::string::npos) << what;
    EXPECT_NE(what.find("variant"), std::string::npos) << what;
  }
  std::string step = good;
  step.replace(step.find("embedding_all_to_all"), 20, "gemm_reduce_scatter_");
  EXPECT_THROW((void)read_measurements_string(step, "fused.jsonl"), InputError);
}

}  // namespace
}  // namespace c3sim::wl
