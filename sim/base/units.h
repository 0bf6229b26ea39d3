#pragma once
// Physical quantities with their unit in the type or the name. Time inside the engine is integer
// picoseconds so event ordering is exact and runs are bit-for-bit reproducible.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace c3sim {

using TimePs = std::int64_t;  // simulated time, picoseconds

inline constexpr TimePs kPsPerNs = 1'000;
inline constexpr TimePs kPsPerUs = 1'000'000;
inline constexpr TimePs kPsPerMs = 1'000'000'000;

constexpr double ps_to_us(TimePs t) { return static_cast<double>(t) / static_cast<double>(kPsPerUs); }
constexpr double ps_to_s(TimePs t) { return static_cast<double>(t) * 1e-12; }
// Rounds to the nearest picosecond; times beyond ~106 days saturate (never reached by a sim).
TimePs us_to_ps(double us);
TimePs s_to_ps(double s);

// What a unit string measures. Parsing checks the dimension the key expects.
enum class Dimension { bytes, bandwidth, time, frequency, flop_rate, power, energy, dimensionless };

std::string_view to_string(Dimension d);

// Parses "4 MiB", "5.3 TB/s", "16.6 us", "2100 MHz", "1307 TFLOP/s", "700 W", "0.75 pJ" into SI base
// units (bytes, bytes/s, seconds, Hz, FLOP/s, W, J). Decimal prefixes are powers of 1000, binary (Ki, Mi, Gi,
// Ti) powers of 1024. Returns nullopt with `why` set when the text is not a number with a unit of
// the wanted dimension.
std::optional<double> parse_quantity(std::string_view text, Dimension want, std::string* why);

// Human-readable byte sizes in binary units, the way the paper names collective sizes ("896M").
std::string format_bytes_binary(std::int64_t bytes);

}  // namespace c3sim
