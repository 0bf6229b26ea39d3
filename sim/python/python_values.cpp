#include "sim/python/python_values.h"

#include <yaml-cpp/yaml.h>

namespace py = pybind11;

namespace c3sim::python {

namespace {

YAML::Node to_yaml_node(const py::handle& value) {
  if (value.is_none()) return YAML::Node(YAML::NodeType::Null);
  if (py::isinstance<py::bool_>(value)) return YAML::Node(value.cast<bool>() ? "true" : "false");
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    return YAML::Node(py::repr(value).cast<std::string>());
  }
  if (py::isinstance<py::str>(value)) return YAML::Node(value.cast<std::string>());
  if (py::isinstance<py::dict>(value) || py::hasattr(value, "items")) {
    YAML::Node map(YAML::NodeType::Map);
    for (const auto& item : value.attr("items")()) {
      const auto pair = item.cast<py::tuple>();
      if (!py::isinstance<py::str>(pair[0])) {
        throw py::type_error("mapping keys must be strings, got " + py::repr(pair[0]).cast<std::string>());
      }
      map[pair[0].cast<std::string>()] = to_yaml_node(pair[1]);
    }
    return map;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    YAML::Node seq(YAML::NodeType::Sequence);
    for (const auto& item : value) seq.push_back(to_yaml_node(item));
    return seq;
  }
  return YAML::Node(py::str(value).cast<std::string>());
}

}  // namespace

py::object to_python(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(value.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(value.get<double>());
    case nlohmann::json::value_t::string: return py::str(value.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& item : value) out.append(to_python(item));
      return out;
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [key, item] : value.items()) out[py::str(key)] = to_python(item);
      return out;
    }
    default: return py::none();  // binary and discarded values: the library's JSON never holds them
  }
}

std::string to_yaml_text(const py::handle& value) {
  YAML::Emitter out;
  out << to_yaml_node(value);
  return std::string(out.c_str()) + "\n";
}

std::string path_text(const py::handle& path) {
  return py::str(py::module_::import("os").attr("fspath")(path)).cast<std::string>();
}

}  // namespace c3sim::python
