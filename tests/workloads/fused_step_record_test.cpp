// The fused_step record (c3bench sweep --what fused_a2a): round trip, strict reading of its fields,
// and the committed 2 x H200 measurement read back whole.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

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

// The committed measurement (hardware/measurements/fused_2gpu/): every fused output matched the
// bulk step's word for word; each record's bytes are batch x tables x dim x 4 (fp32); the bulk
// step takes at least its lookup alone (it runs the lookup, then the all-to-all, on one stream);
// and at its best chunk size the fused step is shorter than the bulk one at every size.
TEST(FusedStepRecord, CommittedH200x2MeasurementIsConsistent) {
  const auto records =
      read_measurements(std::string(C3SIM_SOURCE_DIR) + "/hardware/measurements/fused_2gpu/fused_2gpu.jsonl");
  using Size = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  std::map<Size, double> bulk, best_fused;
  std::map<Size, int> bulk_tile;
  std::map<std::tuple<Size, int>, double> lookup;
  int fused = 0;
  for (const Record& rec : records) {
    const auto* r = std::get_if<FusedStepRecord>(&rec);
    if (r == nullptr) continue;
    EXPECT_EQ(r->bytes, r->batch * r->tables * r->dim * 4);
    const Size size{r->batch, r->tables, r->dim, r->pooling};
    if (r->variant == "fused") {
      ++fused;
      EXPECT_EQ(r->extra.at("verified_wrong_words").get<std::uint64_t>(), 0u);
      const auto it = best_fused.find(size);
      best_fused[size] = it == best_fused.end() ? r->time_us : std::min(it->second, r->time_us);
    } else if (r->variant == "bulk") {
      bulk[size] = r->time_us;
      bulk_tile[size] = r->extra.at("lookup_tile").get<int>();
    } else if (r->variant == "lookup") {
      ASSERT_TRUE(r->chunk.has_value());
      lookup[{size, *r->chunk}] = r->time_us;
    }
  }
  EXPECT_EQ(fused, 35);  // 5 sizes x 7 chunk sizes
  ASSERT_EQ(bulk.size(), 5u);
  for (const auto& [size, t] : bulk) {
    EXPECT_GE(t, lookup.at({size, bulk_tile.at(size)}));
    EXPECT_LT(best_fused.at(size), t);
  }
}

}  // namespace
}  // namespace c3sim::wl
