#pragma once
// Typed errors thrown by library code. Only the CLI catches them, prints and picks an exit code:
// InputError -> exit 2 (the user's file is wrong), everything else -> exit 1 (our bug).
#include <stdexcept>
#include <string>

namespace c3sim {

// Where in a user's file a value came from. line/column are 1-based; 0 means "unknown"
// (for example a whole-file problem such as a missing file).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

// Bad user input: malformed YAML/JSON, unknown or missing keys, impossible values, missing files.
// The message always names the file, the line and the key so a user can fix it without a debugger.
class InputError : public std::runtime_error {
public:
  InputError(SourceLocation where, std::string key, const std::string& problem);

  [[nodiscard]] const SourceLocation& where() const { return where_; }
  [[nodiscard]] const std::string& key() const { return key_; }
  [[nodiscard]] const std::string& problem() const { return problem_; }

private:
  SourceLocation where_;
  std::string key_;
  std::string problem_;
};

// A model or engine invariant was violated (a bug in c3sim, not in the user's input).
class ModelError : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

}  // namespace c3sim
