// The JSON Lines measurement schema: exact field sets, round trips, and strict reading errors
// that name file, JSONL line and key.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "sim/base/version.h"
#include "workloads/measurement.h"
#include "workloads/strict_json.h"

namespace c3sim::wl {
namespace {

using nlohmann::json;

EnvRecord env() {
  EnvRecord r;
  r.producer = "c3sim";
  r.hardware = "mi300x";
  r.gpus = 8;
  r.cus_per_gpu = 304;
  r.details = {{"clock_mhz", 2100}};
  return r;
}

IsoGemmRecord iso_gemm() {
  IsoGemmRecord r;
  r.tag = "cb1";
  r.m = r.n = r.k = 8192;
  r.cus = 304;
  r.time_us = 1234.5678901234567;
  r.spread_us = 0.1;
  r.trials = 9;
  return r;
}

IsoCollRecord iso_coll() {
  IsoCollRecord r;
  r.op = "all_gather";
  r.bytes = 896LL << 20;
  r.impl = "dma";
  r.gpus = 8;
  r.engines = 14;
  r.time_us = 2900;
  return r;
}

C3Record c3() {
  C3Record r;
  r.scenario = "cb1_896M_ag";
  r.policy = "rp:32";
  r.gemm_tag = "cb1";
  r.m = r.n = r.k = 8192;
  r.op = "all_gather";
  r.bytes = 896LL << 20;
  r.impl = "cu";
  r.gpus = 8;
  r.time_us = 3000;
  r.gemm_time_us = 1500.25;
  r.coll_time_us = 2999;
  r.iso_gemm_us = 1234.5;
  r.iso_coll_us = 2900;
  r.speedup = 1.378;
  r.ideal_speedup = 1.4256;
  r.percent_of_ideal = 96.66;
  r.attribution = {{"gemm", {{"cu_loss", 0.2}}}};
  return r;
}

std::vector<Record> all_records() { return {env(), iso_gemm(), iso_coll(), c3()}; }

TEST(Measurement, HeaderAndFieldNames) {
  const json j = to_json(Record(iso_coll()));
  EXPECT_EQ(j["schema"], "c3sim.measurement");
  EXPECT_EQ(j["version"], kSchemaVersion);
  EXPECT_EQ(j["kind"], "iso_coll");
  EXPECT_EQ(j["engines"], 14);
  EXPECT_EQ(j["time_us"], 2900.0);
  // Optional fields omitted when empty.
  EXPECT_FALSE(j.contains("workgroups"));
  EXPECT_FALSE(j.contains("spread_us"));
  EXPECT_FALSE(j.contains("extra"));
  EXPECT_EQ(to_json(Record(env()))["kind"], "env");
  EXPECT_EQ(to_json(Record(iso_gemm()))["kind"], "iso_gemm");
  EXPECT_EQ(to_json(Record(c3()))["kind"], "c3");
  EXPECT_FALSE(to_json(Record(c3())).contains("extra"));
  EXPECT_TRUE(to_json(Record(c3())).contains("attribution"));
  IsoGemmRecord untagged = iso_gemm();
  untagged.tag.clear();
  EXPECT_FALSE(to_json(untagged).contains("tag"));
  EXPECT_STREQ(kind_of(Record(c3())), "c3");
  EXPECT_STREQ(kind_of(Record(env())), "env");
}

TEST(Measurement, JsonlRoundTripIsExactAndDeterministic) {
  const std::vector<Record> records = all_records();
  const std::string text = to_jsonl(records);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
  const std::vector<Record> back = read_measurements_string(text, "m.jsonl");
  ASSERT_EQ(back.size(), records.size());
  for (std::size_t i = 0; i < back.size(); ++i) EXPECT_EQ(to_json(back[i]), to_json(records[i]));
  EXPECT_EQ(to_jsonl(back), text);
  // Doubles come back bit-for-bit.
  EXPECT_EQ(std::get<IsoGemmRecord>(back[1]).time_us, 1234.5678901234567);
  EXPECT_EQ(std::get<C3Record>(back[3]).percent_of_ideal, 96.66);
  // Keys sorted: "bytes" precedes "engines" precedes "gpus".
  EXPECT_LT(text.find("\"bytes\""), text.find("\"engines\""));
}

// Every env record names the c3sim release that wrote it; files of schema 1, which did not, still
// load (with the release unknown), while a schema-2 env record without it is malformed.
TEST(Measurement, EnvRecordNamesTheRelease) {
  const json j = to_json(Record(env()));
  ASSERT_TRUE(j.contains("c3sim_version"));
  EXPECT_EQ(j["c3sim_version"], c3sim::version());
  EXPECT_FALSE(std::string(c3sim::version()).empty());

  json old = j;
  old["version"] = 1;
  old.erase("c3sim_version");
  const Record back = record_from_json(old, SourceLocation{"old.jsonl", 1, 0});
  EXPECT_EQ(std::get<EnvRecord>(back).c3sim_version, "");
  EXPECT_EQ(std::get<EnvRecord>(back).hardware, "mi300x");
  // Written again it is a schema-2 record, so it names the release as unknown and reads back
  // (a schema-1 file read and re-written was unreadable: the fuzz target's round trip).
  const json rewritten = to_json(back);
  EXPECT_EQ(rewritten["c3sim_version"], kUnknownRelease);
  EXPECT_EQ(std::get<EnvRecord>(record_from_json(rewritten, SourceLocation{"new.jsonl", 1, 0})).c3sim_version,
            kUnknownRelease);

  json old_with_release = j;
  old_with_release["version"] = 1;
  EXPECT_EQ(std::get<EnvRecord>(record_from_json(old_with_release, SourceLocation{})).c3sim_version,
            c3sim::version());
}

TEST(Measurement, ReadsFilesWithBlankLinesAndCrLf) {
  const std::string path = ::testing::TempDir() + "c3sim_measurement_test.jsonl";
  {
    std::ofstream out(path, std::ios::binary);
    out << "\n" << to_json(Record(env())).dump() << "\r\n   \n" << to_json(Record(c3())).dump() << "\n";
  }
  const auto records = read_measurements(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(std::get<C3Record>(records[1]).policy, "rp:32");
  try {
    (void)read_measurements(path + ".missing");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, path + ".missing");
  }
}

TEST(Measurement, AcceptsOpAliasesAndNormalizes) {
  json j = to_json(Record(iso_coll()));
  j["op"] = "all-gather";
  j["impl"] = "vendor-zero-cta";
  const auto r = std::get<IsoCollRecord>(record_from_json(j, {"x", 1, 0}));
  EXPECT_EQ(r.op, "all_gather");
  EXPECT_EQ(r.impl, "vendor_zero_cta");
}

TEST(Measurement, FormatDoubleRoundTrips) {
  for (double v : {0.1, 1234.5678901234567, 1e300, 5e-324, 3.0, -2.5}) {
    EXPECT_EQ(std::strtod(format_double(v).c_str(), nullptr), v) << format_double(v);
  }
  EXPECT_EQ(format_double(0.1), "0.1");
  EXPECT_EQ(format_double(3.0), "3");
}

TEST(Measurement, WritingNonFiniteIsABug) {
  IsoGemmRecord r = iso_gemm();
  r.time_us = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW((void)to_json(r), ModelError);
  C3Record c = c3();
  c.speedup = std::numeric_limits<double>::infinity();
  EXPECT_THROW((void)to_json(c), ModelError);
}

// Mutates a valid record's JSON, reads it as line 7 of "m.jsonl", expects an error on `key`.
template <typename F>
void expect_bad(const Record& good, const std::string& key, F mutate) {
  json j = to_json(good);
  mutate(j);
  try {
    (void)record_from_json(j, SourceLocation{"m.jsonl", 7, 0});
    ADD_FAILURE() << "accepted: " << j.dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), key) << e.what();
    EXPECT_EQ(e.where().line, 7);
    EXPECT_EQ(e.where().file, "m.jsonl");
  }
}

