#pragma once
// Strict reading of one JSON object (a measurement record): typed getters that name the key and
// the JSONL line on error, and finish() rejecting keys never read, like StrictMap for YAML.
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/base/errors.h"

namespace c3sim::wl {

// Nesting a measurement record may have: its deepest field (`extra`) is an object of scalars, 3
// levels. nlohmann builds and frees any depth without recursion, but copying or dumping a tree
// (a record's `extra`, a value quoted in a message) recurses once per level.
inline constexpr int kMaxRecordDepth = 64;

// Throws InputError at `where` (column = the bracket that went too deep) when `text` nests objects
// and arrays deeper than `max_depth`; brackets inside strings do not count. Call before parsing.
void check_json_depth(const std::string& text, int max_depth, const SourceLocation& where);

class StrictJsonObject {
public:
  // Throws InputError if `j` is not an object. `j` must outlive this reader.
  StrictJsonObject(const nlohmann::json& j, SourceLocation where);

  [[nodiscard]] bool has(const std::string& key) const { return j_.contains(key); }

  [[nodiscard]] std::string string(const std::string& key);
  [[nodiscard]] std::string optional_string(const std::string& key);  // "" when absent
  [[nodiscard]] bool boolean(const std::string& key);
  [[nodiscard]] std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max);
  [[nodiscard]] std::optional<std::int64_t> optional_integer(const std::string& key, std::int64_t min,
                                                             std::int64_t max);
  // Any JSON number (integer or not), finite and >= `min`.
  [[nodiscard]] double number(const std::string& key, double min);
  [[nodiscard]] std::optional<double> optional_number(const std::string& key, double min);
  [[nodiscard]] nlohmann::json optional_object(const std::string& key);  // {} when absent

  void finish() const;
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;
  [[nodiscard]] const SourceLocation& where() const { return where_; }

private:
  const nlohmann::json& required(const std::string& key);

  const nlohmann::json& j_;
  SourceLocation where_;
  std::set<std::string> used_;
};

}  // namespace c3sim::wl
