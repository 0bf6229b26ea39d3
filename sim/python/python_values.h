#pragma once
// Plain values across the Python boundary: the library's JSON (records, reports) as Python dicts
// and lists, and Python dicts and lists as YAML text for the library's own strict readers, so a
// scenario, program or sweep given as a dict is checked exactly like one read from a file.
#include <string>

#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

namespace c3sim::python {

// null -> None, numbers -> int/float, objects -> dict (the JSON's key order), arrays -> list.
pybind11::object to_python(const nlohmann::json& value);

// dict/mapping -> YAML mapping, list/tuple -> sequence, None -> null, bool -> true/false,
// int/float -> their Python text (repr), str and anything else -> its str(). Throws TypeError for
// a mapping key that is not a string.
std::string to_yaml_text(const pybind11::handle& value);

// A path argument: str or os.PathLike (pathlib.Path) -> the path text.
std::string path_text(const pybind11::handle& path);

}  // namespace c3sim::python
