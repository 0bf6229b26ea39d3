#include "sim/sweep/sweep_spec.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hardware/hardware_files.h"
#include "hardware/hardware_loader.h"
#include "models/policies/policy.h"
#include "models/run/program_runner.h"
#include "sim/base/input_file.h"
#include "sim/base/strict_yaml.h"
#include "workloads/dlrm_generator.h"
#include "workloads/input_limits.h"
#include "workloads/paper_catalog.h"
#include "workloads/program_generators.h"
#include "workloads/program_io.h"
#include "workloads/scenario_io.h"

namespace c3sim::sweep {

namespace {

namespace fs = std::filesystem;

using Located = LocatedSetting;

bool is_workload_key(const std::string& key) {
  return key == "workload.gpus" || key == "workload.collective.bytes" ||
         key == "workload.collective.bytes_scale" || key == "workload.collective.max_workgroups";
}

// Workload keys about "the" collective of a pair; a program has many, so a sweep over programs
// refuses them.
bool is_pair_only_key(const std::string& key) { return is_workload_key(key) && key != "workload.gpus"; }

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
  std::map<std::string, int> seen;
  for (const auto& s : out) {
    if (++seen[s.name] > 1) root.fail("scenarios", fmt::format("scenario '{}' listed twice", s.name));
  }
  return out;
}

// The largest tensor-parallel degree `tp:` takes (a node's GPU count is checked per variant).
constexpr std::int64_t kMaxTp = 1 << 16;

// A generated program (`c3sim generate`'s kinds and arguments); its errors and those of the
// policies applied to it are anchored at the sweep file's entry.
wl::Program generated_program(StrictMap& item) {
  const std::string kind = item.string("generate");
  const std::string model = item.optional_string("model").value_or("");
  const std::int64_t tp = item.optional_integer("tp").value_or(8);
  if (tp < 1 || tp > kMaxTp) item.fail("tp", fmt::format("must be in 1..{}", kMaxTp));
  if (item.has("tp") && kind != "tp-block") item.fail("tp", "only tp-block takes `tp`");
  // dlrm's options (`batch: 4096`, `pooling: "1,2,..."`), as `c3sim generate dlrm --NAME VALUE`.
  std::vector<wl::DlrmOption> dlrm;
  for (const auto& name : wl::dlrm_option_names()) {
    if (!item.has(name)) continue;
    if (kind != "dlrm") item.fail(name, fmt::format("only dlrm takes `{}`", name));
    dlrm.push_back({name, item.string(name)});
  }
  wl::Program p;
  try {
    p = wl::generate_program(kind, model, static_cast<int>(tp), item.location("generate"));
    if (kind == "dlrm") p = wl::dlrm_step_program(wl::dlrm_config(dlrm, item.location("generate")));
  } catch (const InputError& e) {
    const auto& names = wl::dlrm_option_names();
    const bool dlrm_key = std::find(names.begin(), names.end(), e.key()) != names.end();
    const std::string key = dlrm_key             ? e.key()
                            : e.key() == "model" ? "model"
                            : e.key() == "kind"  ? "generate"
                                                 : "tp";
    throw InputError(item.location(item.has(key) ? key : "generate"), item.qualified(key), e.problem());
  }
  p.location = item.location();
  for (auto& s : p.streams) s.location = p.location;
  for (auto& k : p.kernels) k.location = p.location;
  return p;
}

// `programs:`: each entry `{file: PATH}` (every program of a program file, relative to the sweep
// file) or `{generate: KIND, model: NAME, tp: N}` (dlrm: its options, `{generate: dlrm, batch: N}`). Program
// names are unique across the sweep.
std::vector<wl::Program> resolve_programs(StrictMap& root, const std::string& base_dir,
                                          std::vector<std::string>* inputs) {
  std::vector<wl::Program> out;
  if (!root.has("programs")) return out;
  const auto items = root.sequence("programs");
  if (items.empty()) root.fail("programs", "empty list");
  std::map<std::string, SourceLocation> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string q = fmt::format("programs[{}]", i);
    if (!items[i].IsMap()) {
      throw InputError(location_of(items[i], root.file()), q,
                       "expected {file: PATH} or {generate: KIND, model: NAME, tp: N}");
    }
    StrictMap item(items[i], root.file(), q);
    if (item.has("file") == item.has("generate")) {
      item.fail("file",
                "give exactly one of `file:` (a program YAML) and `generate:` (fsdp-layer, "
                "tp-block, moe-layer)");
    }
    std::vector<wl::Program> programs;
    if (item.has("file")) {
      const std::string file = item.string("file");
      const fs::path path = fs::path(file).is_absolute() ? fs::path(file) : fs::path(base_dir) / file;
      if (inputs) inputs->push_back(path.string());
      try {
        programs = wl::load_programs_file(path.string());
      } catch (const InputError& e) {
        // A missing file is the sweep file's error; a bad program file names itself.
        if (e.where().line == 0) throw InputError(item.location("file"), item.qualified("file"), e.problem());
        throw;
      }
    } else {
      programs.push_back(generated_program(item));
    }
    item.finish();
    for (auto& p : programs) {
      if (!seen.emplace(p.name, item.location()).second) {
        throw InputError(item.location(), q, fmt::format("program '{}' listed twice", p.name));
      }
      out.push_back(std::move(p));
    }
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

// Load-time check of every variant without building every variant. A task's checks are
// hw::validate(spec), models::make_policy(p, spec) for a scenario's policies or
// TransformRegistry::check(p, spec) for a program's and, after apply_workload / program_of,
// wl::check_scenario_fits(scenario, spec.interconnect.gpus) or check_program (check_program_fits,
// then each policy's transformations applied). Each rule in them reads a fixed set of keys, so a
// rule holds on every variant when it holds on every combination of values of its keys (the keys a
// sweep does not vary are the same in every variant). The rules and the keys they relate:
//   - each field's own range (hardware_fields.cpp check_field), each workload value's range: one key;
//   - llc_bytes with spec.memory.llc_bandwidth, llc_bytes with model.memory.llc_bandwidth,
//     xcds x cus_per_xcd <= kMaxCount, prio with stream_priority_levels: two keys;
//   - a program stream's CU mask against xcds x cus_per_xcd (check_program_fits): two keys;
//   - the CU budget: cu_mask_granularity, each default_workgroups_* and an rp:N / sp_rp:N / dma_rp:N
//     policy's CU count against xcds x cus_per_xcd: three keys (kComputeGroup, crossed in full).
//     The registry's check of a pair policy is make_policy itself; FiCCO's chunk range reads no key;
//   - the workload: gpus, collective.bytes, bytes_scale (relative to the bytes before it) and
//     max_workgroups against the node's GPU count (spec.interconnect.gpus): crossed in full. A
//     program's gpus, its collectives' whole shards and FiCCO's split of them into chunks of whole
//     shards read the same two keys (workload.gpus, spec.interconnect.gpus). A `_best` name's
//     candidates are built from the hardware (rp_sweep_cus) and pass make_policy by construction;
//     a deciding policy (sp_heuristic, rp_heuristic, per_region) is only name-checked: it chooses
//     among policies by simulating them.
// So the plan, for each listed variant: every grid value alone (with the workload, each scenario
// and program), every pair of values of two hardware axes (others at their first value; a
// program's CU-mask rule is checked here too), the full product of the compute group's axes when
// three or more vary, and the full product of the workload axes with the GPU-count axis (each
// scenario and program). A sweep whose plan exceeds kMaxLoadChecks checks the first kEagerVariants
// variants in full instead and says so in a warning.
constexpr std::array<std::string_view, 6> kComputeGroup = {
    "spec.compute.xcds",
    "spec.compute.cus_per_xcd",
    "spec.compute.cu_mask_granularity",
    "model.collective.default_workgroups_all_gather",
    "model.collective.default_workgroups_all_to_all",
    "model.collective.default_workgroups_reduce",
};
constexpr std::size_t kMaxLoadChecks = 200000;

class VariantChecker {
public:
  explicit VariantChecker(const SweepSpec& spec) : s_(spec) {
    for (std::size_t a = 0; a < s_.axes.size(); ++a) {
      const std::string& key = s_.axes[a].front().setting.key;
      if (is_workload_key(key)) {
        workload_axes_.push_back(a);
        continue;
      }
      hardware_axes_.push_back(a);
      if (std::find(kComputeGroup.begin(), kComputeGroup.end(), key) != kComputeGroup.end()) {
        compute_axes_.push_back(a);
      }
      if (key == "spec.interconnect.gpus") workload_axes_.push_back(a);
    }
    std::sort(workload_axes_.begin(), workload_axes_.end());
  }

  // Checks the plan counts, saturating just past kMaxLoadChecks.
  [[nodiscard]] std::size_t plan_size() const {
    const std::size_t with_workload = 1 + s_.workloads();
    std::size_t n = with_workload;  // every axis at its first value
    for (const auto& axis : s_.axes) n = add(n, mul(axis.size() - 1, with_workload));
    for (std::size_t i = 0; i < hardware_axes_.size(); ++i) {
      for (std::size_t j = i + 1; j < hardware_axes_.size(); ++j) {
        n = add(n, mul(s_.axes[hardware_axes_[i]].size() - 1, s_.axes[hardware_axes_[j]].size() - 1));
      }
    }
    if (compute_axes_.size() >= 3) n = add(n, product(compute_axes_));
    if (workload_axes_.size() >= 2) n = add(n, mul(product(workload_axes_), with_workload));
    return mul(n, s_.listed.size());
  }

  void run() const {
    for (std::size_t l = 0; l < s_.listed.size(); ++l) {
      std::vector<std::size_t> odometer(s_.axes.size(), 0);
      check(l, odometer, true);
      for (std::size_t a = 0; a < s_.axes.size(); ++a) {
        for (std::size_t v = 1; v < s_.axes[a].size(); ++v) {
          odometer[a] = v;
          check(l, odometer, true);
        }
        odometer[a] = 0;
      }
      for (std::size_t i = 0; i < hardware_axes_.size(); ++i) {
        for (std::size_t j = i + 1; j < hardware_axes_.size(); ++j) {
          const std::size_t a = hardware_axes_[i], b = hardware_axes_[j];
          for (std::size_t va = 1; va < s_.axes[a].size(); ++va) {
            for (std::size_t vb = 1; vb < s_.axes[b].size(); ++vb) {
              odometer[a] = va;
              odometer[b] = vb;
              check(l, odometer, false);
            }
          }
          odometer[a] = odometer[b] = 0;
        }
      }
      if (compute_axes_.size() >= 3) check_product(l, compute_axes_, false);
      if (workload_axes_.size() >= 2) check_product(l, workload_axes_, true);
    }
  }

private:
  static std::size_t add(std::size_t a, std::size_t b) { return std::min(a + b, kMaxLoadChecks + 1); }
  static std::size_t mul(std::size_t a, std::size_t b) {
    if (a == 0 || b == 0) return 0;
    return a > (kMaxLoadChecks + 1) / b ? kMaxLoadChecks + 1 : std::min(a * b, kMaxLoadChecks + 1);
  }
  [[nodiscard]] std::size_t product(const std::vector<std::size_t>& which) const {
    std::size_t n = 1;
    for (std::size_t a : which) n = mul(n, s_.axes[a].size());
    return n;
  }

  // Every combination of the values of axes `which`, the other axes at their first value.
  void check_product(std::size_t l, const std::vector<std::size_t>& which, bool with_workload) const {
    std::vector<std::size_t> odometer(s_.axes.size(), 0);
    while (true) {
      check(l, odometer, with_workload);
      std::size_t i = which.size();
      while (i > 0 && ++odometer[which[i - 1]] == s_.axes[which[i - 1]].size()) odometer[which[--i]] = 0;
      if (i == 0) return;
    }
  }

  // One variant's checks; a failure of a cross-field rule is anchored at the variant's last grid
  // value that is not its axis's first (the values that make the combination), or at the listed
  // variant, and names the variant, those values and the rule's own key.
  void check(std::size_t l, const std::vector<std::size_t>& odometer, bool with_workload) const {
    const std::vector<const Located*> settings = s_.settings_of(l, odometer);
    // A bad value alone names itself (apply_hardware / apply_workload anchor it at the value).
    const hw::NodeSpec spec = s_.hardware_of(settings);
    std::vector<wl::Scenario> scenarios;
    for (std::size_t sc = 0; with_workload && sc < s_.scenario_names.size(); ++sc) {
      scenarios.push_back(s_.scenario_of(settings, sc, spec.interconnect.gpus));
    }
    const bool sets_gpus = std::any_of(settings.begin(), settings.end(),
                                       [](const Located* s) { return s->setting.key == "workload.gpus"; });
    try {
      hw::validate(spec);
      s_.check_policies(spec);
      for (const wl::Scenario& scenario : scenarios)
        wl::check_scenario_fits(scenario, spec.interconnect.gpus);
      // Every check runs the programs' CU-mask rule (the hardware pairs relate xcds and
      // cus_per_xcd); the transformations only where the workload is checked.
      for (std::size_t p = 0; p < s_.base_programs.size(); ++p) {
        if (sets_gpus) {
          s_.check_program(s_.program_of(settings, p), spec, with_workload);
        } else {
          s_.check_program(s_.base_programs[p], spec, with_workload);
        }
      }
    } catch (const InputError& e) {
      throw anchored(l, odometer, e);
    }
  }

  [[nodiscard]] InputError anchored(std::size_t l, const std::vector<std::size_t>& odometer,
                                    const InputError& e) const {
    std::size_t variant = 0;
    std::vector<std::string> values;
    const Located* last = nullptr;
    for (std::size_t a = 0; a < s_.axes.size(); ++a) {
      variant = variant * s_.axes[a].size() + odometer[a];
      if (odometer[a] == 0) continue;
      last = &s_.axes[a][odometer[a]];
      values.push_back(fmt::format("{} = {}", last->qualified, last->setting.value));
    }
    variant += l * s_.grid_size();
    const std::string with =
        values.empty() ? "every grid key at its first value" : fmt::format("{}", fmt::join(values, ", "));
    // No grid value past an axis's first and no listed setting: the failure is as likely the
    // policy's or the program's as the variant's, so it keeps the line and key it names.
    if (last == nullptr && s_.listed[l].second.empty() && e.where().line > 0) {
      return InputError(e.where(), e.key(),
                        fmt::format("variant {} ({}): {}", s_.variant_name(variant), with, e.problem()));
    }
    SourceLocation where = s_.variants_where;
    std::string key = "grid";
    if (last != nullptr) {
      where = last->where;
      key = last->qualified;
    } else if (!s_.listed[l].second.empty()) {
      where = s_.listed[l].second.front().where;
      key = s_.listed[l].second.front().qualified;
    }
    return InputError(
        where, key,
        fmt::format("variant {} ({}): {}: {}", s_.variant_name(variant), with, e.key(), e.problem()));
  }

  const SweepSpec& s_;
  std::vector<std::size_t> hardware_axes_;
  std::vector<std::size_t> compute_axes_;
  std::vector<std::size_t> workload_axes_;  // the workload axes and the GPU-count axis, file order
};

}  // namespace

SweepSpec load_sweep_string(const std::string& text, const std::string& label, const std::string& base_dir,
                            const HardwareLoader& load_hardware) {
  const YamlDocument doc = load_yaml_string(text, label);
  if (!doc.root.IsMap()) throw InputError(SourceLocation{label, 1, 1}, "", "a sweep file is a mapping");
  StrictMap root(doc.root, doc.file, "");
  SweepSpec out;
  out.hardware = root.optional_string("hardware").value_or("mi300x");
  const hw::NodeSpec base = [&] {
    try {
      const std::string name = resolve_hardware(out.hardware, base_dir);
      return load_hardware ? load_hardware(name) : hw::load_hardware(name);
    } catch (const InputError& e) {
      // A missing hardware file is the sweep file's error; a bad hardware file names itself.
      if (e.where().line == 0) throw InputError(root.location("hardware"), "hardware", e.what());
      throw;
    }
  }();
  const std::vector<wl::Scenario> scenarios = resolve_scenarios(root, base_dir, &out.input_files);
  std::vector<wl::Program> programs = resolve_programs(root, base_dir, &out.input_files);
  if (scenarios.empty() && programs.empty()) {
    root.fail("scenarios", "nothing to run: give `scenarios:`, `scenario_file:` and/or `programs:`");
  }
  out.input_files.push_back(resolve_hardware(out.hardware, base_dir));
  for (auto& f : hw::hardware_files(out.input_files.back())) out.input_files.push_back(std::move(f));
  for (const auto& s : scenarios) out.scenario_names.push_back(s.name);
  for (const auto& p : programs) out.program_names.push_back(p.name);
  out.registry = models::builtin_transforms();

  const auto policy_nodes = root.sequence("policies");
  if (policy_nodes.empty()) root.fail("policies", "empty list");
  std::vector<SourceLocation> policy_where;
  for (size_t i = 0; i < policy_nodes.size(); ++i) {
    const SourceLocation where = location_of(policy_nodes[i], root.file());
    const std::string name = scalar_text(policy_nodes[i], where, fmt::format("policies[{}]", i));
    // `all` on programs: the registry's standard set, as `c3sim run` expands it. (A scenario's
    // `all` depends on its collective; pair sweeps refuse it, in check_policies.)
    const bool expand_all = out.registry.parse(name, where).is_all() && scenarios.empty();
    for (const auto& n : expand_all ? out.registry.standard_names() : std::vector<std::string>{name}) {
      out.policies.push_back(n);
      policy_where.push_back(where);
    }
  }
  out.policy_locations = policy_where;
  out.listed = listed_variants(root);
  out.axes = grid_axes(root);
  out.variants_where = root.has("grid") ? root.location("grid") : root.location("variants");
  root.finish();
  out.base = base;
  out.base_scenarios = scenarios;
  out.base_programs = std::move(programs);
  if (!out.base_programs.empty()) {
    for (const auto& [name, settings] : out.listed) {
      for (const auto& s : settings) {
        if (is_pair_only_key(s.setting.key)) {
          throw InputError(s.where, s.qualified,
                           fmt::format("'{}' varies a pair scenario's collective; a sweep with programs "
                                       "can vary workload.gpus and hardware fields",
                                       s.setting.key));
        }
      }
    }
    for (const auto& axis : out.axes) {
      const Located& s = axis.front();
      if (is_pair_only_key(s.setting.key)) {
        throw InputError(s.where, s.qualified.substr(0, s.qualified.rfind('[')),
                         fmt::format("'{}' varies a pair scenario's collective; a sweep with programs "
                                     "can vary workload.gpus and hardware fields",
                                     s.setting.key));
      }
    }
  }

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
      grid * out.listed.size() > kMaxSweepPoints / (out.workloads() * out.policies.size())) {
    throw InputError(
        out.variants_where, "grid",
        fmt::format("the sweep has more than {} points (variants x scenarios and programs x policies)",
                    kMaxSweepPoints));
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
  const VariantChecker checker(out);
  const std::size_t plan = checker.plan_size();
  if (plan <= kMaxLoadChecks) {
    checker.run();
    return out;
  }
  const std::size_t eager = std::min(out.variant_count, kEagerVariants) * out.workloads();
  for (std::size_t t = 0; t < eager; ++t) (void)out.task(t);
  out.warnings.push_back(fmt::format(
      "{}: checking every variant at load would take more than {} checks; checked the first {} variants "
      "in full, and a later variant whose values clash fails when it runs",
      label, kMaxLoadChecks, std::min(out.variant_count, kEagerVariants)));
  return out;
}

std::size_t SweepSpec::grid_size() const {
  std::size_t grid = 1;
  for (const auto& axis : axes) grid *= axis.size();
  return grid;
}

std::string SweepSpec::variant_name(std::size_t variant) const {
  const std::string& given = listed[variant / grid_size()].first;
  return given.empty() ? fmt::format("v{}", variant) : given;
}

std::vector<const LocatedSetting*> SweepSpec::settings_of(std::size_t listed_index,
                                                          const std::vector<std::size_t>& odometer) const {
  std::vector<const Located*> settings;
  for (const auto& s : listed[listed_index].second) settings.push_back(&s);
  for (std::size_t a = 0; a < axes.size(); ++a) settings.push_back(&axes[a][odometer[a]]);
  return settings;
}

hw::NodeSpec SweepSpec::hardware_of(const std::vector<const LocatedSetting*>& settings) const {
  hw::NodeSpec spec = base;
  for (const Located* s : settings) {
    if (!is_workload_key(s->setting.key)) apply_hardware(*s, spec);
  }
  return spec;
}

void SweepSpec::check_policies(const hw::NodeSpec& spec) const {
  for (size_t i = 0; i < policies.size(); ++i) {
    const models::PolicyName p = registry.parse(policies[i], policy_locations[i]);
    if (!program_names.empty()) registry.check(p, spec, policy_locations[i]);
    if (scenario_names.empty()) continue;
    if (p.is_all() || p.composed() || models::find_pair_policy(p.steps.front().head) == nullptr) {
      throw InputError(
          policy_locations[i], "policies",
          fmt::format("policy '{}': scenarios run the GEMM + collective launch plans and their "
                      "_best sweeps, one name each (`all` depends on each scenario's collective)",
                      p.text));
    }
    // A sweep's candidates are built from the hardware and valid by construction.
    if (p.is_concrete()) (void)models::make_policy(p.steps.front(), spec, policy_locations[i]);
  }
}

void SweepSpec::check_program(const wl::Program& program, const hw::NodeSpec& spec, bool transforms) const {
  wl::check_program_fits(program, spec.interconnect.gpus, spec.compute.total_cus());
  // A program that runs every rank (sweep_runner.h) takes only policies all-GPU mode can run.
  if (models::runs_all_gpus(program, false)) {
    for (size_t i = 0; i < policies.size(); ++i)
      models::check_all_gpu_policy(registry, policies[i], policy_locations[i]);
  }
  if (!transforms) return;
  for (size_t i = 0; i < policies.size(); ++i) {
    for (const models::PolicyName& name :
         registry.expand(registry.parse(policies[i], policy_locations[i]), spec)) {
      // A part that decides by simulation (its `decide`) is not applied here: see VariantChecker.
      const bool decides = registry.decides(name);
      if (!decides) (void)registry.apply(name, program, spec, policy_locations[i]);
    }
  }
}

wl::Program SweepSpec::program_of(const std::vector<const LocatedSetting*>& settings,
                                  std::size_t program) const {
  wl::Program out = base_programs[program];
  for (const Located* s : settings) {
    if (s->setting.key != "workload.gpus") continue;
    const std::int64_t g = positive_integer(*s);
    wl::check_gpu_count(g, s->where, s->qualified);
    out.gpus = static_cast<int>(g);
  }
  return out;
}

wl::Scenario SweepSpec::scenario_of(const std::vector<const LocatedSetting*>& settings, std::size_t scenario,
                                    int node_gpus) const {
  wl::Scenario out = base_scenarios[scenario];
  for (const Located* s : settings) apply_workload(*s, out, node_gpus);
  return out;
}

Task SweepSpec::task(std::size_t t) const {
  if (t >= tasks()) throw ModelError(fmt::format("sweep task {} of {}", t, tasks()));
  Task out;
  out.index = t;
  out.variant = t / workloads();
  const std::size_t grid = grid_size();
  const std::size_t listed_index = out.variant / grid;
  const auto& [listed_name, listed_settings] = listed[listed_index];
  // Listed variants x grid, the grid's last key varying fastest.
  std::vector<std::size_t> odometer(axes.size(), 0);
  std::size_t rest = out.variant % grid;
  for (std::size_t a = axes.size(); a > 0; --a) {
    odometer[a - 1] = rest % axes[a - 1].size();
    rest /= axes[a - 1].size();
  }
  const std::vector<const Located*> settings = settings_of(listed_index, odometer);
  out.variant_name = listed_name.empty() ? fmt::format("v{}", out.variant) : listed_name;
  for (const Located* s : settings) out.settings.push_back(s->setting);
  out.spec = hardware_of(settings);
  SourceLocation where = settings.empty() ? variants_where : settings.front()->where;
  if (!listed_settings.empty()) where = listed_settings.front().where;
  try {
    hw::validate(out.spec);
  } catch (const InputError& e) {
    throw InputError(axes.empty() ? where : variants_where, out.variant_name, e.problem());
  }
  const std::size_t workload = t % workloads();
  if (workload >= scenario_names.size()) {
    out.is_program = true;
    out.program = program_of(settings, workload - scenario_names.size());
    check_policies(out.spec);
    try {
      check_program(out.program, out.spec, true);
    } catch (const InputError& e) {
      throw InputError(where, out.variant_name + "." + out.program.name, e.problem());
    }
    return out;
  }
  out.scenario = scenario_of(settings, workload, out.spec.interconnect.gpus);
  try {
    wl::check_scenario_fits(out.scenario, out.spec.interconnect.gpus);
  } catch (const InputError& e) {
    throw InputError(where, out.variant_name + "." + out.scenario.name, e.problem());
  }
  check_policies(out.spec);
  return out;
}

SweepSpec load_sweep_file(const std::string& path) {
  const fs::path dir = fs::path(path).parent_path();
  SweepSpec out = load_sweep_string(read_input_file(path), path, dir.empty() ? "." : dir.string());
  out.input_files.push_back(path);
  return out;
}

}  // namespace c3sim::sweep
