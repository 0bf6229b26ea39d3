// Per-op parameters (hw::PerOp): one field line in the table gives every op a key of its own, the
// keys the hardware files have always used, and each one loads, writes and loads back.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "hardware/hardware_loader.h"
#include "hardware_test_util.h"

namespace c3sim::hw {
namespace {

using testing::expect_input_error;

// Per-op parameter as declared -> its fields, in table order.
std::map<std::string, std::vector<const FieldDef*>> per_op_parameters() {
  std::map<std::string, std::vector<const FieldDef*>> out;
  for (const FieldDef& f : hardware_fields()) {
    if (!f.per_op_parameter.empty()) out[std::string(f.per_op_parameter)].push_back(&f);
  }
  return out;
}

TEST(PerOpFields, EveryParameterHasAFieldForEveryOpInOpOrder) {
  const auto params = per_op_parameters();
  EXPECT_GE(params.size(), 3U);  // protocol_efficiency, partition_rate, copy_passes
  for (const auto& [param, fields] : params) {
    SCOPED_TRACE(param);
    ASSERT_EQ(fields.size(), kCollectiveOpCount);
    for (std::size_t i = 0; i < kCollectiveOpCount; ++i) {
      const CollectiveOp op = kAllCollectiveOps[i];
      EXPECT_EQ(fields[i]->op, op);
      EXPECT_EQ(find_per_op_field(param, op), fields[i]);
      EXPECT_EQ(find_field(fields[i]->key), fields[i]);
    }
  }
  EXPECT_EQ(find_per_op_field("model.collective.step_latency", CollectiveOp::all_gather), nullptr);
}

// The YAML keys every committed hardware file, calibration and sweep uses.
TEST(PerOpFields, KeysAreTheFilesKeys) {
  const std::map<std::string, std::vector<std::string>> expected{
      {"model.collective.protocol_efficiency",
       {"model.collective.protocol_efficiency", "model.collective.all_to_all_protocol_efficiency",
        "model.collective.reduce_scatter_protocol_efficiency",
        "model.collective.all_reduce_protocol_efficiency"}},
      {"model.collective.partition_rate",
       {"model.collective.all_gather_partition_rate", "model.collective.all_to_all_partition_rate",
        "model.collective.reduce_scatter_partition_rate", "model.collective.all_reduce_partition_rate"}},
      {"model.collective.copy_passes",
       {"model.collective.all_gather_copy_passes", "model.collective.all_to_all_copy_passes",
        "model.collective.reduce_scatter_copy_passes", "model.collective.all_reduce_copy_passes"}},
  };
  const auto params = per_op_parameters();
  for (const auto& [param, keys] : expected) {
    ASSERT_TRUE(params.count(param)) << param;
    std::vector<std::string> declared;
    for (const FieldDef* f : params.at(param)) declared.emplace_back(f->key);
    EXPECT_EQ(declared, keys);
  }
  // Required: the all-gather's protocol efficiency (every op's default) and the copying ops' passes.
  EXPECT_TRUE(find_field("model.collective.protocol_efficiency")->required);
  EXPECT_FALSE(find_field("model.collective.all_reduce_protocol_efficiency")->required);
  EXPECT_TRUE(find_field("model.collective.all_gather_copy_passes")->required);
  EXPECT_TRUE(find_field("model.collective.all_to_all_copy_passes")->required);
  EXPECT_FALSE(find_field("model.collective.reduce_scatter_copy_passes")->required);
  for (const FieldDef* f : params.at("model.collective.partition_rate")) EXPECT_FALSE(f->required);
}

double value_of(const FieldDef& f, const NodeSpec& spec) {
  NodeSpec copy = spec;  // ref() gives write access
  return *std::get<double*>(f.ref(copy));
}

// Each op's key alone: a new value, written, loaded back exactly, in that op's slot and nowhere else.
TEST(PerOpFields, EachKeyRoundTripsThroughLoadWriteLoad) {
  const NodeSpec base = load_hardware("h200-sxm");
  for (const auto& [param, fields] : per_op_parameters()) {
    for (const FieldDef* f : fields) {
      SCOPED_TRACE(f->key);
      NodeSpec s = base;
      double& v = *std::get<double*>(f->ref(s));
      v = (v != 0 ? v : 0.5) * 1.0625;  // the same scale, inside every constraint
      const std::string yaml = to_yaml(s);
      EXPECT_NE(yaml.find(std::string(f->leaf()) + ": "), std::string::npos) << yaml;
      const NodeSpec back = load_hardware_from_string(yaml, "<roundtrip>");
      EXPECT_EQ(to_yaml(back), yaml);
      for (const FieldDef* other : fields) {
        EXPECT_EQ(value_of(*other, back), other == f ? v : value_of(*other, base)) << other->key;
      }
    }
  }
}

// An optional op's value 0 is absent: not written, and reads back as 0 (the parameter's default).
TEST(PerOpFields, AbsentOpValuesAreNotWritten) {
  const NodeSpec mi = load_hardware("mi300x");
  EXPECT_FALSE(mi.model.collective.partition_rate.has(CollectiveOp::all_reduce));
  EXPECT_FALSE(mi.model.collective.copy_passes.has(CollectiveOp::reduce_scatter));
  const std::string yaml = to_yaml(mi);
  EXPECT_EQ(yaml.find("_partition_rate:"), std::string::npos) << yaml;
  EXPECT_EQ(yaml.find("reduce_scatter_copy_passes:"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("all_to_all_copy_passes:"), std::string::npos) << yaml;
  EXPECT_EQ(mi.model.collective.partition_rate.own_or(CollectiveOp::all_reduce, 1.0), 1.0);
}

TEST(PerOpFields, EachOpValueIsCheckedLikeAnyField) {
  NodeSpec s = load_hardware("h200-sxm");
  expect_input_error([&] { set_field(s, "model.collective.all_reduce_protocol_efficiency", "1.5"); },
                     "<override>", 0, "model.collective.all_reduce_protocol_efficiency");
  expect_input_error([&] { set_field(s, "model.collective.reduce_scatter_partition_rate", "-1"); },
                     "<override>", 0, "model.collective.reduce_scatter_partition_rate");
  expect_input_error([&] { set_field(s, "model.collective.all_to_all_copy_passes", "0"); }, "<override>", 0,
                     "model.collective.all_to_all_copy_passes");
}

}  // namespace
}  // namespace c3sim::hw