TEST(Measurement, StrictReadingErrors) {
  // Header.
  expect_bad(env(), "kind", [](json& j) { j["kind"] = "iso_thing"; });
  expect_bad(env(), "kind", [](json& j) { j.erase("kind"); });
  expect_bad(env(), "schema", [](json& j) { j["schema"] = "other"; });
  expect_bad(env(), "schema", [](json& j) { j.erase("schema"); });
  expect_bad(env(), "version", [](json& j) { j["version"] = kSchemaVersion + 1; });
  expect_bad(env(), "version", [](json& j) { j["version"] = 0; });
  expect_bad(env(), "version", [](json& j) { j["version"] = "1"; });
  expect_bad(env(), "version", [](json& j) { j["version"] = 1.5; });
  // Unknown and missing fields.
  expect_bad(env(), "colour", [](json& j) { j["colour"] = "red"; });
  expect_bad(env(), "gpus", [](json& j) { j.erase("gpus"); });
  expect_bad(env(), "details", [](json& j) { j["details"] = 3; });
  expect_bad(env(), "c3sim_version", [](json& j) { j.erase("c3sim_version"); });
  expect_bad(env(), "c3sim_version", [](json& j) { j["c3sim_version"] = 1; });
  expect_bad(iso_gemm(), "time_us", [](json& j) { j.erase("time_us"); });
  expect_bad(iso_gemm(), "trials", [](json& j) { j.erase("trials"); });
  expect_bad(iso_coll(), "op", [](json& j) { j.erase("op"); });
  expect_bad(c3(), "coll_time_us", [](json& j) { j.erase("coll_time_us"); });
  expect_bad(c3(), "scenario", [](json& j) { j.erase("scenario"); });
  // Wrong types.
  expect_bad(iso_gemm(), "m", [](json& j) { j["m"] = 8192.0; });
  expect_bad(iso_gemm(), "m", [](json& j) { j["m"] = "8192"; });
  expect_bad(iso_gemm(), "time_us", [](json& j) { j["time_us"] = "12"; });
  expect_bad(iso_gemm(), "time_us", [](json& j) { j["time_us"] = nullptr; });
  expect_bad(iso_gemm(), "tag", [](json& j) { j["tag"] = 1; });
  expect_bad(c3(), "attribution", [](json& j) { j["attribution"] = json::array(); });
  expect_bad(c3(), "policy", [](json& j) { j["policy"] = json::array({"base"}); });
  // Impossible values.
  expect_bad(iso_gemm(), "time_us", [](json& j) { j["time_us"] = -1.0; });
  expect_bad(iso_gemm(), "spread_us", [](json& j) { j["spread_us"] = -0.5; });
  expect_bad(c3(), "gemm_time_us", [](json& j) { j["gemm_time_us"] = -3; });
  expect_bad(c3(), "speedup", [](json& j) { j["speedup"] = -1.0; });
  expect_bad(iso_gemm(), "k", [](json& j) { j["k"] = 0; });
  expect_bad(iso_gemm(), "cus", [](json& j) { j["cus"] = -4; });
  expect_bad(iso_gemm(), "trials", [](json& j) { j["trials"] = 0; });
  expect_bad(iso_gemm(), "dtype", [](json& j) { j["dtype"] = "int4"; });
  expect_bad(iso_coll(), "bytes", [](json& j) { j["bytes"] = std::numeric_limits<std::uint64_t>::max(); });
  expect_bad(iso_coll(), "gpus", [](json& j) { j["gpus"] = 1LL << 40; });
  expect_bad(iso_coll(), "op", [](json& j) { j["op"] = "gather"; });
  expect_bad(iso_coll(), "impl", [](json& j) { j["impl"] = "nccl"; });
  expect_bad(iso_coll(), "workgroups", [](json& j) { j["workgroups"] = 0; });
  expect_bad(iso_coll(), "engines", [](json& j) { j["engines"] = -14; });
}

