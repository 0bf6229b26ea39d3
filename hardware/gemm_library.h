#pragma once
// Library behaviour as data: how fast the vendor GEMM library runs each measured shape alone.
// The tile model's matrix_efficiency is one number for every shape, but a library picks a kernel
// per shape (cuBLAS on H200: 320x128, 192x192 or 256x128 tiles; hardware/measurements/
// gemm_kernels/), and the kernels differ by a few percent (up to 6% on the beyond-Table-I set).
// That is a property of the library, not of the hardware, so it is data: `c3sim calibrate` derives
// each shape's compute efficiency from its isolated records, after the hardware model is fitted,
// so the entry absorbs only what the mechanisms leave. Everything concurrent is still predicted.
//
// In a hardware file (top level, beside spec: and model:):
//   gemm_library:
//     - {shape: 8192x8192x8192, dtype: bf16, efficiency: 0.7912, time_alone: 1461.6 us, records: 8}
// A shape without an entry uses model.gemm.matrix_efficiency (or dtype_efficiency.<dtype>).
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/base/dtype.h"
#include "sim/base/strict_yaml.h"

namespace c3sim::hw {

struct GemmLibraryEntry {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  Dtype dtype = Dtype::bf16;
  double efficiency = 0;     // efficiency: achieved / peak FLOP rate of one CU on this shape
  double time_alone = 0;     // time_alone: the measured time it was derived from (s; 0 = not given)
  std::int64_t records = 0;  // records: isolated records behind time_alone (0 = not given)
  bool operator==(const GemmLibraryEntry&) const = default;
};

class GemmLibrary {
public:
  // Adds or replaces the entry of the same shape and dtype (a file overrides what it extends).
  void set(const GemmLibraryEntry& e);
  [[nodiscard]] const GemmLibraryEntry* find(std::int64_t m, std::int64_t n, std::int64_t k,
                                             Dtype dtype) const;
  [[nodiscard]] bool empty() const { return entries_.empty(); }
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  // In shape order (m, n, k, dtype): deterministic output.
  [[nodiscard]] std::vector<GemmLibraryEntry> entries() const;
  bool operator==(const GemmLibrary&) const = default;

private:
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, int>;
  std::map<Key, GemmLibraryEntry> entries_;
};

// Parses the `gemm_library:` list of one hardware file into `into` (entries override those of the
// same shape already there). Throws InputError naming the file, line and key: unknown or missing
// keys, a malformed shape, an efficiency outside (0, 1], a shape listed twice in one file.
void parse_gemm_library(StrictMap& root, GemmLibrary& into);

// The `gemm_library:` section as a hardware file writes it ("" when empty), one flow map per line.
std::string gemm_library_yaml(const GemmLibrary& lib);

}  // namespace c3sim::hw
