#include "sim/cli/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "sim/base/errors.h"
#include "sim/cli/temp_file_cleanup.h"

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

namespace {

namespace fs = std::filesystem;

InputError output_error(const OutputTarget& t, const std::string& problem) {
  return InputError(SourceLocation{t.path, 0, 0}, t.flag, problem);
}

// The path an output really lands on: a symlink to a regular file is followed (the link stays).
std::string resolved(const OutputTarget& t) {
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(t.path, ec);
  if (!ec && fs::is_symlink(link)) {
    const fs::path target = fs::canonical(t.path, ec);
    if (!ec) return target.string();
  }
  return t.path;
}

void check_one(const OutputTarget& t) {
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(t.path, ec);
  if (!ec && fs::exists(link)) {
    const fs::file_status st = fs::status(t.path, ec);
    if (ec || !fs::exists(st)) throw output_error(t, "is a symlink to nothing; give a file path");
    if (fs::is_directory(st)) throw output_error(t, "is a directory; give a file path");
    if (!fs::is_regular_file(st)) {
      throw output_error(t,
                         "is not a regular file (a device, FIFO or socket); c3sim writes only files and "
                         "stdout (-o -)");
    }
  }
  fs::path dir = fs::path(resolved(t)).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec))
    throw output_error(t, fmt::format("folder '{}' does not exist", dir.string()));
}

// Whether two paths name one file: by device and inode when both exist (a symlink or a hard link
// to the same file is the same file), else by their absolute paths with symlinks resolved (two
// spellings of one new file).
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {};
  struct stat sb {};
  const bool a_exists = ::stat(a.c_str(), &sa) == 0;
  const bool b_exists = ::stat(b.c_str(), &sb) == 0;
  if (a_exists && b_exists) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (a_exists != b_exists) return false;
  std::error_code ec;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return ca == cb;
}

}  // namespace

void check_outputs(const std::vector<OutputTarget>& outputs, const std::vector<std::string>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const OutputTarget& t = outputs[i];
    for (std::size_t j = 0; j < i; ++j) {
      const OutputTarget& u = outputs[j];
      if (t.is_stdout() ? u.is_stdout() : !u.is_stdout() && same_file(t.path, u.path)) {
        throw output_error(t, fmt::format("is also the output of {}: give each output its own path", u.flag));
      }
    }
    if (t.is_stdout()) continue;
    check_one(t);
    for (const auto& in : inputs) {
      std::error_code ec;
      if (!in.empty() && fs::exists(in, ec) && same_file(in, t.path)) {
        throw output_error(
            t, fmt::format("is an input of this command ('{}'); writing it would destroy it", in));
      }
    }
  }
}

StagedOutput::StagedOutput(OutputTarget target, const std::vector<std::string>& inputs)
    : target_(std::move(target)) {
  check_outputs({target_}, inputs);
  if (target_.is_stdout()) return;
  final_path_ = resolved(target_);
  // Created and registered for removal with the cleanup signals held off: a SIGINT between the two
  // would leave the file behind.
  const CleanupSignalsBlocked held;
  // O_EXCL: never reuse (or follow) a name that already exists; 0666 lets the umask decide, as
  // for any file the user's shell would create.
  for (int attempt = 0; attempt < 100 && file_ == nullptr; ++attempt) {
    temp_path_ = fmt::format("{}.c3sim-tmp.{}.{}", final_path_, ::getpid(), attempt);
    const int fd = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      throw output_error(target_,
                         fmt::format("cannot create a file in its folder ({})", std::strerror(errno)));
    }
    cleanup_slot_ = register_temp_file(temp_path_);
    file_ = ::fdopen(fd, "wb");
    if (file_ == nullptr) {
      ::close(fd);
      ::unlink(temp_path_.c_str());
      unregister_temp_file(cleanup_slot_);
      temp_path_.clear();
      throw output_error(target_, "cannot open the output for writing");
    }
  }
  if (file_ == nullptr) throw output_error(target_, "cannot create a temporary file beside the output");
}

StagedOutput::~StagedOutput() {
  if (file_ != nullptr) std::fclose(file_);
  if (!done_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
  unregister_temp_file(cleanup_slot_);  // after the unlink: a signal in between finds nothing to remove
}

void StagedOutput::write(const std::string& text) {
  if (target_.is_stdout()) {
    std::cout << text;
    return;
  }
  if (file_ == nullptr) throw ModelError("StagedOutput::write after close");
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    throw output_error(target_, fmt::format("failed writing the output ({})", std::strerror(errno)));
  }
}

void StagedOutput::close() {
  if (target_.is_stdout()) {
    std::cout.flush();
    return;
  }
  if (file_ == nullptr) return;
  const bool ok = std::fflush(file_) == 0 && std::ferror(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok || !closed) throw output_error(target_, "failed writing the output (disk full?)");
}

void StagedOutput::rename() {
  if (target_.is_stdout()) {
    done_ = true;
    return;
  }
  if (file_ != nullptr) throw ModelError("StagedOutput::rename before close");
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    throw output_error(target_, fmt::format("cannot move the output into place ({})", std::strerror(errno)));
  }
  done_ = true;
  unregister_temp_file(cleanup_slot_);
  cleanup_slot_ = -1;
}

void write_outputs(const std::vector<std::pair<OutputTarget, std::string>>& outputs,
                   const std::vector<std::string>& inputs) {
  std::vector<OutputTarget> targets;
  targets.reserve(outputs.size());
  for (const auto& [target, content] : outputs) targets.push_back(target);
  check_outputs(targets, inputs);
  std::vector<std::unique_ptr<StagedOutput>> staged;
  for (const auto& [target, content] : outputs) {
    staged.push_back(std::make_unique<StagedOutput>(target, inputs));
    staged.back()->write(content);
  }
  for (auto& s : staged) s->close();
  for (auto& s : staged) s->rename();
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
