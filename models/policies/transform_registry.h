#pragma once
// Policies as program transformations, in one table: each entry has a name, help text, whether
// it takes an integer argument (`rp:<cus>`, `ficco:<chunks>`), the check of that argument against
// the hardware, the transformation, and the arguments its `<name>_best` sweep tries. c3sim's
// `run`, `sweep`, `paper` and `validate`, the Python module and c3bench all read this table: its
// parse() is the one place a policy name is read (models/policies/policy_name.h is what it makes), so the
// `_best` sweeps, '+' composition and `all` are the registry's, and a new policy is one file (a
// function returning its entry) plus one line in builtin_transforms()
// (examples/custom_transform shows one).
//
// The pair policies (models/policies/policy.h pair_policy_families(): base, sp, prio, rp, sp_rp, dma,
// dma_sp, dma_rp, vendor_zero_cta, vendor_zero_cta_sp, hybrid_ar) become entries that build the
// pair's LaunchPlan through make_policy and apply it with apply_launch_plan.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hardware/node_spec.h"
#include "models/policies/policy_name.h"
#include "sim/base/errors.h"
#include "workloads/program.h"

namespace c3sim::models {

class ProgramSimulator;

// What a deciding policy (a heuristic on isolated times, a per-region search) made of a program:
// the program under its choice and that choice in words (empty for a plain transformation).
struct Decision {
  wl::Program program;
  std::string chosen;
};

struct TransformEntry {
  std::string name;      // "rp"
  std::string help;      // one line
  std::string argument;  // what the integer after ':' means ("cus", "chunks"); empty = none
  // Throws InputError (key "policies", at `where`) when `arg` is not valid on this hardware.
  std::function<void(int arg, const hw::NodeSpec&, const SourceLocation& where, const std::string& full)>
      check;
  // The program under this policy. `arg` is set exactly when `argument` is not empty.
  std::function<wl::Program(const wl::Program&, std::optional<int> arg, const hw::NodeSpec&)> apply;
  // Set instead of `apply` by policies that decide from simulation (isolated times, trial runs):
  // the program under the policy's choice on this simulator. `arg` as for `apply`.
  std::function<Decision(const wl::Program&, std::optional<int> arg, ProgramSimulator&)> decide;
  // Optional, beside `apply`: true when `apply` would return the program as it is (`base` on a
  // program whose streams already have what its plan sets), so a run can simulate the program
  // itself instead of a copy (a 10^5-kernel program's copy is tens of MB). False = may change it.
  std::function<bool(const wl::Program&, std::optional<int> arg, const hw::NodeSpec&)> unchanged;
  // Full policy names a `<name>_best` sweep tries on this hardware; empty function = no sweep.
  std::function<std::vector<std::string>(const hw::NodeSpec&)> sweep;
  // Part of `all`: the plain name, or for an entry with an argument its `_best` sweep.
  bool in_all = false;
  // Whether the policy can transform this program (empty = every program), and what a program
  // needs for it, for the message when a requested policy cannot apply ("a GEMM + collective pair
  // to split"). `all` and the default set keep only the policies that apply.
  std::function<bool(const wl::Program&)> applies;
  std::string needs;
};

class TransformRegistry {
public:
  // Throws ModelError for a duplicate or malformed entry (a programming error).
  void add(TransformEntry entry);

  [[nodiscard]] const TransformEntry* find(const std::string& head) const;
  [[nodiscard]] const std::vector<TransformEntry>& entries() const { return entries_; }

  // The one parse of a policy name: "rp:32" (an entry and its argument), "ficco:4+prio"
  // (concrete steps composed left to right), "rp_best" (an entry's sweep) or "all". Checks the
  // syntax, that every head is an entry, and that an argument is given exactly where the entry
  // takes one; InputError (key "policies", at `where`) otherwise, listing the known names.
  [[nodiscard]] PolicyName parse(const std::string& text, const SourceLocation& where) const;
  // Checks a parsed name's arguments against the hardware (CU mask granularity, chunk counts).
  void check(const PolicyName& name, const hw::NodeSpec& spec, const SourceLocation& where) const;
  // parse() then check(): the typed name of a full name valid on this hardware.
  PolicyName check(const std::string& text, const hw::NodeSpec& spec, const SourceLocation& where) const;
  // The concrete policies a name stands for: itself, the sweep of a `_best` name, or `all`'s set.
  [[nodiscard]] std::vector<PolicyName> expand(const PolicyName& name, const hw::NodeSpec& spec) const;
  [[nodiscard]] std::vector<std::string> expand(const std::string& name, const hw::NodeSpec& spec) const;
  // The program under a concrete (not `_best`) policy or a '+' composition of them. A deciding
  // entry (`decide` set) needs a simulator: ModelError here, use decide().
  [[nodiscard]] wl::Program apply(const PolicyName& name, const wl::Program& program,
                                  const hw::NodeSpec& spec, const SourceLocation& where = {}) const;
  [[nodiscard]] wl::Program apply(const std::string& name, const wl::Program& program,
                                  const hw::NodeSpec& spec, const SourceLocation& where = {}) const;
  // apply() for any concrete policy or composition, deciding entries included; `chosen` joins
  // what each deciding part chose ("part: choice", "; " between parts).
  [[nodiscard]] Decision decide(const PolicyName& name, const wl::Program& program, ProgramSimulator& sim,
                                const SourceLocation& where = {}) const;
  [[nodiscard]] Decision decide(const std::string& name, const wl::Program& program, ProgramSimulator& sim,
                                const SourceLocation& where = {}) const;
  // Whether every step of a concrete `name` leaves `program` as it is (each entry's `unchanged`).
  [[nodiscard]] bool leaves_unchanged(const PolicyName& name, const wl::Program& program,
                                      const hw::NodeSpec& spec) const;
  // Whether a step of `name` decides from simulation (its entry's `decide`).
  [[nodiscard]] bool decides(const PolicyName& name) const;
  // The names `all` stands for (entries marked in_all), table order.
  [[nodiscard]] std::vector<std::string> standard_names() const;
  // Why `name` (concrete, composed or `_best`) cannot transform `program`: the first step whose
  // entry does not apply, as "'<step>' needs <needs>"; nullopt when it applies.
  [[nodiscard]] std::optional<std::string> cannot_apply(const PolicyName& name,
                                                        const wl::Program& program) const;
  [[nodiscard]] std::optional<std::string> cannot_apply(const std::string& name,
                                                        const wl::Program& program) const;
  // "base, sp, ..., rp:<cus>, rp_best, ..." for help text and error messages.
  [[nodiscard]] std::string known_names() const;
  // One line per entry: "  rp:<cus>  <help>".
  [[nodiscard]] std::string help_text() const;

private:
  std::vector<TransformEntry> entries_;
};

// The built-in table: the pair policies, FiCCO chunking (models/policies/ficco_transform.h) and the
// deciding heuristics.
TransformRegistry builtin_transforms();
// The built-in table, built once (immutable): what the pair front (C3Simulator, make_policy by
// name) and the front ends that take no custom entries parse with.
const TransformRegistry& builtin_registry();

}  // namespace c3sim::models
