// Design sweeps: a sweep file (or the same keys as a dict) run on TBB threads, rendered by the
// sweep library exactly as `c3sim sweep` writes it (c3sim/__init__.py turns the CSV into rows).
#include <algorithm>
#include <filesystem>
#include <thread>

#include "sim/python/bindings.h"
#include "sim/python/python_values.h"
#include "sim/sweep/sweep_output.h"
#include "sim/sweep/sweep_runner.h"
#include "sim/sweep/sweep_spec.h"

namespace py = pybind11;

namespace c3sim::python {

namespace {

sweep::SweepSpec load_spec(const py::object& source) {
  if (py::isinstance<py::dict>(source)) {
    // Relative hardware / scenario_file paths in a dict resolve against the current directory.
    return sweep::load_sweep_string(to_yaml_text(source), "<c3sim.sweep>",
                                    std::filesystem::current_path().string());
  }
  return sweep::load_sweep_file(path_text(source));
}

// One process of `c3sim sweep`: chunk by chunk, header first, tasks in order (the output is the
// same for any thread count).
std::string sweep_text(const py::object& source, int threads, const std::string& format) {
  if (format != "csv" && format != "jsonl") throw py::value_error("format must be 'csv' or 'jsonl'");
  if (threads < 0) throw py::value_error("threads must be >= 0 (0 = every core)");
  const sweep::OutputFormat f = format == "jsonl" ? sweep::OutputFormat::jsonl : sweep::OutputFormat::csv;
  const sweep::SweepSpec spec = load_spec(source);
  const py::gil_scoped_release unlocked;
  sweep::RunOptions options;
  options.threads =
      threads > 0 ? threads : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  const std::size_t chunk_tasks = static_cast<std::size_t>(options.threads) * 64;
  std::string out = sweep::render_header(spec, f);
  for (std::size_t c = 0; c < sweep::chunk_count(spec, chunk_tasks); ++c) {
    const std::vector<std::size_t> tasks = sweep::tasks_in_chunk(spec, c, chunk_tasks, 0, 1);
    for (const auto& r : sweep::run_tasks(spec, tasks, options)) out += sweep::render_task(spec, r, f);
  }
  return out;
}

}  // namespace

void bind_sweep(py::module_& m) {
  m.def("sweep_text", &sweep_text, py::arg("source"), py::kw_only(), py::arg("threads") = 0,
        py::arg("format") = "csv",
        "The text `c3sim sweep` writes (format 'csv' or 'jsonl') for a sweep file path or a dict "
        "of its keys; threads = 0: every core. InputError names the sweep file's line and key.");
}

}  // namespace c3sim::python
