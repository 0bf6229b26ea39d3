#include "sim/cli/output.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "sim/base/errors.h"

namespace c3sim::cli {

const char* to_string(Format f) {
  switch (f) {
    case Format::table: return "table";
    case Format::csv: return "csv";
    case Format::json: return "json";
    case Format::jsonl: return "jsonl";
  }
  return "?";
}

Format parse_format(const std::string& text, const std::vector<Format>& allowed) {
  std::string names;
  for (Format f : allowed) {
    if (text == to_string(f)) return f;
    names += names.empty() ? "" : "|";
    names += to_string(f);
  }
  throw InputError(SourceLocation{"<command line>", 0, 0}, "--format",
                   fmt::format("unknown format '{}' (expected {})", text, names));
}

void write_output(const std::string& path, const std::string& content) {
  if (path.empty() || path == "-") {
    std::cout << content;
    std::cout.flush();
    return;
  }
  const std::filesystem::path target(path);
  const std::filesystem::path tmp = target.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(SourceLocation{path, 0, 0}, "-o", "cannot open output file for writing");
    out << content;
    out.flush();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw InputError(SourceLocation{path, 0, 0}, "-o", "failed writing the output file");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw InputError(SourceLocation{path, 0, 0}, "-o", "cannot move the output into place");
  }
}

std::string TextTable::render() const {
  std::vector<size_t> width(header_.size(), 0);
  for (size_t c = 0; c < header_.size(); ++c) width[c] = header_[c].size();
  for (const auto& r : rows_) {
    for (size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < r.size() ? r[c] : std::string();
      if (c == 0) {
        s += fmt::format("{:<{}}", cell, width[c]);
      } else {
        s += fmt::format("  {:>{}}", cell, width[c]);
      }
    }
    return s + "\n";
  };
  std::string out = line(header_);
  size_t total = 0;
  for (size_t w : width) total += w + 2;
  out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

std::string TextTable::csv() const {
  auto esc = [](const std::string& v) {
    if (v.find_first_of(",\"\n") == std::string::npos) return v;
    std::string o = "\"";
    for (char ch : v) o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return o + "\"";
  };
  std::string out;
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t c = 0; c < r.size(); ++c) {
      if (c > 0) out += ',';
      out += esc(r[c]);
    }
    out += "\n";
  };
  line(header_);
  for (const auto& r : rows_) line(r);
  return out;
}

}  // namespace c3sim::cli
