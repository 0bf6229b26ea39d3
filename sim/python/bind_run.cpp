// Running: scenarios and programs under policies, as `c3sim run` does (the same library calls in
// the same order, so the records are the ones `c3sim run --format jsonl` writes), the policy
// registry, and the paper reproduction.
#include <algorithm>

#include <pybind11/stl.h>

#include "hardware/hardware_loader.h"
#include "models/paper/paper_report.h"
#include "models/policies/policy_selection.h"
#include "models/run/program_runner.h"
#include "models/run/simulated_runner.h"
#include "sim/python/bindings.h"
#include "sim/python/python_values.h"
#include "workloads/program.h"
#include "workloads/scenario_io.h"

namespace py = pybind11;

namespace c3sim::python {

namespace {

// Record JSON with nested objects spread into dotted columns ("attribution.gemm.cache_us"), so
// pandas.DataFrame(rows) gets one scalar per cell. Lists (a program's kernels) are left out: their
// rows are the "kernel" kind.
void flatten_into(py::dict& row, const std::string& prefix, const nlohmann::json& j) {
  for (const auto& [key, value] : j.items()) {
    std::string column = prefix;
    if (!column.empty()) column += '.';
    column += key;
    if (value.is_object()) {
      flatten_into(row, column, value);
    } else if (!value.is_array()) {
      row[py::str(column)] = to_python(value);
    }
  }
}

py::dict flat_row(const nlohmann::json& j) {
  py::dict row;
  flatten_into(row, "", j);
  return row;
}

py::object chosen_of(const nlohmann::json& extra) {
  if (extra.contains("chosen")) return py::str(extra["chosen"].get<std::string>());
  return py::none();
}

// One row per kernel of a program record, led by the program, policy and chosen policy.
py::list kernel_rows(const wl::ProgramRecord& r) {
  py::list rows;
  const nlohmann::json j = wl::to_json(r);
  for (const auto& k : j["kernels"]) {
    py::dict row;
    row["program"] = r.program;
    row["policy"] = r.policy;
    row["chosen"] = chosen_of(r.extra);
    flatten_into(row, "", k);  // attribution as dotted columns ("attribution.cache_us")
    rows.append(row);
  }
  return rows;
}

std::string main_kind(const Results& r) {
  for (const auto& rec : r.records) {
    if (std::holds_alternative<wl::ProgramRecord>(rec)) return "program";
  }
  return "c3";
}

py::list rows_of(const Results& r, const std::optional<std::string>& kind_arg) {
  const std::string kind = kind_arg.value_or(main_kind(r));
  static const std::vector<std::string> kinds{"env", "iso_gemm", "iso_coll", "c3", "program", "kernel"};
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
    throw py::value_error("unknown record kind '" + kind +
                          "' (env, iso_gemm, iso_coll, c3, program, kernel)");
  }
  py::list rows;
  for (const auto& rec : r.records) {
    if (kind == "kernel") {
      if (const auto* p = std::get_if<wl::ProgramRecord>(&rec)) {
        for (const auto& row : kernel_rows(*p)) rows.append(row);
      }
    } else if (wl::kind_of(rec) == kind) {
      rows.append(flat_row(wl::to_json(rec)));
    }
  }
  return rows;
}

// The c3 and program records, in run order, as result objects.
py::list results_of(const Results& r) {
  py::list out;
  for (const auto& rec : r.records) {
    if (const auto* c = std::get_if<wl::C3Record>(&rec)) out.append(py::cast(*c));
    if (const auto* p = std::get_if<wl::ProgramRecord>(&rec)) out.append(py::cast(*p));
  }
  return out;
}

// results["sp"] (one scenario or program) or results["name", "sp"].
py::object result_at(const Results& r, const py::object& key) {
  std::optional<std::string> name;
  std::string policy;
  if (py::isinstance<py::tuple>(key)) {
    const auto t = key.cast<py::tuple>();
    if (t.size() != 2) throw py::key_error("expected results[policy] or results[name, policy]");
    name = t[0].cast<std::string>();
    policy = t[1].cast<std::string>();
  } else {
    policy = key.cast<std::string>();
  }
  std::vector<py::object> found;
  for (const auto& rec : r.records) {
    if (const auto* c = std::get_if<wl::C3Record>(&rec)) {
      if (c->policy == policy && (!name || *name == c->scenario)) found.push_back(py::cast(*c));
    }
    if (const auto* p = std::get_if<wl::ProgramRecord>(&rec)) {
      if (p->policy == policy && (!name || *name == p->program)) found.push_back(py::cast(*p));
    }
  }
  if (found.empty()) throw py::key_error(py::repr(key).cast<std::string>());
  if (found.size() > 1) {
    throw py::key_error("policy '" + policy +
                        "' ran for several scenarios or programs: use results[name, policy]");
  }
  return found.front();
}

std::vector<std::string> policy_names(const py::object& policies) {
  if (policies.is_none()) return {};
  std::vector<std::string> out;
  const auto split = [&out](const std::string& text) {
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      out.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
  };
  if (py::isinstance<py::str>(policies)) {
    split(policies.cast<std::string>());
  } else {
    for (const auto& p : policies) split(py::str(p).cast<std::string>());
  }
  return out;
}

// `c3sim run SCENARIO.yaml`: check every scenario and its policies first, then simulate.
Results run_scenarios(const hw::NodeSpec& spec, const std::vector<wl::Scenario>& scenarios,
                      const models::PolicyRequest& request, const models::SimOptions& options) {
  std::vector<wl::RunRequest> requests;
  for (const auto& s : scenarios) {
    wl::check_scenario_fits(s, spec.interconnect.gpus);
    wl::RunRequest r;
    r.scenario = s;
    r.policies = models::scenario_policies(s, request, spec);
    requests.push_back(std::move(r));
  }
  const py::gil_scoped_release unlocked;
  models::SimulatedRunner runner(spec, options);
  Results out{{runner.environment()}};
  for (const auto& r : requests) {
    for (auto& rec : runner.run(r)) out.records.push_back(std::move(rec));
  }
  return out;
}

// `c3sim run PROGRAM.yaml`: check every program and its policies first, then simulate.
Results run_programs(const hw::NodeSpec& spec, const std::vector<wl::Program>& programs,
                     const models::PolicyRequest& request, bool per_workgroup, bool attribution) {
  const models::TransformRegistry registry = models::builtin_transforms();
  std::vector<std::vector<std::string>> policies;
  for (const auto& p : programs) {
    wl::check_program_fits(p, spec.interconnect.gpus, spec.compute.total_cus());
    policies.push_back(models::program_policies(p, request, registry, spec));
    if (models::runs_all_gpus(p, false)) {
      for (const auto& name : policies.back()) models::check_all_gpu_policy(registry, name, p.location);
    }
  }
  const py::gil_scoped_release unlocked;
  models::ProgramSimulator sim(spec, per_workgroup ? 1 : 1 << 30);
  Results out{{models::SimulatedRunner(spec).environment()}};
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const int gpus = programs[i].gpus.value_or(spec.interconnect.gpus);
    // As `c3sim run` does: an asymmetric program (or one asking for it) runs every rank.
    const bool all_gpus = models::runs_all_gpus(programs[i], false);
    for (const auto& name : policies[i]) {
      out.records.emplace_back(models::to_record(
          all_gpus ? models::run_program_all_gpus(sim, registry, programs[i], name)
                   : models::run_program_policy(sim, registry, programs[i], name, nullptr, attribution),
          gpus));
    }
  }
  return out;
}

