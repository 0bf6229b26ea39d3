// libFuzzer target: the nccl-tests / rccl-tests importer. Any input must either import or throw
// InputError; what imports must be valid measurement input (the records read back, as c3sim
// calibrate would read `c3sim import`'s output), so import never writes a file the next step rejects.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/base/errors.h"
#include "workloads/measurement.h"
#include "workloads/nccl_tests_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<c3sim::wl::Record> records;
  try {
    records = c3sim::wl::import_nccl_tests(text, "<fuzz>");
  } catch (const c3sim::InputError&) {
    return 0;
  }
  const auto again = c3sim::wl::read_measurements_string(c3sim::wl::to_jsonl(records), "<fuzz round trip>");
  if (again.size() != records.size()) __builtin_trap();
  return 0;
}
