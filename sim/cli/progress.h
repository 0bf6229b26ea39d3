#pragma once
// Progress of a long command on stderr: a redrawn bar with rate and ETA on a terminal, a plain
// line every few seconds otherwise (CI logs, pipes), so logs stay short and readable. Display
// only: nothing it does reaches the command's output.
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace c3sim::cli {

class ProgressBar {
public:
  // `unit` names what is counted ("points"); `enabled` false prints nothing at all.
  ProgressBar(std::string label, std::string unit, bool enabled);

  // Safe to call often; redraws at most 10 times a second (terminal) or every 5 s (plain).
  void update(std::size_t done, std::size_t total);
  // Prints the summary line: count, seconds, rate.
  void finish(std::size_t done, const std::string& detail);

  [[nodiscard]] double seconds() const;

private:
  std::string label_;
  std::string unit_;
  bool enabled_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  bool drew_ = false;
};

}  // namespace c3sim::cli
