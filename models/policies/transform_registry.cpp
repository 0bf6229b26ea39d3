#include "models/policies/transform_registry.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "models/policies/ficco_transform.h"
#include "models/policies/fuse_transform.h"
#include "models/policies/plan_transform.h"
#include "models/policies/policy.h"
#include "models/policies/region_best.h"
#include "models/policies/rp_heuristic.h"
#include "models/policies/sp_heuristic.h"
#include "models/program/program_simulator.h"

namespace c3sim::models {

namespace {

constexpr std::string_view kBest = "_best";

bool ends_with_best(std::string_view name) { return name.size() > kBest.size() && name.ends_with(kBest); }

// The launch plan family `head` gives `p`'s representative pair on this hardware.
LaunchPlan family_plan(const std::string& head, const wl::Program& p, std::optional<int> arg,
                       const hw::NodeSpec& spec) {
  const auto policy = make_policy(PolicyStep{head, arg}, spec, p.location);
  const wl::Scenario pair = representative_pair(p).value_or(wl::Scenario{});
  return policy->plan(PolicyContext{spec, pair, 0, 0});
}

// A pair policy family (models/policies/policy.h) as a program transformation: its LaunchPlan applied to
// the program. make_policy checks the argument (CU mask granularity, leaves CUs for the GEMM).
TransformEntry launch_plan_entry(const PairPolicyFamily& family) {
  TransformEntry e;
  e.name = family.name;
  e.help = family.help;
  e.argument = family.takes_cus ? "cus" : "";
  e.check = [head = e.name, takes_cus = family.takes_cus](int arg, const hw::NodeSpec& spec,
                                                          const SourceLocation& where, const std::string&) {
    (void)make_policy(PolicyStep{head, takes_cus ? std::optional<int>(arg) : std::nullopt}, spec, where);
  };
  e.apply = [head = e.name](const wl::Program& p, std::optional<int> arg, const hw::NodeSpec& spec) {
    return apply_launch_plan(p, family_plan(head, p, arg, spec), spec.dma.reduce_bw > 0);
  };
  e.unchanged = [head = e.name](const wl::Program& p, std::optional<int> arg, const hw::NodeSpec& spec) {
    return !launch_plan_may_change(p, family_plan(head, p, arg, spec));
  };
  if (family.takes_cus) {
    e.sweep = [head = e.name, floor = family.sweep_floor](const hw::NodeSpec& spec) {
      std::vector<std::string> out;
      if (floor != nullptr) out.emplace_back(floor);
      for (int c : rp_sweep_cus(spec)) out.push_back(fmt::format("{}:{}", head, c));
      return out;
    };
  }
  if (family.impl == wl::CollectiveImpl::dma_hybrid) {
    e.applies = [](const wl::Program& p) {
      return std::any_of(p.kernels.begin(), p.kernels.end(), [](const wl::ProgramKernel& k) {
        return k.kind == wl::KernelKind::collective && k.collective.op == wl::CollectiveOp::all_reduce;
      });
    };
    e.needs = "an all-reduce";
  }
  e.in_all = family.in_all;
  return e;
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
    if (e.sweep)
      out += fmt::format("  {:<22} the fastest of {}'s sweep\n", e.name + std::string(kBest), e.name);
  }
  return out;
}

PolicyName TransformRegistry::parse(const std::string& text, const SourceLocation& where) const {
  PolicyName out;
  out.text = text;
  if (text == "all") {
    out.form = PolicyName::Form::all;
    return out;
  }
  auto unknown = [&](const std::string& name) {
    throw InputError(where, "policies", fmt::format("unknown policy '{}' (known: {})", name, known_names()));
  };
  const bool composed = text.find('+') != std::string::npos;
  if (!composed && ends_with_best(text)) {
    const std::string head = text.substr(0, text.size() - kBest.size());
    const TransformEntry* e = find(head);
    if (e == nullptr || !e->sweep) unknown(text);
    out.form = PolicyName::Form::sweep;
    out.steps.push_back(PolicyStep{head, std::nullopt});
    return out;
  }
  std::size_t from = 0;
  for (;;) {
    const std::size_t plus = std::min(text.find('+', from), text.size());
    const std::string part = text.substr(from, plus - from);
    if (composed && (part.empty() || part == "all" || ends_with_best(part))) {
      throw InputError(
          where, "policies",
          fmt::format("policy '{}': '{}' cannot be composed with '+' (compose concrete policies, "
                      "e.g. 'ficco:4+prio')",
                      text, part));
    }
    PolicyStep step;
    const auto colon = part.find(':');
    step.head = part.substr(0, colon);
    if (colon != std::string::npos) {
      const std::string digits = part.substr(colon + 1);
      std::size_t pos = 0;
      int value = 0;
      try {
        value = std::stoi(digits, &pos);
      } catch (const std::exception&) {
        pos = 0;
      }
      if (pos == 0 || pos != digits.size()) {
        throw InputError(where, "policies",
                         fmt::format("policy '{}': '{}' is not a whole number", part, digits));
      }
      step.arg = value;
    }
    const TransformEntry* e = find(step.head);
    if (e == nullptr) unknown(part);
    if (e->argument.empty() && step.arg) {
      throw InputError(where, "policies", fmt::format("policy '{}' takes no argument", step.head));
    }
    if (!e->argument.empty() && !step.arg) {
      throw InputError(where, "policies",
                       fmt::format("policy '{}' needs <{}>, e.g. '{}:4'", step.head, e->argument, step.head));
    }
    out.steps.push_back(std::move(step));
    if (plus == text.size()) break;
    from = plus + 1;
  }
  return out;
}

void TransformRegistry::check(const PolicyName& name, const hw::NodeSpec& spec,
                              const SourceLocation& where) const {
  if (!name.is_concrete()) return;
  for (const PolicyStep& step : name.steps) {
    const TransformEntry* e = find(step.head);
    if (e == nullptr)
      throw ModelError(fmt::format("check: '{}' is not an entry of this registry", step.head));
    if (e->check) e->check(step.arg.value_or(0), spec, where, step.text());
  }
}

PolicyName TransformRegistry::check(const std::string& text, const hw::NodeSpec& spec,
                                    const SourceLocation& where) const {
  PolicyName name = parse(text, where);
  check(name, spec, where);
  return name;
}

std::vector<std::string> TransformRegistry::standard_names() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) {
    if (!e.in_all) continue;
    out.push_back(e.argument.empty() ? e.name : e.name + std::string(kBest));
  }
  return out;
}

