#pragma once
// A set of compute units a stream may use, one bit per CU, CUs numbered xcd-major
// (cu = xcd * cus_per_xcd + local). Mirrors hipExtStreamCreateWithCUMask / green-context splits.
#include <string>
#include <vector>

namespace c3sim::engine {

class CuMask {
public:
  CuMask() = default;
  static CuMask all(int cus);
  static CuMask none(int cus);
  // `per_xcd` CUs on every XCD, taken from the low (from_low) or high end of each XCD. CU masks on
  // MI300X in single-partition mode come in multiples of one CU per XCD (paper, Fig. 5).
  static CuMask per_xcd(int xcds, int cus_per_xcd, int per_xcd, bool from_low);

  [[nodiscard]] bool empty_mask() const { return bits_.empty(); }  // "no mask": every CU allowed
  [[nodiscard]] bool allows(int cu) const { return bits_.empty() || bits_[static_cast<size_t>(cu)]; }
  [[nodiscard]] int count(int total_cus) const;
  [[nodiscard]] int size() const { return static_cast<int>(bits_.size()); }
  void set(int cu, bool on);
  [[nodiscard]] CuMask complement() const;
  [[nodiscard]] std::string to_string() const;  // compact "0-37,76-113" style ranges

private:
  std::vector<bool> bits_;
};

}  // namespace c3sim::engine
