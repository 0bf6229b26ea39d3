#pragma once
// Where each hardware value was written: dotted key -> file/line. Filled while parsing (and by
// set_field, as "<override>") so the separate validation pass can name the file and line of an
// impossible value, which may sit in a base file reached through `extends:`.
#include <map>
#include <string>
#include <utility>

#include "sim/base/errors.h"

namespace c3sim::hw {

class HardwareSourceMap {
public:
  HardwareSourceMap() = default;
  // `fallback_file` is named (without a line) for keys that were never recorded, e.g. a NodeSpec
  // built in code.
  explicit HardwareSourceMap(std::string fallback_file) : fallback_file_(std::move(fallback_file)) {}

  void set(const std::string& key, SourceLocation where) { where_[key] = std::move(where); }

  [[nodiscard]] SourceLocation at(const std::string& key) const {
    auto it = where_.find(key);
    if (it != where_.end()) return it->second;
    return SourceLocation{fallback_file_, 0, 0};
  }

  [[nodiscard]] bool has(const std::string& key) const { return where_.count(key) != 0; }
  [[nodiscard]] const std::string& fallback_file() const { return fallback_file_; }

private:
  std::map<std::string, SourceLocation> where_;
  std::string fallback_file_;
};

}  // namespace c3sim::hw
