#pragma once
// `c3sim run PROGRAM.yaml`: the program half of `run` (cmd_run.cpp hands a file with a top-level
// `program:` or `programs:` key here). One `program` record per program x policy, after the env
// record; a table or CSV; `--trace` renders every run, every stream, into one Perfetto trace.
// Programs that run every rank (asymmetric, `all_gpus`, or --all-gpus) add per-rank step times,
// the straggler and its critical path (record extra; a third table), and one trace process per
// rank.
#include <string>
#include <vector>

namespace c3sim::cli {

struct ProgramRunArgs {
  std::string file;
  std::string hardware;
  // --hardware was given: a program traced on another GPU is a warning. Not given: a program that
  // names its traced GPU (wl::ProgramDevice) runs on the matching preset, said on stderr.
  bool hardware_given = true;
  std::vector<std::string> policies;  // from --policy; empty = the file's, else `all`
  std::string format;
  std::string output;
  std::string trace;
  bool per_workgroup = false;
  bool all_gpus = false;  // --all-gpus: every rank of every program (models/program/all_gpu_simulator.h)
  // Each kernel's slowdown by cause (models/program/counterfactuals.h), for runs of one
  // representative GPU; --no-attribution skips the three counterfactual runs per program x policy.
  bool attribution = true;
  // --rank R: rank R's program alone (its kernel list, sizes and overrides) on the representative
  // GPU, as if every GPU ran it; -1 = not given.
  int rank = -1;
  // --nodes N: every program spans N nodes (replaces its `nodes:`); 0 = not given.
  int nodes = 0;
};

// True when `path` parses as YAML whose top level has `program:` or `programs:`. Malformed YAML
// throws InputError here, as it would in the scenario reader.
bool is_program_file(const std::string& path);
void run_program_file(const ProgramRunArgs& args);

}  // namespace c3sim::cli
