// The `program` measurement record: written and read back field for field, strict on bad input.
#include <gtest/gtest.h>

#include "workloads/measurement.h"

namespace c3sim::wl {
namespace {

ProgramRecord sample() {
  ProgramRecord r;
  r.program = "fsdp_layer";
  r.policy = "ficco_best";
  r.gpus = 8;
  r.step_us = 1234.5;
  r.serial_us = 2000;
  r.ideal_us = 1000;
  r.overlap_percent = 76.55;
  r.kernels.push_back(ProgramKernelRecord{"ag#1", "collective", "comm", 0, 0, 6, 400.25, 390});
  r.kernels.push_back(ProgramKernelRecord{"g#1", "gemm", "compute", 5, 400.25, 405.25, 1234.5, std::nullopt});
  // A kernel known only by its duration (c3bench holds its SMs for that long).
  r.kernels.push_back(ProgramKernelRecord{"hold", "measured", "side", 0, 1, 1, 301, 300});
  r.extra["chosen"] = "ficco:4";
  return r;
}

TEST(ProgramRecord, RoundTripsThroughJsonl) {
  const std::vector<Record> in{sample()};
  const std::string text = to_jsonl(in);
  const std::vector<Record> out = read_measurements_string(text, "p.jsonl");
  ASSERT_EQ(out.size(), 1U);
  EXPECT_STREQ(kind_of(out[0]), "program");
  EXPECT_EQ(to_jsonl(out), text);
  const auto& r = std::get<ProgramRecord>(out[0]);
  ASSERT_EQ(r.kernels.size(), 3U);
  EXPECT_DOUBLE_EQ(r.kernels[0].end_us, 400.25);
  EXPECT_EQ(r.kernels[2].kind, "measured");
  EXPECT_FALSE(r.kernels[1].iso_us.has_value());
  EXPECT_EQ(r.extra["chosen"], "ficco:4");
}

TEST(ProgramRecord, RejectsUnknownFieldsAndKinds) {
  std::string text = to_jsonl({sample()});
  for (const auto& [from, to, key] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"\"stream\":\"comm\"", "\"stream\":\"comm\",\"bogus\":1", "bogus"},
           {"\"kind\":\"gemm\"", "\"kind\":\"tensor\"", "kind"},
           {"\"step_us\":1234.5", "\"step_us\":-1", "step_us"},
           // A zero step: validate would print an infinite percentage error for it.
           {"\"step_us\":1234.5", "\"step_us\":0", "step_us"},
           {"\"kernels\":[", "\"kernelz\":[", "kernels"}}) {
    std::string bad = text;
    bad.replace(bad.find(from), from.size(), to);
    try {
      (void)read_measurements_string(bad, "p.jsonl");
      ADD_FAILURE() << to;
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().line, 1);
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace c3sim::wl
