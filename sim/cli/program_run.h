#pragma once
// `c3sim run PROGRAM.yaml`: the program half of `run` (cmd_run.cpp hands a file with a top-level
// `program:` or `programs:` key here). One `program` record per program x policy, after the env
// record; a table or CSV; `--trace` renders every run, every stream, into one Perfetto trace.
#include <string>
#include <vector>

namespace c3sim::cli {

struct ProgramRunArgs {
  std::string file;
  std::string hardware;
  std::vector<std::string> policies;  // from --policy; empty = the file's, else `all`
  std::string format;
  std::string output;
  std::string trace;
  bool per_workgroup = false;
};

// True when `path` parses as YAML whose top level has `program:` or `programs:`. Malformed YAML
// throws InputError here, as it would in the scenario reader.
bool is_program_file(const std::string& path);
void run_program_file(const ProgramRunArgs& args);

}  // namespace c3sim::cli
