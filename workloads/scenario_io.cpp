// Reading scenario YAML (the writer is scenario_yaml_writer.cpp). Parse with StrictMap so every
// key is accounted for, then check the values that depend on each other (bytes vs gpus x dtype).
#include "workloads/scenario_io.h"

#include <set>
#include <utility>

#include <fmt/format.h>

#include "sim/base/input_file.h"
#include "workloads/input_limits.h"
#include "workloads/paper_catalog.h"
#include "workloads/workload_yaml_fields.h"

namespace c3sim::wl {

namespace {

void parse_policies(StrictMap& m, Scenario& s) {
  if (!m.has("policies")) return;
  const std::vector<YAML::Node> items = m.sequence("policies");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const SourceLocation where = location_of(items[i], m.file());
    const std::string key = fmt::format("{}[{}]", m.qualified("policies"), i);
    if (!items[i].IsScalar())
      throw InputError(where, key, "expected a policy name such as base, sp or \"rp:32\"");
    if (items[i].Scalar().empty()) throw InputError(where, key, "policy name must not be empty");
    s.policies.push_back(items[i].Scalar());
    s.policy_locations.push_back(where);
  }
}

void check_divisible(std::int64_t bytes, std::int64_t gpus, Dtype dtype, const SourceLocation& where,
                     const std::string& key) {
  const std::int64_t unit = gpus * dtype_bytes(dtype);
  if (bytes % unit != 0) {
    throw InputError(where, key,
                     fmt::format("{} bytes do not split into {} equal shards of whole {} elements "
                                 "(must be a multiple of {} x {} = {} bytes)",
                                 bytes, gpus, to_string(dtype), gpus, dtype_bytes(dtype), unit));
  }
}

Scenario parse_explicit(StrictMap& m) {
  Scenario s;
  s.location = m.location();
  s.name = nonempty_string(m, "name");
  s.tag = m.optional_string("tag").value_or("");
  s.source = m.optional_string("source").value_or("");
  if (auto t = m.optional_string("taxonomy")) {
    s.paper_taxonomy = parse_taxonomy(*t);
    if (!s.paper_taxonomy)
      m.fail("taxonomy", fmt::format("unknown taxonomy '{}' (G-long, C-long, GC-equal)", *t));
  }
  if (m.has("gpus")) {
    const std::int64_t g = positive_integer(m, "gpus", kMaxGpus);
    check_gpu_count(g, m.location("gpus"), m.qualified("gpus"));
    s.gpus = static_cast<int>(g);
  }
  s.gemm = gemm_field(m, nullptr);  // `gemm: cb1` (a Table I tag) or a mapping with the shape
  const CollectiveField c = collective_field(m.map("collective"), kMaxWorkgroups, BoundInMessage::named);
  s.collective = c.collective;
  parse_policies(m, s);
  m.finish();
  // Without `gpus` the node decides; check_scenario_fits() repeats this check with its count.
  check_divisible(s.collective.bytes, s.gpus.value_or(1), s.gemm.dtype, c.bytes_location, c.bytes_key);
  return s;
}

// `catalog: all`, a Table II tag (both collectives) or one scenario name.
void expand_catalog(StrictMap& m, std::vector<Scenario>& out) {
  const std::string ref = nonempty_string(m, "catalog");
  std::vector<Scenario> picked;
  if (ref == "all") {
    picked = paper_scenarios();
  } else if (auto s = find_paper_scenario(ref)) {
    picked.push_back(*s);
  } else if (auto c = find_paper_combination(ref)) {
    for (CollectiveOp op : {CollectiveOp::all_gather, CollectiveOp::all_to_all}) {
      picked.push_back(make_paper_scenario(*c, op));
    }
  } else {
    m.fail("catalog", fmt::format("'{}' is not a catalog scenario (e.g. mb1_896M_ag), a Table II tag "
                                  "(e.g. mb1_896M) or 'all'",
                                  ref));
  }
  Scenario overrides;
  parse_policies(m, overrides);
  const bool has_policies = m.has("policies");
  m.finish();
  for (Scenario& s : picked) {
    s.location = m.location();
    if (has_policies) {
      s.policies = overrides.policies;
      s.policy_locations = overrides.policy_locations;
    }
    out.push_back(std::move(s));
  }
}

// Appends the entry's scenarios; `name_keys` gets, for each, the dotted key that named it (for
// the duplicate-name message).
void parse_entry(const YAML::Node& node, const std::string& file, const std::string& path,
                 std::vector<Scenario>& out, std::vector<std::pair<SourceLocation, std::string>>& name_keys) {
  StrictMap m(node, file, path);
  const std::size_t before = out.size();
  const std::string name_key = m.has("catalog") ? "catalog" : "name";
  if (m.has("catalog")) {
    expand_catalog(m, out);
  } else {
    out.push_back(parse_explicit(m));
  }
  for (std::size_t i = before; i < out.size(); ++i)
    name_keys.emplace_back(m.location(name_key), m.qualified(name_key));
}

void reject_duplicate_names(const std::vector<Scenario>& scenarios,
                            const std::vector<std::pair<SourceLocation, std::string>>& name_keys) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    if (!seen.insert(scenarios[i].name).second) {
      throw InputError(name_keys[i].first, name_keys[i].second,
                       fmt::format("duplicate scenario name '{}'", scenarios[i].name));
    }
  }
}

}  // namespace

