#include "sim/sweep/sweep_spec.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "hardware/hardware_loader.h"
#include "models/policy.h"
#include "sim/base/input_file.h"
#include "sim/base/strict_yaml.h"
#include "workloads/input_limits.h"
#include "workloads/paper_catalog.h"
#include "workloads/scenario_io.h"

namespace c3sim::sweep {

namespace {

namespace fs = std::filesystem;

using Located = LocatedSetting;

bool is_workload_key(const std::string& key) {
  return key == "workload.gpus" || key == "workload.collective.bytes" ||
         key == "workload.collective.bytes_scale" || key == "workload.collective.max_workgroups";
}

void check_key(const std::string& key, const SourceLocation& where, const std::string& qualified) {
  if (is_workload_key(key) || hw::find_field(key) != nullptr) return;
  throw InputError(where, qualified,
                   fmt::format("unknown field '{}': expected a hardware field (e.g. spec.dma.engines, "
                               "model.dma.engine_bandwidth) or workload.gpus, workload.collective.bytes, "
                               "workload.collective.bytes_scale, workload.collective.max_workgroups",
                               key));
}

std::string scalar_text(const YAML::Node& n, const SourceLocation& where, const std::string& qualified) {
  if (!n.IsScalar()) throw InputError(where, qualified, "expected a single value");
  return n.Scalar();
}

std::int64_t positive_integer(const Located& s) {
  try {
    size_t used = 0;
    const long long v = std::stoll(s.setting.value, &used);
    if (used == s.setting.value.size() && v > 0) return v;
  } catch (const std::exception&) {}
  throw InputError(s.where, s.qualified, fmt::format("'{}' is not a positive integer", s.setting.value));
}

double positive_number(const Located& s, Dimension dim) {
  std::string why;
  const auto v = parse_quantity(s.setting.value, dim, &why);
  if (!v) throw InputError(s.where, s.qualified, why);
  if (!(*v > 0) || !std::isfinite(*v)) throw InputError(s.where, s.qualified, "must be positive");
  return *v;
}

// Applies one workload setting to a scenario. bytes_scale rounds to the nearest size the
// collective can shard evenly (a multiple of gpus x element size), never below one such unit.
// Every value is range-checked (workloads/input_limits.h) before it is cast to an integer.
void apply_workload(const Located& s, wl::Scenario& sc, int node_gpus) {
  const std::string& key = s.setting.key;
  if (key == "workload.gpus") {
    const std::int64_t g = positive_integer(s);
    wl::check_gpu_count(g, s.where, s.qualified);
    sc.gpus = static_cast<int>(g);
  } else if (key == "workload.collective.bytes") {
    sc.collective.bytes = wl::checked_bytes(positive_number(s, Dimension::bytes), s.where, s.qualified);
  } else if (key == "workload.collective.bytes_scale") {
    const double unit = static_cast<double>(sc.gpus.value_or(node_gpus)) * hw::dtype_bytes(sc.gemm.dtype);
    const double scaled =
        static_cast<double>(sc.collective.bytes) * positive_number(s, Dimension::dimensionless);
    sc.collective.bytes =
        wl::checked_bytes(std::max(1.0, std::round(scaled / unit)) * unit, s.where, s.qualified);
  } else if (key == "workload.collective.max_workgroups") {
    const std::int64_t w = positive_integer(s);
    wl::check_workgroups(w, s.where, s.qualified);
    sc.collective.max_workgroups = static_cast<int>(w);
  }
}

// Sets one hardware field, re-anchoring set_field's "<override>" error at the sweep file.
void apply_hardware(const Located& s, hw::NodeSpec& spec) {
  try {
    hw::set_field(spec, s.setting.key, s.setting.value);
  } catch (const InputError& e) {
    throw InputError(s.where, s.qualified, e.problem());
  }
}

std::vector<wl::Scenario> resolve_scenarios(StrictMap& root, const std::string& base_dir,
                                            std::vector<std::string>* inputs) {
  std::vector<wl::Scenario> out;
  if (root.has("scenarios")) {
    const auto items = root.sequence("scenarios");
    if (items.empty()) root.fail("scenarios", "empty list");
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string q = fmt::format("scenarios[{}]", i);
      const SourceLocation where = location_of(items[i], root.file());
      const std::string name = scalar_text(items[i], where, q);
      if (name == "all") {
        for (const auto& s : wl::paper_scenarios()) out.push_back(s);
      } else if (auto s = wl::find_paper_scenario(name)) {
        out.push_back(*s);
      } else if (auto c = wl::find_paper_combination(name)) {
        out.push_back(wl::make_paper_scenario(*c, wl::CollectiveOp::all_gather));
        out.push_back(wl::make_paper_scenario(*c, wl::CollectiveOp::all_to_all));
      } else {
        throw InputError(where, q, fmt::format("'{}' is not a paper scenario, Table II tag or 'all'", name));
      }
    }
  }
  if (auto file = root.optional_string("scenario_file")) {
    const fs::path p = fs::path(*file).is_absolute() ? fs::path(*file) : fs::path(base_dir) / *file;
    if (inputs) inputs->push_back(p.string());
    for (auto& s : wl::load_scenarios_file(p.string())) out.push_back(std::move(s));
  }
  if (out.empty()) root.fail("scenarios", "no scenarios: give `scenarios:` and/or `scenario_file:`");
  std::map<std::string, int> seen;
  for (const auto& s : out) {
    if (++seen[s.name] > 1) root.fail("scenarios", fmt::format("scenario '{}' listed twice", s.name));
  }
  return out;
}

// One list of settings per listed variant (a single empty one when there are none).
std::vector<std::pair<std::string, std::vector<Located>>> listed_variants(StrictMap& root) {
  std::vector<std::pair<std::string, std::vector<Located>>> out;
  if (!root.has("variants")) {
    out.emplace_back();
    return out;
  }
  const auto items = root.sequence("variants");
  if (items.empty()) root.fail("variants", "empty list");
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string prefix = fmt::format("variants[{}]", i);
    if (!items[i].IsMap()) throw InputError(location_of(items[i], root.file()), prefix, "expected a mapping");
    std::pair<std::string, std::vector<Located>> v;
    for (const auto& kv : items[i]) {
      const std::string key = kv.first.as<std::string>();
      const SourceLocation where = location_of(kv.second, root.file());
      const std::string q = fmt::format("{}.{}", prefix, key);
      const std::string value = scalar_text(kv.second, where, q);
      if (key == "name") {
        v.first = value;
        continue;
      }
      check_key(key, location_of(kv.first, root.file()), q);
      v.second.push_back(Located{Setting{key, value}, where, q});
    }
    out.push_back(std::move(v));
  }
  return out;
}

