// Reading scenario YAML (the writer is scenario_yaml_writer.cpp). Parse with StrictMap so every
// key is accounted for, then check the values that depend on each other (bytes vs gpus x dtype).
#include "workloads/scenario_io.h"

#include <cmath>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "sim/base/input_file.h"
#include "sim/base/units.h"
#include "workloads/input_limits.h"
#include "workloads/paper_catalog.h"

namespace c3sim::wl {

namespace {

// The bounds are workloads/input_limits.h's, shared with sweeps and measurement records.
constexpr std::int64_t kMaxDim = kMaxGemmDim;
constexpr std::int64_t kMaxBytes = kMaxCollectiveBytes;

std::int64_t positive(StrictMap& m, const std::string& key, std::int64_t max) {
  const std::int64_t v = m.integer(key);
  if (v <= 0) m.fail(key, fmt::format("must be positive, got {}", v));
  if (v > max) m.fail(key, fmt::format("must be at most {}, got {}", max, v));
  return v;
}

std::optional<std::int64_t> optional_positive(StrictMap& m, const std::string& key, std::int64_t max) {
  if (!m.has(key)) return std::nullopt;
  return positive(m, key, max);
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A byte count: a plain integer or a size with a unit ("896 MiB", "3.25 GiB") that comes out whole.
std::int64_t parse_bytes(StrictMap& m, const std::string& key) {
  const std::string text = m.string(key);
  double value = 0;
  if (all_digits(text)) {
    if (text.size() > 16) m.fail(key, fmt::format("'{}' is too large (at most {} bytes)", text, kMaxBytes));
    value = static_cast<double>(std::stoll(text));
  } else {
    std::string why;
    const std::optional<double> q = parse_quantity(text, Dimension::bytes, &why);
    if (!q) m.fail(key, why);
    value = *q;
  }
  if (!(value > 0)) m.fail(key, fmt::format("must be positive, got '{}'", text));
  if (value > static_cast<double>(kMaxBytes)) {
    m.fail(key, fmt::format("'{}' is too large (at most {} bytes)", text, kMaxBytes));
  }
  if (value != std::floor(value)) m.fail(key, fmt::format("'{}' is not a whole number of bytes", text));
  return static_cast<std::int64_t>(value);
}

std::string nonempty_string(StrictMap& m, const std::string& key) {
  std::string s = m.string(key);
  if (s.empty()) m.fail(key, "must not be empty");
  return s;
}

Gemm parse_gemm_map(StrictMap g) {
  Gemm gemm;
  gemm.tag = g.optional_string("tag").value_or("");
  gemm.m = positive(g, "m", kMaxDim);
  gemm.n = positive(g, "n", kMaxDim);
  gemm.k = positive(g, "k", kMaxDim);
  if (auto d = g.optional_string("dtype")) {
    const std::optional<Dtype> dtype = parse_dtype(*d);
    if (!dtype) g.fail("dtype", fmt::format("unknown dtype '{}' (bf16, fp16, fp8, fp32, tf32)", *d));
    gemm.dtype = *dtype;
  }
  gemm.source = g.optional_string("source").value_or("");
  g.finish();
  check_gemm_shape(gemm.m, gemm.n, gemm.k, g.location("n"), g.path());
  return gemm;
}

// `gemm: cb1` (a Table I tag) or a mapping with the shape.
Gemm parse_gemm(StrictMap& m) {
  const YAML::Node node = m.raw("gemm");
  if (!node) m.fail("gemm", "required key is missing");
  if (node.IsScalar()) {
    const std::optional<Gemm> g = find_paper_gemm(node.Scalar());
    if (!g) m.fail("gemm", fmt::format("'{}' is not a Table I tag (cb1..cb5, mb1, mb2)", node.Scalar()));
    return *g;
  }
  if (!node.IsMap()) m.fail("gemm", "expected a Table I tag or a mapping {m, n, k, dtype}");
  return parse_gemm_map(m.map("gemm"));
}

struct ParsedCollective {
  Collective collective;
  SourceLocation bytes_location;
  std::string bytes_key;
};

ParsedCollective parse_collective(StrictMap c) {
  ParsedCollective out;
  const std::string op = c.string("op");
  const std::optional<CollectiveOp> parsed_op = parse_collective_op(op);
  if (!parsed_op) {
    c.fail("op",
           fmt::format("unknown collective '{}' (all_gather, all_to_all, reduce_scatter, all_reduce)", op));
  }
  out.collective.op = *parsed_op;
  out.collective.bytes = parse_bytes(c, "bytes");
  out.bytes_location = c.location("bytes");
  out.bytes_key = c.qualified("bytes");
  if (auto impl = c.optional_string("impl")) {
    const std::optional<CollectiveImpl> parsed = parse_collective_impl(*impl);
    if (!parsed) c.fail("impl", fmt::format("unknown implementation '{}' (cu, dma, vendor_zero_cta)", *impl));
    out.collective.impl = *parsed;
  }
  if (auto wg = optional_positive(c, "max_workgroups", kMaxWorkgroups))
    out.collective.max_workgroups = static_cast<int>(*wg);
  out.collective.in_place = c.optional_boolean("in_place").value_or(false);
  c.finish();
  return out;
}

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
  if (auto g = optional_positive(m, "gpus", kMaxGpus)) {
    check_gpu_count(*g, m.location("gpus"), m.qualified("gpus"));
    s.gpus = static_cast<int>(*g);
  }
  s.gemm = parse_gemm(m);
  const ParsedCollective c = parse_collective(m.map("collective"));
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
