// The c3sim Python module's native part, c3sim._core (c3sim/__init__.py re-exports it and adds
// sweep()'s row parsing). Docstrings here are what help(c3sim.run) shows.
#include "sim/base/version.h"
#include "sim/python/bindings.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "c3sim: simulate concurrent GEMM + collective execution (C3) on multi-GPU nodes";
  m.attr("__version__") = c3sim::version();  // the release, from the VERSION file
  c3sim::python::bind_errors(m);
  c3sim::python::bind_hardware(m);
  c3sim::python::bind_inputs(m);
  c3sim::python::bind_run(m);
  c3sim::python::bind_sweep(m);
}