// The grid as (key, values) in file order.
std::vector<std::vector<Located>> grid_axes(StrictMap& root) {
  std::vector<std::vector<Located>> axes;
  auto grid = root.optional_map("grid");
  if (!grid) return axes;
  for (const auto& key : grid->keys()) {
    const std::string q = "grid." + key;
    check_key(key, grid->location(key), q);
    const YAML::Node node = grid->raw(key);
    std::vector<YAML::Node> values;
    if (node.IsSequence()) {
      for (const auto& v : node) values.push_back(v);
    } else {
      values.push_back(node);
    }
    if (values.empty()) throw InputError(grid->location(key), q, "empty list of values");
    std::vector<Located> axis;
    for (size_t i = 0; i < values.size(); ++i) {
      const SourceLocation where = location_of(values[i], root.file());
      const std::string qi = fmt::format("{}[{}]", q, i);
      axis.push_back(Located{Setting{key, scalar_text(values[i], where, qi)}, where, qi});
    }
    axes.push_back(std::move(axis));
  }
  grid->finish();
  return axes;
}

std::string resolve_hardware(const std::string& name, const std::string& base_dir) {
  if (hw::find_preset(name) != nullptr) return name;
  const fs::path p = fs::path(name).is_absolute() ? fs::path(name) : fs::path(base_dir) / name;
  return p.string();
}

}  // namespace

