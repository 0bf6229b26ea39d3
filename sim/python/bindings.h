#pragma once
// The pieces of the c3sim Python module (module.cpp puts them together). Each binds library
// functions as they are; what the module adds is conversion to and from plain Python values.
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "hardware/hardware_loader.h"
#include "workloads/measurement.h"

namespace c3sim::python {

// A loaded hardware model: what --hardware names, plus where each value came from (so set()
// reports errors the way a hardware file does) and the name it was loaded by.
struct Hardware {
  std::string name;
  hw::LoadedHardware loaded;
};

// What run() returns: the measurement records `c3sim run --format jsonl` writes, env record first.
struct Results {
  std::vector<wl::Record> records;
};

void bind_errors(pybind11::module_& m);    // InputError, ModelError
void bind_hardware(pybind11::module_& m);  // Hardware, load_hardware, presets
void bind_inputs(pybind11::module_& m);    // Scenario, Program, loaders, catalog, generate
void bind_run(pybind11::module_& m);       // run, Results, policies, paper
void bind_sweep(pybind11::module_& m);     // sweep_text

}  // namespace c3sim::python
