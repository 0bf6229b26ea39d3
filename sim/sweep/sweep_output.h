#pragma once
// A sweep's results as text, one task at a time: each task's rows render independently, so MPI
// ranks can render their share and rank 0 concatenates in task order, byte-identical to a
// single-process run.
//
// CSV: one row per point with the varied fields' values as columns; numbers use the shortest
// text that reads back exactly (wl::format_double), so the output does not depend on locale.
// JSONL: the measurement schema (an env record, then c3 records); each c3 record's extra holds
// {"variant": {"index", "name", "settings": {key: value}}} so `c3sim report` can group by it.
#include <string>

#include "sim/sweep/sweep_runner.h"
#include "sim/sweep/sweep_spec.h"

namespace c3sim::sweep {

enum class OutputFormat { csv, jsonl };

std::string render_header(const SweepSpec& spec, OutputFormat format);
std::string render_task(const SweepSpec& spec, const TaskResult& result, OutputFormat format);

}  // namespace c3sim::sweep