SweepSpec load_sweep_string(const std::string& text, const std::string& label, const std::string& base_dir) {
  const YamlDocument doc = load_yaml_string(text, label);
  if (!doc.root.IsMap()) throw InputError(SourceLocation{label, 1, 1}, "", "a sweep file is a mapping");
  StrictMap root(doc.root, doc.file, "");
  SweepSpec out;
  out.hardware = root.optional_string("hardware").value_or("mi300x");
  const hw::NodeSpec base = [&] {
    try {
      return hw::load_hardware(resolve_hardware(out.hardware, base_dir));
    } catch (const InputError& e) {
      // A missing hardware file is the sweep file's error; a bad hardware file names itself.
      if (e.where().line == 0) throw InputError(root.location("hardware"), "hardware", e.what());
      throw;
    }
  }();
  const std::vector<wl::Scenario> scenarios = resolve_scenarios(root, base_dir, &out.input_files);
  out.input_files.push_back(resolve_hardware(out.hardware, base_dir));
  for (const auto& s : scenarios) out.scenario_names.push_back(s.name);

  const auto policy_nodes = root.sequence("policies");
  if (policy_nodes.empty()) root.fail("policies", "empty list");
  std::vector<SourceLocation> policy_where;
  for (size_t i = 0; i < policy_nodes.size(); ++i) {
    const SourceLocation where = location_of(policy_nodes[i], root.file());
    out.policies.push_back(scalar_text(policy_nodes[i], where, fmt::format("policies[{}]", i)));
    policy_where.push_back(where);
  }
  out.policy_locations = policy_where;
  out.listed = listed_variants(root);
  out.axes = grid_axes(root);
  out.variants_where = root.has("grid") ? root.location("grid") : root.location("variants");
  root.finish();
  out.base = base;
  out.base_scenarios = scenarios;

  // Each grid value is checked alone first, so an error names exactly the value that is wrong.
  for (const auto& axis : out.axes) {
    for (const auto& s : axis) {
      hw::NodeSpec probe = base;
      if (!is_workload_key(s.setting.key)) apply_hardware(s, probe);
    }
  }
  // The variant count, refused before it overflows.
  std::size_t grid = 1;
  for (const auto& axis : out.axes) {
    if (grid > kMaxSweepPoints / axis.size()) {
      throw InputError(out.variants_where, "grid", fmt::format("more than {} variants", kMaxSweepPoints));
    }
    grid *= axis.size();
  }
  if (grid > kMaxSweepPoints / out.listed.size() ||
      grid * out.listed.size() > kMaxSweepPoints / (out.scenario_names.size() * out.policies.size())) {
    throw InputError(
        out.variants_where, "grid",
        fmt::format("the sweep has more than {} points (variants x scenarios x policies)", kMaxSweepPoints));
  }
  out.variant_count = grid * out.listed.size();
  // Keys in first-appearance order over the variants: each listed variant's keys, then the grid's.
  for (const auto& [name, settings] : out.listed) {
    std::vector<const Located*> keys;
    for (const auto& s : settings) keys.push_back(&s);
    for (const auto& axis : out.axes) keys.push_back(&axis.front());
    for (const Located* s : keys) {
      if (std::find(out.varied_keys.begin(), out.varied_keys.end(), s->setting.key) ==
          out.varied_keys.end()) {
        out.varied_keys.push_back(s->setting.key);
      }
    }
  }
  const std::size_t eager = std::min(out.variant_count, kEagerVariants) * out.scenario_names.size();
  for (std::size_t t = 0; t < eager; ++t) (void)out.task(t);
  return out;
}

std::string SweepSpec::variant_name(std::size_t variant) const {
  std::size_t grid = 1;
  for (const auto& axis : axes) grid *= axis.size();
  const std::string& given = listed[variant / grid].first;
  return given.empty() ? fmt::format("v{}", variant) : given;
}

Task SweepSpec::task(std::size_t t) const {
  if (t >= tasks()) throw ModelError(fmt::format("sweep task {} of {}", t, tasks()));
  Task out;
  out.index = t;
  out.variant = t / scenario_names.size();
  std::size_t grid = 1;
  for (const auto& axis : axes) grid *= axis.size();
  const auto& [listed_name, listed_settings] = listed[out.variant / grid];
  // Listed variants x grid, the grid's last key varying fastest.
  std::vector<const Located*> settings;
  for (const auto& s : listed_settings) settings.push_back(&s);
  std::vector<std::size_t> odometer(axes.size(), 0);
  std::size_t rest = out.variant % grid;
  for (std::size_t a = axes.size(); a > 0; --a) {
    odometer[a - 1] = rest % axes[a - 1].size();
    rest /= axes[a - 1].size();
  }
  for (std::size_t a = 0; a < axes.size(); ++a) settings.push_back(&axes[a][odometer[a]]);
  out.variant_name = listed_name.empty() ? fmt::format("v{}", out.variant) : listed_name;
  out.spec = base;
  for (const Located* s : settings) {
    out.settings.push_back(s->setting);
    if (!is_workload_key(s->setting.key)) apply_hardware(*s, out.spec);
  }
  SourceLocation where = settings.empty() ? variants_where : settings.front()->where;
  if (!listed_settings.empty()) where = listed_settings.front().where;
  try {
    hw::validate(out.spec);
  } catch (const InputError& e) {
    throw InputError(axes.empty() ? where : variants_where, out.variant_name, e.problem());
  }
  out.scenario = base_scenarios[t % scenario_names.size()];
  for (const Located* s : settings) apply_workload(*s, out.scenario, out.spec.interconnect.gpus);
  try {
    wl::check_scenario_fits(out.scenario, out.spec.interconnect.gpus);
  } catch (const InputError& e) {
    throw InputError(where, out.variant_name + "." + out.scenario.name, e.problem());
  }
  for (size_t i = 0; i < policies.size(); ++i) {
    const std::string& p = policies[i];
    if (p == "rp_best" || p == "sp_rp_best" || p == "dma_rp_best") continue;
    (void)models::make_policy(p, out.spec, policy_locations[i]);
  }
  return out;
}

SweepSpec load_sweep_file(const std::string& path) {
  const fs::path dir = fs::path(path).parent_path();
  SweepSpec out = load_sweep_string(read_input_file(path), path, dir.empty() ? "." : dir.string());
  out.input_files.push_back(path);
  return out;
}

}  // namespace c3sim::sweep
