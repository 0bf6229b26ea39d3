#include "sim/base/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace c3sim {

namespace {

TimePs saturating_round(double ps) {
  constexpr double kMax = static_cast<double>(std::numeric_limits<TimePs>::max()) / 2.0;
  if (!(ps < kMax)) return std::numeric_limits<TimePs>::max() / 2;
  if (ps < -kMax) return -std::numeric_limits<TimePs>::max() / 2;
  return static_cast<TimePs>(std::llround(ps));
}

struct UnitEntry {
  std::string_view symbol;
  Dimension dim;
  double scale;  // multiply to get SI base units
};

constexpr double kKi = 1024.0;
constexpr double kMi = kKi * 1024.0;
constexpr double kGi = kMi * 1024.0;
constexpr double kTi = kGi * 1024.0;

// Longest symbols first is not needed: we match the whole trimmed suffix exactly.
constexpr std::array<UnitEntry, 40> kUnits{{
    {"B", Dimension::bytes, 1.0},
    {"KB", Dimension::bytes, 1e3},
    {"MB", Dimension::bytes, 1e6},
    {"GB", Dimension::bytes, 1e9},
    {"TB", Dimension::bytes, 1e12},
    {"KiB", Dimension::bytes, kKi},
    {"MiB", Dimension::bytes, kMi},
    {"GiB", Dimension::bytes, kGi},
    {"TiB", Dimension::bytes, kTi},
    {"B/s", Dimension::bandwidth, 1.0},
    {"MB/s", Dimension::bandwidth, 1e6},
    {"GB/s", Dimension::bandwidth, 1e9},
    {"TB/s", Dimension::bandwidth, 1e12},
    {"Gb/s", Dimension::bandwidth, 1e9 / 8},  // network line rates (a NIC's 400 Gb/s = 50 GB/s)
    {"MiB/s", Dimension::bandwidth, kMi},
    {"GiB/s", Dimension::bandwidth, kGi},
    {"TiB/s", Dimension::bandwidth, kTi},
    {"ps", Dimension::time, 1e-12},
    {"ns", Dimension::time, 1e-9},
    {"us", Dimension::time, 1e-6},
    {"ms", Dimension::time, 1e-3},
    {"s", Dimension::time, 1.0},
    {"Hz", Dimension::frequency, 1.0},
    {"kHz", Dimension::frequency, 1e3},
    {"MHz", Dimension::frequency, 1e6},
    {"GHz", Dimension::frequency, 1e9},
    {"FLOP/s", Dimension::flop_rate, 1.0},
    {"GFLOP/s", Dimension::flop_rate, 1e9},
    {"TFLOP/s", Dimension::flop_rate, 1e12},
    {"PFLOP/s", Dimension::flop_rate, 1e15},
    {"GFLOPS", Dimension::flop_rate, 1e9},
    {"TFLOPS", Dimension::flop_rate, 1e12},
    {"mW", Dimension::power, 1e-3},
    {"W", Dimension::power, 1.0},
    {"kW", Dimension::power, 1e3},
    {"J", Dimension::energy, 1.0},
    {"mJ", Dimension::energy, 1e-3},
    {"uJ", Dimension::energy, 1e-6},
    {"nJ", Dimension::energy, 1e-9},
    {"pJ", Dimension::energy, 1e-12},
}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

TimePs us_to_ps(double us) { return saturating_round(us * static_cast<double>(kPsPerUs)); }
TimePs s_to_ps(double s) { return saturating_round(s * 1e12); }

std::string_view to_string(Dimension d) {
  switch (d) {
    case Dimension::bytes: return "a size (e.g. '4 MiB')";
    case Dimension::bandwidth: return "a bandwidth (e.g. '5.3 TB/s')";
    case Dimension::time: return "a time (e.g. '16.6 us')";
    case Dimension::frequency: return "a frequency (e.g. '2100 MHz')";
    case Dimension::flop_rate: return "a compute rate (e.g. '1307 TFLOP/s')";
    case Dimension::power: return "a power (e.g. '700 W')";
    case Dimension::energy: return "an energy (e.g. '0.75 pJ')";
    case Dimension::dimensionless: return "a plain number";
  }
  return "?";
}

std::optional<double> parse_quantity(std::string_view text, Dimension want, std::string* why) {
  const std::string_view s = trim(text);
  double value = 0.0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin) {
    if (why) *why = fmt::format("'{}' is not a number; expected {}", text, to_string(want));
    return std::nullopt;
  }
  if (!std::isfinite(value)) {
    if (why) *why = fmt::format("'{}' is not finite", text);
    return std::nullopt;
  }
  const std::string_view unit = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  if (unit.empty()) {
    if (want == Dimension::dimensionless) return value;
    if (why) *why = fmt::format("'{}' has no unit; expected {}", text, to_string(want));
    return std::nullopt;
  }
  for (const UnitEntry& u : kUnits) {
    if (u.symbol == unit) {
      if (u.dim != want) {
        if (why) {
          *why = fmt::format("unit '{}' in '{}' is wrong here; expected {}", unit, text, to_string(want));
        }
        return std::nullopt;
      }
      // A finite number can still overflow once scaled ("1e308 TB/s").
      const double scaled = value * u.scale;
      if (!std::isfinite(scaled)) {
        if (why) *why = fmt::format("'{}' is out of range", text);
        return std::nullopt;
      }
      return scaled;
    }
  }
  if (why) *why = fmt::format("unknown unit '{}' in '{}'; expected {}", unit, text, to_string(want));
  return std::nullopt;
}

std::string format_bytes_binary(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  auto fmt_one = [](double v, const char* suffix) {
    // The paper writes 896M, 3.25G, 1.63G, 26.5G: at most 3 significant digits, no trailing zeros.
    std::string num = fmt::format("{:.3g}", v);
    return num + suffix;
  };
  if (b >= kGi) return fmt_one(b / kGi, "G");
  if (b >= kMi) return fmt_one(b / kMi, "M");
  if (b >= kKi) return fmt_one(b / kKi, "K");
  return fmt::format("{}B", bytes);
}

}  // namespace c3sim
