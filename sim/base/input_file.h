#pragma once
// Reading a user's input file (scenario, sweep, hardware, measurement, log) whole into memory.
// One place so every reader refuses the same things: a path that is not a regular file (a
// directory, /dev/zero, a FIFO: reading those never ends or means nothing) and a file larger than
// the cap (every input c3sim takes is text a person wrote or a tool logged; 64 MiB is thousands
// of times the largest shipped one, and a bigger file is a mistake, not a workload).
#include <cstdint>
#include <string>

namespace c3sim {

inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{64} << 20;

// Throws InputError naming `path` (key `key`, e.g. "--paper", empty for a positional file) when
// the file is missing, unreadable, not a regular file or over the cap.
std::string read_input_file(const std::string& path, const std::string& key = "");

// The checks of read_input_file without reading (for paths opened elsewhere). A reader that
// streams its input rather than holding it (a profiler trace) passes its own cap.
void check_input_file(const std::string& path, const std::string& key = "",
                      std::uintmax_t max_bytes = kMaxInputFileBytes);

// True when `text` holds a byte below 0x20 other than tab, newline and carriage return, or 0x7f
// (DEL). Names and values in user files must be printable: a control byte in a scenario name
// would break the CSV/JSONL rows and the terminal tables that echo it.
bool has_control_character(const std::string& text, bool allow_whitespace = true);

}  // namespace c3sim
