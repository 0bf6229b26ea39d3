#pragma once
// Output helpers for the CLI: every command renders its whole result to a string first and only
// then writes it, atomically (temp file + rename), so a failure never leaves a partial file.
#include <string>
#include <vector>

namespace c3sim::cli {

enum class Format { table, csv, json, jsonl };
Format parse_format(const std::string& text, const std::vector<Format>& allowed);
const char* to_string(Format f);

// Writes to `path`, or to stdout when path is empty or "-".
void write_output(const std::string& path, const std::string& content);

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
