#pragma once
// Helpers for the hardware tests: scratch files, preset text edits, and error-message checks
// (every InputError must name the file, the line and the dotted key).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "hardware/hardware_loader.h"
#include "sim/base/errors.h"

namespace c3sim::hw::testing {

// A fresh directory per test, removed afterwards.
class ScratchDir {
public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           (std::string("c3sim_hw_") + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() { std::filesystem::remove_all(dir_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // Writes `text` to dir/name and returns the path.
  std::string write(const std::string& name, const std::string& text) const {
    const auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }
  const std::filesystem::path& path() const { return dir_; }

private:
  std::filesystem::path dir_;
};

inline std::string preset_text(const std::string& name) {
  const EmbeddedPreset* p = find_preset(name);
  if (p == nullptr) throw std::runtime_error("no preset " + name);
  return std::string(p->text);
}

// 1-based line of the first line containing `needle` (0 when absent).
inline int line_of(const std::string& text, const std::string& needle) {
  const auto pos = text.find(needle);
  if (pos == std::string::npos) return 0;
  int line = 1;
  for (std::size_t i = 0; i < pos; ++i) line += text[i] == '\n' ? 1 : 0;
  return line;
}

// `text` with the first line containing `needle` replaced by `replacement` (a whole line; "" drops it).
inline std::string replace_line(const std::string& text, const std::string& needle,
                                const std::string& replacement) {
  const auto pos = text.find(needle);
  if (pos == std::string::npos) throw std::runtime_error("no line with " + needle);
  const auto begin = text.rfind('\n', pos) == std::string::npos ? 0 : text.rfind('\n', pos) + 1;
  const auto end = text.find('\n', pos);
  const std::string tail = end == std::string::npos ? "" : text.substr(end + 1);
  return text.substr(0, begin) + (replacement.empty() ? "" : replacement + "\n") + tail;
}

// Runs `fn`, expects an InputError whose message names `file` (a substring), `line` (when > 0)
// and `key` (when not empty). Returns the message for further checks.
inline std::string expect_input_error(const std::function<void()>& fn, const std::string& file, int line,
                                      const std::string& key) {
  try {
    fn();
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(file), std::string::npos) << "file '" << file << "' not in: " << msg;
    if (line > 0) {
      EXPECT_NE(msg.find(":" + std::to_string(line) + ":"), std::string::npos)
          << "line " << line << " not in: " << msg;
      EXPECT_EQ(e.where().line, line) << msg;
    }
    if (!key.empty()) {
      EXPECT_NE(msg.find("'" + key + "'"), std::string::npos) << "key '" << key << "' not in: " << msg;
      EXPECT_EQ(e.key(), key) << msg;
    }
    return msg;
  }
  ADD_FAILURE() << "expected an InputError naming " << file << ":" << line << " " << key;
  return {};
}

}  // namespace c3sim::hw::testing