TEST(Measurement, NotAnObject) {
  try {
    (void)record_from_json(json::array(), SourceLocation{"m.jsonl", 3, 0});
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 3);
  }
}

TEST(Measurement, ErrorsNameTheJsonlLine) {
  const std::string good = to_json(Record(env())).dump();
  auto line_of_error = [](const std::string& text) {
    try {
      (void)read_measurements_string(text, "f.jsonl");
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().file, "f.jsonl");
      return e.where().line;
    }
    return -1;
  };
  EXPECT_EQ(line_of_error(good + "\n\n{not json\n"), 3);
  EXPECT_EQ(line_of_error(good + "\n" + good + "\n[1,2]\n"), 3);
  json bad = to_json(Record(c3()));
  bad["time_us"] = -5;
  EXPECT_EQ(line_of_error(good + "\n" + bad.dump() + "\n"), 2);
  EXPECT_EQ(line_of_error(good + " trailing\n"), 1);
  EXPECT_EQ(line_of_error(good + "\n{\"x\": 1e999999}\n"), 2);  // too large for a double (fuzz find)
  EXPECT_TRUE(read_measurements_string("", "empty").empty());
}

// A record nested deeper than any record is (its `extra` object: 3 levels) is refused before the
// tree is built, at the bracket that went too deep: copying or dumping a tree recurses per level.
TEST(Measurement, DeepNestingIsRefusedAtItsBracket) {
  json rec = to_json(Record(env()));
  const std::string text = rec.dump();
  const std::string deep = text.substr(0, text.size() - 1) + ", \"extra\": " + std::string(100000, '[') +
                           std::string(100000, ']') + "}";
  try {
    (void)read_measurements_string(text + "\n" + deep + "\n", "f.jsonl");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, static_cast<int>(text.size() - 1 + std::string(", \"extra\": ").size() + 64));
    EXPECT_NE(e.problem().find("nesting deeper than 64"), std::string::npos) << e.what();
  }
  // Brackets inside strings do not count.
  EXPECT_NO_THROW(check_json_depth("{\"s\": \"" + std::string(100, '[') + "\\\"\"}", 2, SourceLocation{}));
}

}  // namespace
}  // namespace c3sim::wl