Results run(const Hardware& hw, const py::object& target, const py::object& policies, bool per_workgroup,
            bool attribution) {
  std::vector<wl::Scenario> scenarios;
  std::vector<wl::Program> programs;
  const auto add = [&](const py::handle& item) {
    if (py::isinstance<wl::Scenario>(item)) {
      scenarios.push_back(item.cast<wl::Scenario>());
    } else if (py::isinstance<wl::Program>(item)) {
      programs.push_back(item.cast<wl::Program>());
    } else {
      throw py::type_error("run() takes a Scenario, a Program or a list of one of them, not " +
                           py::repr(py::type::of(item)).cast<std::string>());
    }
  };
  if (py::isinstance<py::list>(target) || py::isinstance<py::tuple>(target)) {
    for (const auto& item : target) add(item);
  } else {
    add(target);
  }
  if (!scenarios.empty() && !programs.empty()) {
    throw py::type_error("run() takes scenarios or programs, not both in one call");
  }
  if (scenarios.empty() && programs.empty()) throw py::value_error("run() got nothing to run");
  const models::PolicyRequest request{policy_names(policies), SourceLocation{"<c3sim.run policies>", 0, 0}};
  if (!programs.empty()) return run_programs(hw.loaded.spec, programs, request, per_workgroup, attribution);
  models::SimOptions options;
  if (per_workgroup) options.max_cohort_size = 1;
  options.attribution = attribution;
  return run_scenarios(hw.loaded.spec, scenarios, request, options);
}