std::optional<std::string> TransformRegistry::cannot_apply(const PolicyName& name,
                                                           const wl::Program& program) const {
  for (const PolicyStep& step : name.steps) {
    const TransformEntry* e = find(step.head);
    if (e != nullptr && e->applies && !e->applies(program))
      return fmt::format("'{}' needs {}", step.head, e->needs);
  }
  return std::nullopt;
}

std::optional<std::string> TransformRegistry::cannot_apply(const std::string& name,
                                                           const wl::Program& program) const {
  return cannot_apply(parse(name, program.location), program);
}

std::vector<PolicyName> TransformRegistry::expand(const PolicyName& name, const hw::NodeSpec& spec) const {
  std::vector<std::string> texts;
  if (name.is_all()) {
    texts = standard_names();
  } else if (name.is_sweep()) {
    texts = find(name.steps.front().head)->sweep(spec);
  } else {
    return {name};
  }
  std::vector<PolicyName> out;
  out.reserve(texts.size());
  for (const auto& t : texts) out.push_back(parse(t, {}));
  return out;
}

std::vector<std::string> TransformRegistry::expand(const std::string& name, const hw::NodeSpec& spec) const {
  std::vector<std::string> out;
  for (const PolicyName& n : expand(parse(name, {}), spec)) out.push_back(n.text);
  return out;
}

wl::Program TransformRegistry::apply(const PolicyName& name, const wl::Program& program,
                                     const hw::NodeSpec& spec, const SourceLocation& where) const {
  check(name, spec, where);
  if (!name.is_concrete()) {
    throw ModelError(fmt::format("apply: '{}' is a set of policies; expand it first", name.text));
  }
  wl::Program out = program;
  for (const PolicyStep& step : name.steps) {
    const TransformEntry* e = find(step.head);
    if (!e->apply)
      throw ModelError(fmt::format("apply: '{}' decides by simulation; use decide()", step.head));
    out = e->apply(out, step.arg, spec);
  }
  return out;
}

wl::Program TransformRegistry::apply(const std::string& name, const wl::Program& program,
                                     const hw::NodeSpec& spec, const SourceLocation& where) const {
  return apply(parse(name, where), program, spec, where);
}

Decision TransformRegistry::decide(const PolicyName& name, const wl::Program& program, ProgramSimulator& sim,
                                   const SourceLocation& where) const {
  check(name, sim.spec(), where);
  if (!name.is_concrete()) {
    throw ModelError(fmt::format("decide: '{}' is a set of policies; expand it first", name.text));
  }
  Decision out{program, {}};
  for (const PolicyStep& step : name.steps) {
    const TransformEntry* e = find(step.head);
    if (e->apply) {
      out.program = e->apply(out.program, step.arg, sim.spec());
      continue;
    }
    Decision d = e->decide(out.program, step.arg, sim);
    out.program = std::move(d.program);
    if (d.chosen.empty()) continue;
    out.chosen += fmt::format("{}{}{}", out.chosen.empty() ? "" : "; ",
                              name.composed() ? step.text() + ": " : "", d.chosen);
  }
  return out;
}

Decision TransformRegistry::decide(const std::string& name, const wl::Program& program, ProgramSimulator& sim,
                                   const SourceLocation& where) const {
  return decide(parse(name, where), program, sim, where);
}

bool TransformRegistry::leaves_unchanged(const PolicyName& name, const wl::Program& program,
                                         const hw::NodeSpec& spec) const {
  if (!name.is_concrete()) return false;
  return std::all_of(name.steps.begin(), name.steps.end(), [&](const PolicyStep& step) {
    const TransformEntry* e = find(step.head);
    return e != nullptr && e->unchanged && e->unchanged(program, step.arg, spec);
  });
}

bool TransformRegistry::decides(const PolicyName& name) const {
  return std::any_of(name.steps.begin(), name.steps.end(), [&](const PolicyStep& step) {
    const TransformEntry* e = find(step.head);
    return e != nullptr && static_cast<bool>(e->decide);
  });
}

TransformRegistry builtin_transforms() {
  TransformRegistry r;
  for (const PairPolicyFamily& f : pair_policy_families()) r.add(launch_plan_entry(f));
  r.add(ficco_entry());
  r.add(ficco_dma_entry());
  r.add(fuse_entry());
  r.add(fuse_entry(FuseProducers::gemm));
  r.add(fuse_entry(FuseProducers::memory));
  r.add(sp_heuristic_entry());
  r.add(rp_heuristic_entry());
  r.add(per_region_entry());
  return r;
}

const TransformRegistry& builtin_registry() {
  static const TransformRegistry registry = builtin_transforms();
  return registry;
}

}  // namespace c3sim::models
