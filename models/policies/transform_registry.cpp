#include "models/policies/transform_registry.h"

#include <fmt/format.h>

#include "models/policies/policy.h"
#include "models/policies/ficco_transform.h"
#include "models/policies/plan_transform.h"
#include "models/program/program_simulator.h"
#include "models/policies/region_best.h"
#include "models/policies/rp_heuristic.h"
#include "models/policies/sp_heuristic.h"

namespace c3sim::models {

namespace {

constexpr const char* kBest = "_best";

struct Parsed {
  std::string head;
  std::optional<int> arg;
};

Parsed split(const std::string& name, const SourceLocation& where) {
  const auto colon = name.find(':');
  if (colon == std::string::npos) return Parsed{name, std::nullopt};
  const std::string text = name.substr(colon + 1);
  size_t pos = 0;
  int value = 0;
  try {
    value = std::stoi(text, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos == 0 || pos != text.size()) {
    throw InputError(where, "policies", fmt::format("policy '{}': '{}' is not a whole number", name, text));
  }
  return Parsed{name.substr(0, colon), value};
}

bool ends_with_best(const std::string& name) {
  return name.size() > std::char_traits<char>::length(kBest) &&
         name.compare(name.size() - std::char_traits<char>::length(kBest), std::string::npos, kBest) == 0;
}

std::string without_best(const std::string& name) {
  return name.substr(0, name.size() - std::char_traits<char>::length(kBest));
}

// A pair policy (models/policies/policy.h) as a program transformation: its LaunchPlan applied to the
// program. make_policy checks the argument (CU mask granularity, leaves CUs for the GEMM).
TransformEntry launch_plan_entry(std::string name, std::string help, bool takes_cus, bool in_all) {
  TransformEntry e;
  e.name = std::move(name);
  e.help = std::move(help);
  e.argument = takes_cus ? "cus" : "";
  e.check = [](int, const hw::NodeSpec& spec, const SourceLocation& where, const std::string& full) {
    (void)make_policy(full, spec, where);
  };
  e.apply = [head = e.name](const wl::Program& p, std::optional<int> arg, const hw::NodeSpec& spec) {
    const std::string full = arg ? fmt::format("{}:{}", head, *arg) : head;
    const auto policy = make_policy(full, spec, p.location);
    const wl::Scenario pair = representative_pair(p).value_or(wl::Scenario{});
    return apply_launch_plan(p, policy->plan(PolicyContext{spec, pair, 0, 0}), spec.dma.reduce_bw > 0);
  };
  if (takes_cus) {
    e.sweep = [head = e.name](const hw::NodeSpec& spec) {
      std::vector<std::string> out;
      if (head == "dma_rp") out.emplace_back("dma");  // the sweep's "take no CUs" point
      for (int c : rp_sweep_cus(spec)) out.push_back(fmt::format("{}:{}", head, c));
      return out;
    };
  }
  e.in_all = in_all;
  return e;
}

// "a+b+c" -> {a, b, c}: concrete policies applied left to right.
std::vector<std::string> composed_parts(const std::string& name) {
  std::vector<std::string> parts;
  size_t from = 0;
  for (size_t plus = name.find('+'); plus != std::string::npos; plus = name.find('+', from)) {
    parts.push_back(name.substr(from, plus - from));
    from = plus + 1;
  }
  parts.push_back(name.substr(from));
  return parts;
}

}  // namespace

void TransformRegistry::add(TransformEntry entry) {
  if (entry.name.empty() || (!entry.apply == !entry.decide))
    throw ModelError("TransformRegistry::add: entry needs a name and exactly one of apply and decide");
  if (find(entry.name) != nullptr) throw ModelError(fmt::format("TransformRegistry: '{}' twice", entry.name));
  entries_.push_back(std::move(entry));
}

const TransformEntry* TransformRegistry::find(const std::string& head) const {
  for (const auto& e : entries_) {
    if (e.name == head) return &e;
  }
  return nullptr;
}

std::string TransformRegistry::known_names() const {
  std::string out;
  for (const auto& e : entries_) {
    out += out.empty() ? "" : ", ";
    out += e.argument.empty() ? e.name : fmt::format("{}:<{}>", e.name, e.argument);
    if (e.sweep) out += fmt::format(", {}_best", e.name);
  }
  return out + ", all";
}

std::string TransformRegistry::help_text() const {
  std::string out;
  for (const auto& e : entries_) {
    const std::string n = e.argument.empty() ? e.name : fmt::format("{}:<{}>", e.name, e.argument);
    out += fmt::format("  {:<22} {}\n", n, e.help);
    if (e.sweep) out += fmt::format("  {:<22} the fastest of {}'s sweep\n", e.name + kBest, e.name);
  }
  return out;
}

void TransformRegistry::check(const std::string& name, const hw::NodeSpec& spec,
                              const SourceLocation& where) const {
  if (name == "all") return;
  if (name.find('+') != std::string::npos) {
    for (const auto& part : composed_parts(name)) {
      if (part.empty() || part == "all" || ends_with_best(part)) {
        throw InputError(
            where, "policies",
            fmt::format("policy '{}': '{}' cannot be composed with '+' (compose concrete policies, "
                        "e.g. 'ficco:4+prio')",
                        name, part));
      }
      check(part, spec, where);
    }
    return;
  }
  auto unknown = [&] {
    throw InputError(where, "policies", fmt::format("unknown policy '{}' (known: {})", name, known_names()));
  };
  if (ends_with_best(name)) {
    const TransformEntry* e = find(without_best(name));
    if (e == nullptr || !e->sweep) unknown();
    return;
  }
  const Parsed p = split(name, where);
  const TransformEntry* e = find(p.head);
  if (e == nullptr) unknown();
  if (e->argument.empty() && p.arg) {
    throw InputError(where, "policies", fmt::format("policy '{}' takes no argument", p.head));
  }
  if (!e->argument.empty() && !p.arg) {
    throw InputError(where, "policies",
                     fmt::format("policy '{}' needs <{}>, e.g. '{}:4'", p.head, e->argument, p.head));
  }
  if (e->check) e->check(p.arg.value_or(0), spec, where, name);
}

std::vector<std::string> TransformRegistry::standard_names() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) {
    if (!e.in_all) continue;
    out.push_back(e.argument.empty() ? e.name : e.name + kBest);
  }
  return out;
}