py::list policy_table(const Hardware& hw) {
  py::list out;
  const models::TransformRegistry registry = models::builtin_transforms();
  for (const auto& e : registry.entries()) {
    py::dict d;
    d["name"] = e.name;
    d["argument"] = e.argument;
    d["help"] = e.help;
    d["in_all"] = e.in_all;
    d["sweep"] = e.sweep ? e.sweep(hw.loaded.spec) : std::vector<std::string>{};
    out.append(d);
  }
  return out;
}

py::object paper(const Hardware& hw, const std::string& only) {
  const models::PaperOptions options = models::paper_options(only, SourceLocation{"<c3sim.paper>", 0, 0});
  models::check_paper_runs(hw.loaded.spec, options, SourceLocation{hw.name, 0, 0});
  nlohmann::json report;
  {
    const py::gil_scoped_release unlocked;
    report = models::to_json(models::make_paper_report(hw.loaded.spec, options));
  }
  report.erase("seconds");  // wall-clock time, not a result
  return to_python(report);
}

}  // namespace

void bind_run(py::module_& m) {
  py::class_<wl::C3Record>(m, "C3Result",
                           "One scenario under one policy: the `c3` record of `c3sim run` (times in us).")
      .def_readonly("scenario", &wl::C3Record::scenario)
      .def_readonly("policy", &wl::C3Record::policy)
      .def_readonly("gpus", &wl::C3Record::gpus)
      .def_readonly("bytes", &wl::C3Record::bytes)
      .def_readonly("time_us", &wl::C3Record::time_us, "Total: first launch to both kernels done.")
      .def_readonly("gemm_time_us", &wl::C3Record::gemm_time_us, "The GEMM's own span in the run.")
      .def_readonly("coll_time_us", &wl::C3Record::coll_time_us, "The collective's own span in the run.")
      .def_readonly("iso_gemm_us", &wl::C3Record::iso_gemm_us, "The GEMM alone on all CUs.")
      .def_readonly("iso_coll_us", &wl::C3Record::iso_coll_us, "The collective alone (CU default).")
      .def_readonly("speedup", &wl::C3Record::speedup, "Serial (iso GEMM + iso collective) / time.")
      .def_readonly("ideal_speedup", &wl::C3Record::ideal_speedup, "Serial / max(iso GEMM, iso collective).")
      .def_readonly("percent_of_ideal", &wl::C3Record::percent_of_ideal, "(speedup - 1) / (ideal - 1), in %.")
      .def_property_readonly(
          "gemm_slowdown", [](const wl::C3Record& r) { return r.gemm_time_us / r.iso_gemm_us.value_or(0); },
          "GEMM time in the run / alone.")
      .def_property_readonly(
          "coll_slowdown", [](const wl::C3Record& r) { return r.coll_time_us / r.iso_coll_us.value_or(0); },
          "Collective time in the run / alone.")
      .def_property_readonly(
          "chosen", [](const wl::C3Record& r) { return chosen_of(r.extra); },
          "For *_best sweeps: the policy that won (else None).")
      .def_property_readonly(
          "attribution", [](const wl::C3Record& r) { return to_python(r.attribution); },
          "Per kernel: its slowdown split into causes (us).")
      .def(
          "to_dict", [](const wl::C3Record& r) { return to_python(wl::to_json(r)); },
          "The record as `c3sim run --format jsonl` writes it.")
      .def("__repr__", [](const wl::C3Record& r) {
        return "<c3sim.C3Result " + r.scenario + " / " + r.policy + ": " + wl::format_double(r.time_us) +
               " us>";
      });

  py::class_<wl::ProgramRecord>(m, "ProgramResult",
                                "One program under one policy: the `program` record of `c3sim run`.")
      .def_readonly("program", &wl::ProgramRecord::program)
      .def_readonly("policy", &wl::ProgramRecord::policy)
      .def_readonly("gpus", &wl::ProgramRecord::gpus)
      .def_readonly("step_us", &wl::ProgramRecord::step_us, "First launch to last kernel end.")
      .def_readonly("serial_us", &wl::ProgramRecord::serial_us,
                    "Every kernel of the untransformed program alone, in a row.")
      .def_readonly("ideal_us", &wl::ProgramRecord::ideal_us, "Its critical path at isolated kernel times.")
      .def_readonly("overlap_percent", &wl::ProgramRecord::overlap_percent,
                    "(serial - step) / (serial - ideal), in % (None for one dependency chain).")
      .def_property_readonly(
          "chosen", [](const wl::ProgramRecord& r) { return chosen_of(r.extra); },
          "For *_best sweeps: the transformation that won (else None).")
      .def_property_readonly(
          "kernels", [](const wl::ProgramRecord& r) { return kernel_rows(r); },
          "Per kernel: name, kind, stream, launch/ready/start/end and isolated time (us).")
      .def(
          "to_dict", [](const wl::ProgramRecord& r) { return to_python(wl::to_json(r)); },
          "The record as `c3sim run --format jsonl` writes it.")
      .def("__repr__", [](const wl::ProgramRecord& r) {
        return "<c3sim.ProgramResult " + r.program + " / " + r.policy + ": " + wl::format_double(r.step_us) +
               " us>";
      });

  py::class_<Results>(m, "Results",
                      "What run() returns: the records of `c3sim run --format jsonl`. Index by policy "
                      "(results['sp']) or by (scenario or program name, policy); iterate for the "
                      "C3Result / ProgramResult objects.")
      .def("records", &rows_of, py::arg("kind") = py::none(),
           "Flat dicts, one per record (nested fields as dotted columns), for pandas.DataFrame(...). "
           "kind: 'c3' (default for scenarios), 'program' (default for programs), 'kernel' (one row "
           "per program kernel), 'iso_gemm', 'iso_coll' or 'env'.")
      .def_property_readonly(
          "env", [](const Results& r) { return to_python(wl::to_json(r.records.front())); },
          "The env record: what produced the results.")
      .def_property_readonly("results", &results_of, "C3Result / ProgramResult objects in run order.")
      .def("__getitem__", &result_at)
      .def("__len__", [](const Results& r) { return py::len(results_of(r)); })
      .def("__iter__", [](const Results& r) { return py::iter(results_of(r)); })
      .def(
          "to_dict",
          [](const Results& r) {
            py::list all;
            for (const auto& rec : r.records) all.append(to_python(wl::to_json(rec)));
            return all;
          },
          "Every record (env first) as nested dicts, as in the JSONL.")
      .def(
          "to_jsonl", [](const Results& r) { return wl::to_jsonl(r.records); },
          "The JSON Lines text `c3sim run --format jsonl` writes.")
      .def("__repr__", [](const Results& r) {
        return "<c3sim.Results: " + std::to_string(py::len(results_of(r))) + " runs>";
      });

  m.def("run", &run, py::arg("hardware"), py::arg("target"), py::arg("policies") = py::none(), py::kw_only(),
        py::arg("per_workgroup") = false, py::arg("attribution") = true,
        "Simulates a Scenario, a Program or a list of one kind under each policy, as `c3sim run` does.\n"
        "policies: a name, 'a,b' or a list ('base', 'sp', 'rp:32', 'dma', 'rp_best', 'all', ... see "
        "policies()); None = each scenario's or program's own, else all.\n"
        "per_workgroup: every workgroup simulated separately (fidelity mode); attribution=False skips "
        "the counterfactual runs that split slowdowns into causes (scenarios).\n"
        "Returns Results. InputError for a policy the hardware cannot run or a scenario that does not "
        "fit the node.");
  m.def("policies", &policy_table, py::arg("hardware"),
        "The policy registry: [{name, argument, help, in_all, sweep}]: argument names the integer after "
        "':' ('cus' for rp:<cus>), in_all whether `all` includes it, sweep the concrete names its "
        "<name>_best tries on this hardware.");
  m.def("paper", &paper, py::arg("hardware"), py::arg("only") = "all",
        "The main paper's reproduction (c3sim paper --format json) as a dict: figures 5-10, the "
        "per-policy summary (mean speedup, % of ideal) and the heuristics. only: 'all' | 'isolated' | "
        "'c3' | 'dma'.");
}

}  // namespace c3sim::python
