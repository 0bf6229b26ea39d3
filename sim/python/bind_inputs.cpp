// What runs: scenarios (a GEMM and a collective side by side) and programs (kernels on streams).
// Built from dicts through the library's own YAML readers (the same keys, units and checks as a
// file; errors name the dotted key), loaded from files, taken from the paper's catalog, or
// generated from a model configuration as `c3sim generate` does.
#include <pybind11/stl.h>

#include "sim/python/bindings.h"
#include "sim/python/python_values.h"
#include "workloads/paper_catalog.h"
#include "workloads/program_generators.h"
#include "workloads/program_io.h"
#include "workloads/scenario_io.h"

namespace py = pybind11;

namespace c3sim::python {

namespace {

constexpr const char* kScenarioLabel = "<c3sim.Scenario>";
constexpr const char* kProgramLabel = "<c3sim.Program>";

py::object optional_int(const std::optional<int>& v) {
  return v ? py::object(py::int_(*v)) : py::object(py::none());
}

py::dict scenario_dict(const wl::Scenario& s) {
  py::dict gemm;
  gemm["tag"] = s.gemm.tag;
  gemm["m"] = s.gemm.m;
  gemm["n"] = s.gemm.n;
  gemm["k"] = s.gemm.k;
  gemm["dtype"] = to_string(s.gemm.dtype);
  py::dict coll;
  coll["op"] = wl::to_string(s.collective.op);
  coll["bytes"] = s.collective.bytes;
  coll["impl"] = wl::to_string(s.collective.impl);
  coll["max_workgroups"] = optional_int(s.collective.max_workgroups);
  py::dict out;
  out["name"] = s.name;
  out["tag"] = s.tag;
  out["source"] = s.source;
  out["taxonomy"] = s.paper_taxonomy ? py::object(py::str(wl::to_string(*s.paper_taxonomy))) : py::none();
  out["gpus"] = optional_int(s.gpus);
  out["gemm"] = gemm;
  out["collective"] = coll;
  out["policies"] = s.policies;
  return out;
}

py::dict program_dict(const wl::Program& p) {
  py::list streams;
  for (const auto& st : p.streams) {
    py::dict d;
    d["name"] = st.name;
    d["priority"] = st.priority;
    d["cus"] = optional_int(st.cus);
    streams.append(d);
  }
  py::list kernels;
  for (const auto& k : p.kernels) {
    py::dict d;
    d["name"] = k.name;
    d["kind"] = wl::to_string(k.kind);
    d["stream"] = k.stream;
    d["after"] = k.after;
    d["gap_us"] = k.gap_us ? py::object(py::float_(*k.gap_us)) : py::none();
    kernels.append(d);
  }
  py::dict out;
  out["name"] = p.name;
  out["source"] = p.source;
  out["gpus"] = optional_int(p.gpus);
  out["launch_gap_us"] = p.launch_gap_us ? py::object(py::float_(*p.launch_gap_us)) : py::none();
  out["streams"] = streams;
  out["kernels"] = kernels;
  out["policies"] = p.policies;
  return out;
}

wl::Scenario make_scenario(const py::object& gemm, const py::object& collective, const py::object& gpus,
                           const py::object& name, const py::object& policies, const py::object& tag,
                           const py::object& source, const py::object& taxonomy, const py::object& catalog) {
  py::dict entry;
  const auto put = [&entry](const char* key, const py::object& value) {
    if (!value.is_none()) entry[key] = value;
  };
  if (!catalog.is_none()) {
    put("catalog", catalog);
    put("policies", policies);
  } else {
    entry["name"] = name.is_none() ? py::str("scenario") : name;
    put("gemm", gemm);
    put("collective", collective);
    put("gpus", gpus);
    put("policies", policies);
    put("tag", tag);
    put("source", source);
    put("taxonomy", taxonomy);
  }
  std::vector<wl::Scenario> out = wl::load_scenarios_string(to_yaml_text(entry), kScenarioLabel);
  if (out.size() != 1) {
    throw InputError(SourceLocation{kScenarioLabel, 0, 0}, "catalog",
                     "names " + std::to_string(out.size()) +
                         " scenarios; give one scenario name (paper_catalog() lists them all)");
  }
  return std::move(out.front());
}

wl::Program make_program(const py::object& spec) {
  py::dict doc;
  doc["program"] = spec;
  std::vector<wl::Program> out = wl::load_programs_string(to_yaml_text(doc), kProgramLabel);
  return std::move(out.front());
}

}  // namespace

void bind_inputs(py::module_& m) {
  py::class_<wl::Scenario>(m, "Scenario",
                           "One GEMM and one collective run concurrently on every GPU of a node (the "
                           "keys of a scenario YAML entry).")
      .def(py::init(&make_scenario), py::kw_only(), py::arg("gemm") = py::none(),
           py::arg("collective") = py::none(), py::arg("gpus") = py::none(), py::arg("name") = py::none(),
           py::arg("policies") = py::none(), py::arg("tag") = py::none(), py::arg("source") = py::none(),
           py::arg("taxonomy") = py::none(), py::arg("catalog") = py::none(),
           "Scenario(gemm=dict(m=8192, n=8192, k=8192, dtype='bf16') or a Table I tag ('cb1'),\n"
           "         collective=dict(op='all_gather', bytes='896 MiB' or an int, impl='cu', "
           "max_workgroups=None),\n"
           "         gpus=None (every GPU), name='scenario', policies=None)\n"
           "or Scenario(catalog='mb1_896M_ag') for one scenario of the paper's catalog. Checked like a "
           "scenario file: InputError names the key.")
      .def_readonly("name", &wl::Scenario::name)
      .def_readonly("gpus", &wl::Scenario::gpus)
      .def_readonly("policies", &wl::Scenario::policies)
      .def_property_readonly(
          "gemm", [](const wl::Scenario& s) -> py::object { return scenario_dict(s)["gemm"]; },
          "{tag, m, n, k, dtype}")
      .def_property_readonly(
          "collective", [](const wl::Scenario& s) -> py::object { return scenario_dict(s)["collective"]; },
          "{op, bytes (per-GPU output), impl, max_workgroups}")
      .def("to_dict", &scenario_dict, "The scenario as a plain dict.")
      .def(
          "to_yaml", [](const wl::Scenario& s) { return wl::to_yaml({s}); },
          "The scenario as scenario-file YAML (c3sim run takes it).")
      .def("__repr__", [](const wl::Scenario& s) {
        return "<c3sim.Scenario '" + s.name + "': GEMM " + s.gemm.shape_string() + " + " +
               wl::to_string(s.collective.op) + " " + std::to_string(s.collective.bytes) + " B>";
      });

  py::class_<wl::Program>(m, "Program",
                          "Kernels on streams with dependencies (the keys of a program YAML's `program:`).")
      .def(py::init(&make_program), py::arg("spec"),
           "Program({'name': ..., 'streams': [...], 'kernels': [...]}): checked like a program file "
           "(docs/programs.md); InputError names the key.")
      .def_static("from_scenario", &wl::program_from_scenario, py::arg("scenario"),
                  "The scenario's pair as a two-kernel program.")
      .def_readonly("name", &wl::Program::name)
      .def_readonly("gpus", &wl::Program::gpus)
      .def_readonly("policies", &wl::Program::policies)
      .def_property_readonly(
          "kernels", [](const wl::Program& p) -> py::object { return program_dict(p)["kernels"]; },
          "[{name, kind, stream, after, gap_us}] in host launch order")
      .def("to_dict", &program_dict, "The program's streams and kernels as plain dicts.")
      .def(
          "to_yaml", [](const wl::Program& p) { return wl::programs_to_yaml({p}); },
          "The program as program-file YAML (c3sim run takes it).")
      .def("__repr__", [](const wl::Program& p) {
        return "<c3sim.Program '" + p.name + "': " + std::to_string(p.kernels.size()) + " kernels on " +
               std::to_string(p.streams.size()) + " streams>";
      });

  m.def(
      "load_scenarios", [](const py::object& path) { return wl::load_scenarios_file(path_text(path)); },
      py::arg("path"), "Every scenario of a scenario YAML file (catalog references expanded).");
  m.def(
      "paper_catalog", [] { return wl::paper_scenarios(); },
      "The main paper's 30 scenarios (Table II with all-gather, then with all-to-all).");
  m.def(
      "load_programs", [](const py::object& path) { return wl::load_programs_file(path_text(path)); },
      py::arg("path"), "Every program of a program YAML file (`program:` or `programs:`).");
  m.def(
      "load_program",
      [](const py::object& path) {
        const std::string file = path_text(path);
        std::vector<wl::Program> programs = wl::load_programs_file(file);
        if (programs.size() != 1) {
          throw InputError(SourceLocation{file, 0, 0}, "programs",
                           "holds " + std::to_string(programs.size()) + " programs; use load_programs()");
        }
        return std::move(programs.front());
      },
      py::arg("path"), "The one program of a program YAML file.");
  m.def(
      "generate",
      [](const std::string& kind, const std::string& model, int tp) {
        return wl::generate_program(kind, model, tp, SourceLocation{"<c3sim.generate>", 0, 0});
      },
      py::arg("kind"), py::arg("model") = "", py::arg("tp") = 8,
      "A program generated from a model configuration, as `c3sim generate` writes it: kind "
      "'fsdp-layer' | 'tp-block' | 'moe-layer' | 'dlrm'; model 'llama-70b' (default) | 'llama-405b' "
      "('mixtral-8x7b' for moe-layer; dlrm: the MLPerf DLRM-dcnv2 reference step); tp: tp-block's "
      "tensor-parallel degree.");
}

}  // namespace c3sim::python
