#include "sim/base/strict_yaml.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "sim/base/input_file.h"

namespace c3sim {

namespace {

std::string node_type_name(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null: return "null";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Undefined: return "undefined";
  }
  return "?";
}

std::string printable(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? fmt::format("\\x{:02x}", u) : std::string(1, c);
  }
  return out;
}

// Strict UTF-8: no overlong forms, surrogates or code points past U+10FFFF. yaml-cpp passes such
// bytes through, and its emitter decodes them: the overlong C1 BF became "\x7f" (a control
// character) when a loaded program was written back, so they are refused at load.
bool valid_utf8(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    std::size_t extra = 0;
    std::uint32_t cp = 0, min = 0;
    if (b < 0x80) {
      ++i;
      continue;
    }
    if ((b & 0xE0) == 0xC0) {
      extra = 1;
      cp = b & 0x1Fu;
      min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
      extra = 2;
      cp = b & 0x0Fu;
      min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
      extra = 3;
      cp = b & 0x07u;
      min = 0x10000;
    } else {
      return false;
    }
    if (i + extra >= text.size()) return false;  // cut short
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

// yaml-cpp keeps the first of two equal keys and drops the second without a word (a sweep grid
// would lose a whole axis), and passes control bytes through quoted escapes ("\x01"). Both are
// refused here, for every YAML file c3sim reads, with the line of the offending key or value.
// Aliases let a small file name an exponential tree ("billion laughs"); no c3sim file needs more
// than a few thousand nodes, so the walk stops at this many.
constexpr std::size_t kMaxYamlNodes = std::size_t{1} << 20;

void check_tree(const YAML::Node& node, const std::string& label, const std::string& path,
                std::size_t& visited) {
  if (++visited > kMaxYamlNodes) {
    throw InputError(location_of(node, label), path,
                     fmt::format("the document expands to more than {} nodes (aliases?)", kMaxYamlNodes));
  }
  if (node.IsScalar()) {
    if (!valid_utf8(node.Scalar())) {
      throw InputError(location_of(node, label), path,
                       fmt::format("'{}' is not valid UTF-8", printable(node.Scalar())));
    }
    if (has_control_character(node.Scalar(), /*allow_whitespace=*/false)) {
      throw InputError(location_of(node, label), path,
                       fmt::format("'{}' holds a control character (names and values must be printable)",
                                   printable(node.Scalar())));
    }
    return;
  }
  if (node.IsSequence()) {
    std::size_t i = 0;
    for (const auto& e : node) check_tree(e, label, fmt::format("{}[{}]", path, i++), visited);
    return;
  }
  if (!node.IsMap()) return;
  std::set<std::string> seen;
  for (const auto& kv : node) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const std::string qualified = path.empty() ? key : fmt::format("{}.{}", path, key);
    if (kv.first.IsScalar()) {
      if (has_control_character(key, /*allow_whitespace=*/false)) {
        throw InputError(location_of(kv.first, label), printable(qualified), "key holds a control character");
      }
      if (!valid_utf8(key))
        throw InputError(location_of(kv.first, label), printable(qualified), "key is not valid UTF-8");
      if (!seen.insert(key).second) {
        throw InputError(location_of(kv.first, label), qualified,
                         "duplicate key (a key may appear once per mapping; YAML would silently keep "
                         "only the first)");
      }
    } else {
      throw InputError(location_of(kv.first, label), path,
                       "a key must be a plain name, not a list or mapping");
    }
    check_tree(kv.second, label, qualified, visited);
  }
}

YamlDocument parse(const std::string& text, const std::string& label) {
  try {
    YAML::Node root = YAML::Load(text);
    std::size_t visited = 0;
    check_tree(root, label, "", visited);
    return YamlDocument{root, label};
  } catch (const YAML::Exception& e) {
    SourceLocation where{label, e.mark.is_null() ? 0 : e.mark.line + 1,
                         e.mark.is_null() ? 0 : e.mark.column + 1};
    throw InputError(where, "", fmt::format("malformed YAML: {}", e.msg));
  }
}

}  // namespace

SourceLocation location_of(const YAML::Node& node, const std::string& file) {
  const YAML::Mark m = node.Mark();
  if (m.is_null()) return SourceLocation{file, 0, 0};
  return SourceLocation{file, m.line + 1, m.column + 1};
}

YamlDocument load_yaml_file(const std::string& path) { return parse(read_input_file(path), path); }

