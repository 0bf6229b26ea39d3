#include "sim/cli/progress.h"

#include <unistd.h>

#include <cmath>
#include <iostream>

#include <fmt/format.h>

namespace c3sim::cli {

namespace {

std::string eta_text(double seconds) {
  if (seconds < 0 || seconds > 360000) return "?";
  const long long s = std::llround(seconds);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace

ProgressBar::ProgressBar(std::string label, std::string unit, bool enabled)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      enabled_(enabled),
      tty_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

double ProgressBar::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressBar::update(std::size_t done, std::size_t total) {
  if (!enabled_ || total == 0) return;
  const auto now = std::chrono::steady_clock::now();
  const double since_draw = std::chrono::duration<double>(now - last_draw_).count();
  if (since_draw < (tty_ ? 0.1 : 5.0) && done != total) return;
  last_draw_ = now;
  const double elapsed = seconds();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  const double eta = rate > 0 ? static_cast<double>(total - done) / rate : -1;
  const double frac = static_cast<double>(done) / static_cast<double>(total);
  if (tty_) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(frac * kWidth);
    std::cerr << fmt::format("\r{} [{}{}] {}/{} {} {:3.0f}% {:.1f} {}/s ETA {}  ", label_,
                             std::string(filled, '#'), std::string(kWidth - filled, ' '), done, total, unit_,
                             100 * frac, rate, unit_, eta_text(eta))
              << std::flush;
    drew_ = true;
  } else {
    std::cerr << fmt::format("{}: {}/{} {} ({:.0f}%), {:.1f} {}/s, ETA {}\n", label_, done, total, unit_,
                             100 * frac, rate, unit_, eta_text(eta));
  }
}

void ProgressBar::finish(std::size_t done, const std::string& detail) {
  if (!enabled_) return;
  const double elapsed = seconds();
  if (drew_) std::cerr << "\n";
  std::cerr << fmt::format("{}: {} {} in {:.2f} s ({:.1f} {}/s{}{})\n", label_, done, unit_, elapsed,
                           elapsed > 0 ? static_cast<double>(done) / elapsed : 0, unit_,
                           detail.empty() ? "" : ", ", detail);
}

}  // namespace c3sim::cli
