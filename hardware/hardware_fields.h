#pragma once
// The ONE declarative table of hardware-file fields: dotted YAML key -> where the value lives in
// NodeSpec, its dimension (unit check) and its constraint. Loading, validation, set_field (sweeps),
// to_yaml and calibration all walk this table, so adding a field is one line in hardware_fields.cpp;
// one line also declares a per-op parameter (hw::PerOp), whose key for each op is a field here.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "hardware/hardware_source_map.h"
#include "hardware/node_spec.h"
#include "sim/base/collective_op.h"
#include "sim/base/errors.h"
#include "sim/base/units.h"

namespace c3sim::hw {

// What a single value must satisfy on its own (cross-field rules live in validate()).
enum class Constraint {
  none,
  non_empty,     // text
  positive,      // > 0 (counts: >= 1)
  non_negative,  // >= 0 (latencies, optional caches)
  at_least_two,  // counts that describe a multi-GPU node
  fraction,      // in (0, 1]
  half_share,    // in [0, 0.5]: one of two or more claimants' share
  at_least_one,  // >= 1: ratios such as a network's oversubscription
};

// Where a field's value lives. The variant's type decides how text is parsed: int* integer,
// double* a quantity of `dim` (or a plain number when dim is dimensionless), bool* true/false,
// std::string* text, Topology*/EngineMap*/WorkgroupRemap*/Network* an enumerator spelling.
using FieldRef =
    std::variant<int*, double*, bool*, std::string*, Topology*, EngineMap*, WorkgroupRemap*, Network*>;

struct FieldDef {
  std::string_view key;  // dotted YAML key, e.g. "spec.memory.hbm_bandwidth"
  Dimension dim;         // for double fields
  Constraint constraint;
  bool required;                     // optional fields (extra peak dtypes) may be absent
  FieldRef (*ref)(NodeSpec&);        // may create the value (map entries) on demand
  bool (*present)(const NodeSpec&);  // nullptr: always present
  // A per-op parameter's field: the parameter as declared ("model.collective.partition_rate") and
  // whose value this is; empty for every other field.
  std::string_view per_op_parameter{};
  CollectiveOp op = CollectiveOp::all_gather;

  [[nodiscard]] std::string_view section() const;  // "spec.memory" ("" for top-level keys)
  [[nodiscard]] std::string_view leaf() const;     // "hbm_bandwidth"
  [[nodiscard]] bool is_present(const NodeSpec& s) const { return present == nullptr || present(s); }
};

// Integer fields are capped so products such as total_cus() stay far inside int.
inline constexpr long long kMaxCount = 1 << 20;

std::span<const FieldDef> hardware_fields();
const FieldDef* find_field(std::string_view key);  // nullptr for an unknown key
// `op`'s field of the per-op parameter declared as `parameter` ("model.collective.partition_rate");
// nullptr if there is none.
const FieldDef* find_per_op_field(std::string_view parameter, CollectiveOp op);
std::vector<std::string> field_names();

// Parses `text` into the field (no constraint check); InputError at `where` on bad text.
void parse_field(const FieldDef& f, NodeSpec& spec, const std::string& text, const SourceLocation& where);
// Checks the field's own constraint; InputError at `where`.
void check_field(const FieldDef& f, const NodeSpec& spec, const SourceLocation& where);
// Text that parse_field reads back to the identical value (quantities in the shortest exact unit).
std::string format_field(const FieldDef& f, const NodeSpec& spec);

// Sweeps: set any field from text, checked exactly like a file value (parse + the field's own
// constraint); on error throws InputError with file "<override>" and leaves `spec` unchanged.
// Cross-field rules are NOT checked here (a sweep may pass through an inconsistent intermediate
// state while setting several fields); call validate() once all overrides are applied. When
// `sources` is given the key is recorded there as coming from "<override>".
void set_field(NodeSpec& spec, const std::string& dotted_key, const std::string& value_text,
               HardwareSourceMap* sources = nullptr);
// The field's current value as text ("" for an absent optional field).
std::string get_field(const NodeSpec& spec, const std::string& dotted_key);

}  // namespace c3sim::hw