YamlDocument load_yaml_string(const std::string& text, const std::string& label) {
  return parse(text, label);
}

StrictMap::StrictMap(const YAML::Node& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {
  if (!node_.IsMap()) {
    throw InputError(location_of(node_, file_), path_,
                     fmt::format("expected a mapping, found {}", node_type_name(node_)));
  }
}

std::string StrictMap::qualified(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool StrictMap::has(const std::string& key) const { return static_cast<bool>(node_[key]); }

std::vector<std::string> StrictMap::keys() const {
  std::vector<std::string> out;
  for (const auto& kv : node_) out.push_back(kv.first.Scalar());  // Scalar(): no throw on odd keys
  return out;
}

SourceLocation StrictMap::location() const { return location_of(node_, file_); }

SourceLocation StrictMap::location(const std::string& key) const {
  for (const auto& kv : node_) {
    if (kv.first.Scalar() == key) return location_of(kv.first, file_);
  }
  return location();
}

void StrictMap::fail(const std::string& key, const std::string& problem) const {
  throw InputError(location(key), qualified(key), problem);
}

YAML::Node StrictMap::required_scalar(const std::string& key) {
  used_.insert(key);
  YAML::Node v = node_[key];
  if (!v) fail(key, "required key is missing");
  if (!v.IsScalar()) fail(key, fmt::format("expected a value, found {}", node_type_name(v)));
  return v;
}

std::string StrictMap::string(const std::string& key) { return required_scalar(key).Scalar(); }

std::int64_t StrictMap::integer(const std::string& key) {
  const std::string text = required_scalar(key).Scalar();
  try {
    size_t pos = 0;
    const long long v = std::stoll(text, &pos, 10);
    if (pos != text.size()) fail(key, fmt::format("'{}' is not an integer", text));
    return v;
  } catch (const std::invalid_argument&) {
    fail(key, fmt::format("'{}' is not an integer", text));
  } catch (const std::out_of_range&) {
    fail(key, fmt::format("'{}' is out of range", text));
  }
}

double StrictMap::number(const std::string& key) {
  const std::string text = required_scalar(key).Scalar();
  std::string why;
  auto v = parse_quantity(text, Dimension::dimensionless, &why);
  if (!v) fail(key, why);
  return *v;
}

bool StrictMap::boolean(const std::string& key) {
  const std::string text = required_scalar(key).Scalar();
  if (text == "true") return true;
  if (text == "false") return false;
  fail(key, fmt::format("'{}' is not true or false", text));
}

double StrictMap::quantity(const std::string& key, Dimension dim) {
  const std::string text = required_scalar(key).Scalar();
  std::string why;
  auto v = parse_quantity(text, dim, &why);
  if (!v) fail(key, why);
  return *v;
}

std::optional<std::string> StrictMap::optional_string(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return string(key);
}
std::optional<std::int64_t> StrictMap::optional_integer(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return integer(key);
}
std::optional<double> StrictMap::optional_number(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return number(key);
}
std::optional<bool> StrictMap::optional_boolean(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return boolean(key);
}
std::optional<double> StrictMap::optional_quantity(const std::string& key, Dimension dim) {
  if (!has(key)) return std::nullopt;
  return quantity(key, dim);
}

StrictMap StrictMap::map(const std::string& key) {
  used_.insert(key);
  YAML::Node v = node_[key];
  if (!v) fail(key, "required section is missing");
  if (!v.IsMap()) fail(key, fmt::format("expected a mapping, found {}", node_type_name(v)));
  return StrictMap(v, file_, qualified(key));
}

std::optional<StrictMap> StrictMap::optional_map(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return map(key);
}

std::vector<YAML::Node> StrictMap::sequence(const std::string& key) {
  used_.insert(key);
  YAML::Node v = node_[key];
  if (!v) fail(key, "required list is missing");
  if (!v.IsSequence()) fail(key, fmt::format("expected a list, found {}", node_type_name(v)));
  std::vector<YAML::Node> out;
  for (const auto& e : v) out.push_back(e);
  return out;
}

YAML::Node StrictMap::raw(const std::string& key) {
  used_.insert(key);
  return node_[key];
}

void StrictMap::finish() const {
  for (const auto& kv : node_) {
    const std::string k = kv.first.Scalar();
    if (!used_.count(k)) {
      throw InputError(location_of(kv.first, file_), qualified(k), "unknown key");
    }
  }
}

}  // namespace c3sim