std::optional<std::string> TransformRegistry::cannot_apply(const std::string& name,
                                                           const wl::Program& program) const {
  if (name == "all") return std::nullopt;
  const std::string concrete = ends_with_best(name) ? without_best(name) : name;
  for (const auto& part : composed_parts(concrete)) {
    const std::string head = part.substr(0, part.find(':'));
    const TransformEntry* e = find(head);
    if (e != nullptr && e->applies && !e->applies(program))
      return fmt::format("'{}' needs {}", head, e->needs);
  }
  return std::nullopt;
}

std::vector<std::string> TransformRegistry::expand(const std::string& name, const hw::NodeSpec& spec) const {
  if (name == "all") return standard_names();
  if (ends_with_best(name)) {
    const TransformEntry* e = find(without_best(name));
    if (e == nullptr || !e->sweep) throw ModelError(fmt::format("expand: '{}' has no sweep", name));
    return e->sweep(spec);
  }
  return {name};
}

wl::Program TransformRegistry::apply(const std::string& name, const wl::Program& program,
                                     const hw::NodeSpec& spec, const SourceLocation& where) const {
  check(name, spec, where);
  if (name == "all" || ends_with_best(name)) {
    throw ModelError(fmt::format("apply: '{}' is a set of policies; expand it first", name));
  }
  wl::Program out = program;
  for (const auto& part : composed_parts(name)) {
    const Parsed p = split(part, where);
    const TransformEntry* e = find(p.head);
    if (!e->apply) throw ModelError(fmt::format("apply: '{}' decides by simulation; use decide()", p.head));
    out = e->apply(out, p.arg, spec);
  }
  return out;
}

Decision TransformRegistry::decide(const std::string& name, const wl::Program& program, ProgramSimulator& sim,
                                   const SourceLocation& where) const {
  check(name, sim.spec(), where);
  if (name == "all" || ends_with_best(name)) {
    throw ModelError(fmt::format("decide: '{}' is a set of policies; expand it first", name));
  }
  Decision out{program, {}};
  for (const auto& part : composed_parts(name)) {
    const Parsed p = split(part, where);
    const TransformEntry* e = find(p.head);
    if (e->apply) {
      out.program = e->apply(out.program, p.arg, sim.spec());
      continue;
    }
    Decision d = e->decide(out.program, p.arg, sim);
    out.program = std::move(d.program);
    if (d.chosen.empty()) continue;
    const bool composed = name.find('+') != std::string::npos;
    out.chosen +=
        fmt::format("{}{}{}", out.chosen.empty() ? "" : "; ", composed ? part + ": " : "", d.chosen);
  }
  return out;
}

TransformRegistry builtin_transforms() {
  TransformRegistry r;
  r.add(launch_plan_entry("base", "as written (the pair: GEMM launched first)", false, true));
  r.add(launch_plan_entry("sp", "schedule prioritization: each collective launched one slot earlier", false,
                          true));
  r.add(launch_plan_entry("prio", "collective streams on a high-priority queue", false, true));
  r.add(launch_plan_entry("rp", "CU masks: collective streams get <cus>, GEMM streams the rest", true, true));
  r.add(launch_plan_entry("sp_rp", "sp and rp together", true, true));
  r.add(launch_plan_entry(
      "dma", "collectives on copy engines (ConCCL; reductions too when the engines reduce)", false, true));
  r.add(launch_plan_entry("dma_sp", "dma, collectives launched one slot earlier", false, false));
  r.add(launch_plan_entry("dma_rp", "dma, <cus> CUs taken from GEMM streams for cache relief", true, true));
  r.add(launch_plan_entry("vendor_zero_cta", "the vendor library's copy-engine path (NCCL zero-CTA)", false,
                          false));
  r.add(launch_plan_entry("vendor_zero_cta_sp", "vendor_zero_cta, collectives launched first", false, false));
  r.add(ficco_entry());
  r.add(ficco_dma_entry());
  r.add(sp_heuristic_entry());
  r.add(rp_heuristic_entry());
  r.add(per_region_entry());
  return r;
}

}  // namespace c3sim::models
