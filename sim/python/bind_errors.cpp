// The library's typed errors as Python exceptions with the same message: InputError (a ValueError:
// the user's input is wrong) carries file, line, column, key and problem; ModelError (a
// RuntimeError: a bug in c3sim) only its message.
#include <exception>

#include "sim/base/errors.h"
#include "sim/python/bindings.h"

namespace py = pybind11;

namespace c3sim::python {

void bind_errors(py::module_& m) {
  py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  input_error.doc() =
      "Bad input (malformed YAML, unknown or missing keys, impossible values, missing files). "
      "The message names the file, line and key; so do the attributes file, line, column (0 when "
      "unknown), key and problem.";
  py::exception<ModelError> model_error(m, "ModelError", PyExc_RuntimeError);
  model_error.doc() = "A model or engine invariant was violated: a bug in c3sim, not in the input.";
  // The types are looked up on the module when an error is raised, so no Python object outlives
  // the interpreter in a C++ static.
  // pybind11's translator type takes the exception_ptr by value.
  py::register_exception_translator([](std::exception_ptr p) {  // NOLINT(performance-unnecessary-value-param)
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      const py::object type = py::module_::import("c3sim._core").attr("InputError");
      py::object error = type(e.what());
      error.attr("file") = e.where().file;
      error.attr("line") = e.where().line;
      error.attr("column") = e.where().column;
      error.attr("key") = e.key();
      error.attr("problem") = e.problem();
      PyErr_SetObject(type.ptr(), error.ptr());
    } catch (const ModelError& e) {
      const py::object type = py::module_::import("c3sim._core").attr("ModelError");
      PyErr_SetString(type.ptr(), e.what());
    }
  });
}

}  // namespace c3sim::python
