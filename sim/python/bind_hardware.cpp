// Hardware models: a preset or a hardware file (hw::load_hardware_with_sources), read and edited
// field by field through the library's field table, the way sweeps set fields and hardware files
// write them (the same parsing, units and checks).
#include <pybind11/stl.h>

#include "hardware/hardware_loader.h"
#include "sim/python/bindings.h"
#include "sim/python/python_values.h"

namespace py = pybind11;

namespace c3sim::python {

namespace {

std::string value_text(const py::handle& value) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  return py::str(value).cast<std::string>();
}

// Applies every (key, value) to a copy and validates it as a whole, so the model is never left
// half-changed: an error leaves `hw` as it was.
void set_fields(Hardware& hw, const std::vector<std::pair<std::string, std::string>>& settings) {
  hw::LoadedHardware changed = hw.loaded;
  for (const auto& [key, value] : settings) hw::set_field(changed.spec, key, value, &changed.sources);
  hw::validate(changed.spec, changed.sources);
  hw.loaded = std::move(changed);
}

}  // namespace

void bind_hardware(py::module_& m) {
  py::class_<Hardware>(m, "Hardware",
                       "A hardware model (a node of GPUs): load it with load_hardware(); read and change "
                       "its fields by their dotted hardware-file keys.")
      .def_static(
          "from_yaml",
          [](const std::string& text, const std::string& label) {
            return Hardware{label, hw::load_hardware_from_string_with_sources(text, label)};
          },
          py::arg("text"), py::arg("label") = "<string>",
          "A hardware model from hardware-file YAML text; `label` names it in error messages.")
      .def_readonly("name", &Hardware::name, "The preset name or file it was loaded from.")
      .def_property_readonly(
          "gpus", [](const Hardware& h) { return h.loaded.spec.interconnect.gpus; }, "GPUs in the node.")
      .def_property_readonly(
          "cus", [](const Hardware& h) { return h.loaded.spec.compute.total_cus(); },
          "Compute units (SMs) per GPU.")
      .def(
          "get", [](const Hardware& h, const std::string& key) { return hw::get_field(h.loaded.spec, key); },
          py::arg("key"),
          "A field's value as hardware-file text, e.g. get('spec.memory.hbm_bandwidth') -> '5.3 TB/s' "
          "('' for an absent optional field). InputError for an unknown key.")
      .def(
          "set",
          [](Hardware& h, const std::string& key, const py::object& value) {
            set_fields(h, {{key, value_text(value)}});
          },
          py::arg("key"), py::arg("value"),
          "Sets one field from text with its unit ('20 us', '100 GB/s') or a number for counts and "
          "plain numbers, checked as in a hardware file (the field's constraint, then every rule that "
          "relates fields). On InputError the model is unchanged.")
      .def(
          "update",
          [](Hardware& h, const py::dict& settings) {
            std::vector<std::pair<std::string, std::string>> list;
            for (const auto& [key, value] : settings) list.emplace_back(py::str(key), value_text(value));
            set_fields(h, list);
          },
          py::arg("settings"),
          "Sets several fields at once ({key: value}), checking the rules that relate fields only "
          "after all are set. On InputError the model is unchanged.")
      .def(
          "fields", [](const Hardware&) { return hw::field_names(); },
          "Every hardware-file key, in file order.")
      .def(
          "to_dict",
          [](const Hardware& h) {
            py::dict out;
            for (const auto& f : hw::hardware_fields()) {
              if (f.is_present(h.loaded.spec)) {
                out[py::str(std::string(f.key))] = hw::format_field(f, h.loaded.spec);
              }
            }
            return out;
          },
          "{key: value text} for every field present.")
      .def(
          "to_yaml", [](const Hardware& h) { return hw::to_yaml(h.loaded.spec); },
          "The model as a complete hardware file (loads back to the identical model).")
      .def(
          "copy", [](const Hardware& h) { return h; }, "An independent copy.")
      .def("__repr__", [](const Hardware& h) {
        return "<c3sim.Hardware '" + h.name + "': " + std::to_string(h.loaded.spec.interconnect.gpus) +
               " GPUs x " + std::to_string(h.loaded.spec.compute.total_cus()) + " CUs>";
      });

  m.def(
      "load_hardware",
      [](const py::object& name_or_path) {
        const std::string name = path_text(name_or_path);
        return Hardware{name, hw::load_hardware_with_sources(name)};
      },
      py::arg("name_or_path"),
      "A hardware model: a built-in preset name (see presets()) or a hardware YAML file, as "
      "`c3sim --hardware` takes it. InputError naming file, line and key for a bad file.");
  m.def("presets", &hw::preset_names, "The built-in hardware preset names.");
}

}  // namespace c3sim::python
