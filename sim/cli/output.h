#pragma once
// Output helpers for the CLI. A command declares its outputs before any work (check_outputs:
// never onto an input, a device, FIFO or directory, nor one path twice), stages each in a temp file
// beside its target, and moves them all into place only when every one is complete, so a failure
// leaves no output file and never touches what was there.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace c3sim::cli {

enum class Format { table, csv, json, jsonl };
Format parse_format(const std::string& text, const std::vector<Format>& allowed);
const char* to_string(Format f);

// One output of a command: a path ("" or "-" = stdout) and the option that named it ("-o").
struct OutputTarget {
  std::string path;
  std::string flag;
  [[nodiscard]] bool is_stdout() const { return path.empty() || path == "-"; }
};

// Throws InputError (file = the output path, key = its flag) before any work when an output is
// one of `inputs` (the files the command reads; names that are not files, like presets, are
// skipped), is not a regular file or a new path (a device, FIFO, socket, directory or a symlink to
// one), lies in a missing folder, or is given twice (stdout counts as one path).
void check_outputs(const std::vector<OutputTarget>& outputs, const std::vector<std::string>& inputs);

// An output written in pieces: to a temp file beside the target until commit() renames it into
// place (stdout is written straight through). Destroying it uncommitted removes the temp file, and
// so does SIGINT, SIGTERM or SIGHUP while it is staged (temp_file_cleanup.h). The constructor
// checks the target against `inputs` first (check_outputs), so no output is staged unchecked.
class StagedOutput {
public:
  StagedOutput(OutputTarget target, const std::vector<std::string>& inputs);
  ~StagedOutput();
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;

  void write(const std::string& text);
  // Flushes and closes the temp file (errors: InputError naming the target); rename() then moves
  // it into place. Split so a command with several outputs finishes every one before moving any.
  void close();
  void rename();
  void commit() {
    close();
    rename();
  }

private:
  OutputTarget target_;
  std::string final_path_;  // the target, with a symlink to a regular file resolved
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  int cleanup_slot_ = -1;  // register_temp_file's slot while the temp file exists
  bool done_ = false;
};

// Writes every (target, content) or none: the targets are checked together against `inputs`
// (check_outputs), then all are staged and closed before the first is renamed. Every command
// writes its outputs through this or StagedOutput, so every output passes the same guard.
void write_outputs(const std::vector<std::pair<OutputTarget, std::string>>& outputs,
                   const std::vector<std::string>& inputs);

// A plain text table with right-aligned numeric columns.
class TextTable {
public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  [[nodiscard]] std::string render() const;
  [[nodiscard]] std::string csv() const;

private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace c3sim::cli
