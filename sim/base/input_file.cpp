#include "sim/base/input_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/base/errors.h"

namespace c3sim {

namespace fs = std::filesystem;

void check_input_file(const std::string& path, const std::string& key, std::uintmax_t max_bytes) {
  const SourceLocation where{path, 0, 0};
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows symlinks: a link to a file is fine
  if (ec || !fs::exists(st)) throw InputError(where, key, "cannot open file (missing or unreadable)");
  if (!fs::is_regular_file(st)) {
    throw InputError(where, key,
                     fs::is_directory(st) ? "is a directory, not a file"
                                          : "is not a regular file (a device, FIFO or socket cannot be read "
                                            "as input)");
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw InputError(where, key, "cannot read the file's size");
  if (size > max_bytes) {
    throw InputError(
        where, key,
        fmt::format("file is {} bytes, over the {} MiB limit for an input file", size, max_bytes >> 20));
  }
}

std::string read_input_file(const std::string& path, const std::string& key) {
  check_input_file(path, key);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, key, "cannot open file (missing or unreadable)");
  std::ostringstream text;
  text << in.rdbuf();
  std::string out = text.str();
  // The file may have grown between the size check and the read.
  if (out.size() > kMaxInputFileBytes) {
    throw InputError(
        SourceLocation{path, 0, 0}, key,
        fmt::format("file is over the {} MiB limit for an input file", kMaxInputFileBytes >> 20));
  }
  return out;
}

bool has_control_character(const std::string& text, bool allow_whitespace) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (allow_whitespace && (c == '\t' || c == '\n' || c == '\r')) continue;
    if (u < 0x20 || u == 0x7f) return true;
  }
  return false;
}

}  // namespace c3sim
