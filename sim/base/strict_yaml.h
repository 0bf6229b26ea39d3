#pragma once
// Strict, location-aware reading of YAML mappings. Every read records the key as used; finish()
// rejects any key that was never read, so typos in user files are errors, not silent defaults.
// Parse first (this file), validate meaning in a separate pass (the callers' validate()).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/base/errors.h"
#include "sim/base/units.h"

namespace c3sim {

// A parsed YAML document and the file it came from (or a label like "<string>").
struct YamlDocument {
  YAML::Node root;
  std::string file;
};

// Throws InputError (exit 2 at the CLI) for a missing/unreadable file or malformed YAML.
YamlDocument load_yaml_file(const std::string& path);
YamlDocument load_yaml_string(const std::string& text, const std::string& label);

class StrictMap {
public:
  // `node` must be a mapping; `path` is the dotted key prefix used in messages ("spec.memory").
  StrictMap(const YAML::Node& node, std::string file, std::string path);

  [[nodiscard]] bool has(const std::string& key) const;
  [[nodiscard]] std::vector<std::string> keys() const;

  [[nodiscard]] std::string string(const std::string& key);
  [[nodiscard]] std::int64_t integer(const std::string& key);
  [[nodiscard]] double number(const std::string& key);
  [[nodiscard]] bool boolean(const std::string& key);
  // A value with a unit string ("4 MiB"), returned in SI base units.
  [[nodiscard]] double quantity(const std::string& key, Dimension dim);

  [[nodiscard]] std::optional<std::string> optional_string(const std::string& key);
  [[nodiscard]] std::optional<std::int64_t> optional_integer(const std::string& key);
  [[nodiscard]] std::optional<double> optional_number(const std::string& key);
  [[nodiscard]] std::optional<bool> optional_boolean(const std::string& key);
  [[nodiscard]] std::optional<double> optional_quantity(const std::string& key, Dimension dim);

  [[nodiscard]] StrictMap map(const std::string& key);
  [[nodiscard]] std::optional<StrictMap> optional_map(const std::string& key);
  // A sequence under `key`; each element is returned as a raw node (use element_location()).
  [[nodiscard]] std::vector<YAML::Node> sequence(const std::string& key);
  [[nodiscard]] YAML::Node raw(const std::string& key);  // marks used

  // Throws InputError naming the first key present but never read.
  void finish() const;

  [[nodiscard]] SourceLocation location() const;
  [[nodiscard]] SourceLocation location(const std::string& key) const;
  [[nodiscard]] std::string qualified(const std::string& key) const;
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const YAML::Node& node() const { return node_; }

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;

private:
  YAML::Node required_scalar(const std::string& key);

  YAML::Node node_;
  std::string file_;
  std::string path_;
  std::set<std::string> used_;
};

SourceLocation location_of(const YAML::Node& node, const std::string& file);

}  // namespace c3sim
