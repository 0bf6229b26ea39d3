#pragma once
// Errors from the GPU runtime and libraries. Library code throws; only main() prints and exits
// (exit 3 for a device failure, distinct from 2 = bad input).
#include <stdexcept>
#include <string>

namespace c3sim::bench {

class DeviceError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// "<expr> failed at file:line: <library> <code name>: <description>"
[[noreturn]] void throw_device_error(const char* library, const std::string& code, const char* expr,
                                     const char* file, int line);

}  // namespace c3sim::bench
