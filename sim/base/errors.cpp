#include "sim/base/errors.h"

#include <fmt/format.h>

namespace c3sim {

namespace {
std::string format_input_error(const SourceLocation& where, const std::string& key,
                               const std::string& problem) {
  std::string out = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0) {
    out += fmt::format(":{}", where.line);
    if (where.column > 0) out += fmt::format(":{}", where.column);
  }
  out += ": ";
  if (!key.empty()) out += fmt::format("key '{}': ", key);
  out += problem;
  return out;
}
}  // namespace

InputError::InputError(SourceLocation where, std::string key, const std::string& problem)
    : std::runtime_error(format_input_error(where, key, problem)),
      where_(std::move(where)),
      key_(std::move(key)),
      problem_(problem) {}

}  // namespace c3sim
