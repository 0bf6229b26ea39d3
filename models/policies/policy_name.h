#pragma once
// A policy name as a typed value: what TransformRegistry::parse (models/policies/transform_registry.h)
// makes of "rp:32", "ficco:4+prio", "rp_best" or "all", and the only form in which consumers
// inspect a name. No other code splits a name at ':' or '+' or looks for a "_best" suffix, so a
// policy family, its argument, a sweep or a composition means the same thing to c3sim's commands,
// sweeps, the Python module and c3bench.
#include <optional>
#include <string>
#include <vector>

namespace c3sim::models {

// One transformation: a registry entry and its integer argument ("rp:32" = {"rp", 32}).
struct PolicyStep {
  std::string head;
  std::optional<int> arg;

  // "rp:32", "base".
  [[nodiscard]] std::string text() const { return arg ? head + ":" + std::to_string(*arg) : head; }
  friend bool operator==(const PolicyStep&, const PolicyStep&) = default;
};

struct PolicyName {
  enum class Form {
    concrete,  // `steps` applied left to right ('+' composition when more than one)
    sweep,     // `<head>_best`: every candidate of the entry's sweep, the fastest wins
    all,       // the standard set, expanded per program or scenario
  };
  Form form = Form::concrete;
  std::vector<PolicyStep> steps;  // concrete: one or more; sweep: the family (no argument); all: none
  std::string text;               // the name as written, for records and messages

  [[nodiscard]] bool is_all() const { return form == Form::all; }
  [[nodiscard]] bool is_sweep() const { return form == Form::sweep; }
  [[nodiscard]] bool is_concrete() const { return form == Form::concrete; }
  [[nodiscard]] bool composed() const { return steps.size() > 1; }
};

}  // namespace c3sim::models
