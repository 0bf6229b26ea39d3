// The paper's published values (workloads/paper_values.yaml): the built-in file reads, quotes the
// sentences its numbers come from, and the loader rejects a bad file naming file, line and key.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "workloads/paper_values.h"

namespace c3sim::wl {
namespace {

const PaperValue& find(const std::vector<PaperValue>& values, const std::string& id) {
  const auto it = std::find_if(values.begin(), values.end(), [&](const PaperValue& v) { return v.id == id; });
  if (it == values.end()) throw std::runtime_error("no paper value " + id);
  return *it;
}

TEST(PaperValues, BuiltInFileGivesEveryReproducedQuantityOnce) {
  const std::vector<PaperValue> values = published_paper_values();
  std::set<std::string> ids;
  for (const PaperValue& v : values) {
    EXPECT_TRUE(ids.insert(v.id).second) << v.id;
    EXPECT_FALSE(v.quote.empty()) << v.id;
    EXPECT_LE(v.low, v.high) << v.id;
    EXPECT_GT(v.where.line, 0) << v.id;
    EXPECT_EQ(v.where.file, "workloads/paper_values.yaml");
  }
  EXPECT_EQ(ids, std::set<std::string>(paper_value_ids().begin(), paper_value_ids().end()));
}

TEST(PaperValues, HeadlinesAreTheNumbersTheirQuotesState) {
  // Each headline's number must appear in the sentence it cites (seed 003's wording).
  const std::vector<PaperValue> values = published_paper_values();
  struct Headline {
    const char* id;
    double low, high;
    const char* in_quote;
  };
  const Headline rows[] = {
      {"fig8.percent_of_ideal.base", 21, 21, "about 21% of ideal"},
      {"fig8.speedup.base", 1.13, 1.13, "1.13x"},
      {"fig8.percent_of_ideal.sp", 42, 42, "42% of ideal"},
      {"fig8.percent_of_ideal.rp_best", 41, 41, "(41% of ideal"},
      {"fig10.percent_of_ideal.c3_best", 48, 48, "c3_best attains 48%"},
      {"fig10.percent_of_ideal.dma", 66, 66, "ConCCL attains 66%"},
      {"fig10.percent_of_ideal.dma_rp_best", 72, 72, "ConCCL_rp attains 72%"},
      {"fig8.percent_of_ideal.base.all_gather", 24, 46, "all-gather attains about 24-46%"},
      {"fig8.percent_of_ideal.base.all_to_all", 0, 13, "all-to-all attains about 0-13%"},
      {"fig8.percent_of_ideal.sp.all_gather", 38, 67, "c3_sp attains 38-67%"},
      {"fig8.percent_of_ideal.sp.all_to_all", 27, 46, "c3_sp attains 27-46%"},
      {"fig9.dma_over_cu.max_below_32MiB", 4, 4, "<32MB collective size by as much as 4x"},
      {"heuristics.rp_correct", 24, 24, "24 of 30"},
  };
  for (const Headline& h : rows) {
    const PaperValue& v = find(values, h.id);
    EXPECT_EQ(v.low, h.low) << h.id;
    EXPECT_EQ(v.high, h.high) << h.id;
    EXPECT_NE(v.quote.find(h.in_quote), std::string::npos) << h.id << ": " << v.quote;
    EXPECT_EQ(v.read, PaperValueRead::stated) << h.id;
  }
  EXPECT_TRUE(find(values, "fig8.percent_of_ideal.base.all_gather").is_range());
  EXPECT_FALSE(find(values, "fig8.percent_of_ideal.base").is_range());
}

constexpr const char* kGood = R"(values:
  - id: fig8.percent_of_ideal.base
    figure: Fig. 8
    section: IV-C
    quote: "about 21% of ideal speedup"
    read: stated
    value: 21
    precision: 0.5
)";

std::string with(const std::string& from, const std::string& to) {
  std::string s = kGood;
  s.replace(s.find(from), from.size(), to);
  return s;
}

void expect_refused(const std::string& text, int line, const std::string& key, const std::string& problem) {
  try {
    (void)load_paper_values_from_string(text, "bad.yaml");
    ADD_FAILURE() << "accepted:\n" << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "bad.yaml");
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.key(), key) << e.what();
    EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
  }
}

TEST(PaperValues, ReadsAGoodFileAndARange) {
  const auto one = load_paper_values_from_string(kGood, "good.yaml");
  ASSERT_EQ(one.size(), 1U);
  EXPECT_EQ(one[0].low, 21);
  EXPECT_EQ(one[0].precision, 0.5);
  EXPECT_EQ(one[0].where.line, 2);
  const auto range = load_paper_values_from_string(
      with("    value: 21\n", "    low: 24\n    high: 46\n    note: spread of the groups\n"), "good.yaml");
  EXPECT_TRUE(range[0].is_range());
  EXPECT_EQ(range[0].high, 46);
  EXPECT_EQ(range[0].note, "spread of the groups");
}

TEST(PaperValues, RejectsUnknownKeysAndIds) {
  expect_refused(with("    precision: 0.5\n", "    precision: 0.5\n    percent: 21\n"), 9,
                 "values[0].percent", "unknown");
  expect_refused(with("fig8.percent_of_ideal.base", "fig8.percent_of_ideal.prio"), 2, "values[0].id",
                 "unknown id 'fig8.percent_of_ideal.prio'");
  expect_refused(with("values:", "valeus:"), 1, "values", "missing");
}

TEST(PaperValues, RejectsDuplicates) {
  expect_refused(with("    value: 21\n", "    value: 21\n    value: 22\n"), 8, "values[0].value",
                 "duplicate key");
  const std::string twice = std::string(kGood) + std::string(kGood).substr(std::string("values:\n").size());
  expect_refused(twice, 9, "values[1].id", "already given at line 2");
}

TEST(PaperValues, RejectsBadValues) {
  expect_refused(with("read: stated", "read: guessed"), 6, "values[0].read", "stated");
  expect_refused(with("    value: 21\n", ""), 2, "values[0].value", "missing");
  expect_refused(with("    value: 21\n", "    value: 21\n    low: 20\n"), 7, "values[0].value", "not both");
  expect_refused(with("    value: 21\n", "    low: 46\n    high: 24\n"), 8, "values[0].high", "above low");
  expect_refused(with("value: 21", "value: .nan"), 7, "values[0].value", "not a number");
  expect_refused(with("value: 21", "value: 1e999"), 7, "values[0].value", "");
  expect_refused(with("precision: 0.5", "precision: -1"), 8, "values[0].precision", ">= 0");
  expect_refused(with("value: 21", "value: about 21"), 7, "values[0].value", "");
  expect_refused(with("quote: \"about 21% of ideal speedup\"", "quote: \"\""), 5, "values[0].quote", "empty");
}

}  // namespace
}  // namespace c3sim::wl
