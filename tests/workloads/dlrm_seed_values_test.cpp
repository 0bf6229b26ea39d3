// workloads/dlrm_seed_values.yaml, which examples/dlrm_table.py prints beside the DLRM sweeps: read
// strictly (no unknown key, every field the reader uses), each value printed in the sentence it
// quotes, and the ids the table looks up all present once.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "sim/base/strict_yaml.h"

namespace c3sim {
namespace {

TEST(DlrmSeedValues, EveryValueIsInItsQuote) {
  const YamlDocument doc = load_yaml_file(std::string(C3SIM_SOURCE_DIR) + "/workloads/dlrm_seed_values.yaml");
  StrictMap root(doc.root, doc.file, "");
  std::set<std::string> ids;
  for (const YAML::Node& node : root.sequence("values")) {
    StrictMap v(node, doc.file, "values");
    const std::string id = v.string("id");
    EXPECT_TRUE(ids.insert(id).second) << id << " twice";
    EXPECT_EQ(v.string("section"), "abstract") << id;
    const std::string quote = v.string("quote");
    const double value = v.number("value");
    EXPECT_GT(v.number("precision"), 0) << id;
    (void)v.optional_string("note");
    v.finish();
    // "25%" or "~10%": the value as the sentence prints it, a whole percentage.
    ASSERT_EQ(value, std::round(value)) << id;
    EXPECT_NE(quote.find(fmt::format("{}%", static_cast<int>(value))), std::string::npos)
        << id << ": " << quote;
  }
  root.finish();
  EXPECT_EQ(ids, (std::set<std::string>{"intra_node.embedding_all_to_all.mean",
                                        "intra_node.embedding_all_to_all.max",
                                        "inter_node.embedding_all_to_all.mean",
                                        "inter_node.embedding_all_to_all.max", "128_nodes.dlrm_step.mean"}));
}

}  // namespace
}  // namespace c3sim