std::vector<Scenario> scenarios_from_yaml(const YamlDocument& doc) {
  if (!doc.root.IsDefined() || doc.root.IsNull()) {
    throw InputError(SourceLocation{doc.file, 0, 0}, "", "empty scenario file");
  }
  std::vector<Scenario> out;
  std::vector<std::pair<SourceLocation, std::string>> name_keys;
  StrictMap top(doc.root, doc.file, "");
  if (top.has("scenarios")) {
    const std::vector<YAML::Node> entries = top.sequence("scenarios");
    top.finish();
    if (entries.empty()) top.fail("scenarios", "list is empty");
    for (std::size_t i = 0; i < entries.size(); ++i) {
      parse_entry(entries[i], doc.file, fmt::format("scenarios[{}]", i), out, name_keys);
    }
  } else {
    parse_entry(doc.root, doc.file, "", out, name_keys);
  }
  reject_duplicate_names(out, name_keys);
  return out;
}

std::vector<Scenario> load_scenarios_file(const std::string& path) {
  return scenarios_from_yaml(load_yaml_file(path));
}

std::vector<Scenario> load_scenarios_string(const std::string& text, const std::string& label) {
  return scenarios_from_yaml(load_yaml_string(text, label));
}

void check_scenario_fits(const Scenario& s, int node_gpus) {
  if (node_gpus <= 0) throw ModelError(fmt::format("check_scenario_fits: node_gpus {} <= 0", node_gpus));
  if (s.gpus && *s.gpus > node_gpus) {
    throw InputError(s.location, s.name + ".gpus",
                     fmt::format("scenario asks for {} GPUs but the node has {}", *s.gpus, node_gpus));
  }
  // The bounds every input path shares (a sweep reaches here with its settings applied).
  check_gpu_count(s.gpus.value_or(node_gpus), s.location, s.name + ".gpus");
  check_gemm_shape(s.gemm.m, s.gemm.n, s.gemm.k, s.location, s.name + ".gemm");
  check_collective_bytes(s.collective.bytes, 1, 1, s.location, s.name + ".collective.bytes");
  if (s.collective.max_workgroups) {
    check_workgroups(*s.collective.max_workgroups, s.location, s.name + ".collective.max_workgroups");
  }
  if (has_control_character(s.name, /*allow_whitespace=*/false)) {
    throw InputError(s.location, "name", "scenario name holds a control character");
  }
  check_divisible(s.collective.bytes, s.gpus.value_or(node_gpus), s.gemm.dtype, s.location,
                  s.name + ".collective.bytes");
}

}  // namespace c3sim::wl
