// libFuzzer target: measurement JSON Lines. Any input must either read or throw InputError;
// what reads must write and read back to the same text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "workloads/measurement.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<c3sim::wl::Record> records;
  try {
    records = c3sim::wl::read_measurements_string(text, "<fuzz>");
  } catch (const c3sim::InputError&) {
    return 0;
  }
  const std::string out = c3sim::wl::to_jsonl(records);
  if (c3sim::wl::to_jsonl(c3sim::wl::read_measurements_string(out, "<fuzz round trip>")) != out)
    __builtin_trap();
  return 0;
}
