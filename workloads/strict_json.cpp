#include "workloads/strict_json.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace c3sim::wl {

void check_json_depth(const std::string& text, int max_depth, const SourceLocation& where) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        const int column =
            i + 1 > static_cast<std::size_t>(std::numeric_limits<int>::max()) ? 0 : static_cast<int>(i + 1);
        throw InputError(SourceLocation{where.file, where.line, column}, "",
                         fmt::format("nesting deeper than {} levels of objects and arrays", max_depth));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

StrictJsonObject::StrictJsonObject(const nlohmann::json& j, SourceLocation where)
    : j_(j), where_(std::move(where)) {
  if (!j_.is_object())
    throw InputError(where_, "", fmt::format("expected a JSON object, found {}", j_.type_name()));
}

void StrictJsonObject::fail(const std::string& key, const std::string& problem) const {
  throw InputError(where_, key, problem);
}

const nlohmann::json& StrictJsonObject::required(const std::string& key) {
  used_.insert(key);
  const auto it = j_.find(key);
  if (it == j_.end()) fail(key, "required field is missing");
  return *it;
}

std::string StrictJsonObject::string(const std::string& key) {
  const nlohmann::json& v = required(key);
  if (!v.is_string()) fail(key, fmt::format("expected a string, found {}", v.type_name()));
  return v.get<std::string>();
}

bool StrictJsonObject::boolean(const std::string& key) {
  const nlohmann::json& v = required(key);
  if (!v.is_boolean()) fail(key, fmt::format("expected true or false, found {}", v.dump()));
  return v.get<bool>();
}

std::string StrictJsonObject::optional_string(const std::string& key) {
  if (!has(key)) return "";
  return string(key);
}

std::int64_t StrictJsonObject::integer(const std::string& key, std::int64_t min, std::int64_t max) {
  const nlohmann::json& v = required(key);
  if (!v.is_number_integer()) fail(key, fmt::format("expected an integer, found {}", v.dump()));
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
    fail(key, fmt::format("{} is out of range {}..{}", v.dump(), min, max));
  }
  const std::int64_t x = v.get<std::int64_t>();
  if (x < min || x > max) fail(key, fmt::format("{} is out of range {}..{}", x, min, max));
  return x;
}

std::optional<std::int64_t> StrictJsonObject::optional_integer(const std::string& key, std::int64_t min,
                                                               std::int64_t max) {
  if (!has(key)) return std::nullopt;
  return integer(key, min, max);
}

double StrictJsonObject::number(const std::string& key, double min) {
  const nlohmann::json& v = required(key);
  if (!v.is_number()) fail(key, fmt::format("expected a number, found {}", v.type_name()));
  const double x = v.get<double>();
  if (!std::isfinite(x)) fail(key, "must be finite");
  if (x < min) fail(key, fmt::format("{} is below the minimum {}", x, min));
  return x;
}

std::optional<double> StrictJsonObject::optional_number(const std::string& key, double min) {
  if (!has(key)) return std::nullopt;
  return number(key, min);
}

nlohmann::json StrictJsonObject::optional_object(const std::string& key) {
  if (!has(key)) return nlohmann::json::object();
  const nlohmann::json& v = required(key);
  if (!v.is_object()) fail(key, fmt::format("expected an object, found {}", v.type_name()));
  return v;
}

void StrictJsonObject::finish() const {
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    if (!used_.count(it.key())) fail(it.key(), "unknown field");
  }
}

}  // namespace c3sim::wl
