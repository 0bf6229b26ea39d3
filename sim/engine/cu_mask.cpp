#include "sim/engine/cu_mask.h"

#include <fmt/format.h>

#include "sim/base/errors.h"

namespace c3sim::engine {

CuMask CuMask::all(int cus) {
  CuMask m;
  m.bits_.assign(static_cast<size_t>(cus), true);
  return m;
}

CuMask CuMask::none(int cus) {
  CuMask m;
  m.bits_.assign(static_cast<size_t>(cus), false);
  return m;
}

CuMask CuMask::per_xcd(int xcds, int cus_per_xcd, int per_xcd, bool from_low) {
  if (per_xcd < 0 || per_xcd > cus_per_xcd) throw ModelError("CuMask::per_xcd out of range");
  CuMask m = none(xcds * cus_per_xcd);
  for (int x = 0; x < xcds; ++x) {
    for (int i = 0; i < per_xcd; ++i) {
      const int local = from_low ? i : cus_per_xcd - 1 - i;
      m.bits_[static_cast<size_t>(x) * static_cast<size_t>(cus_per_xcd) + static_cast<size_t>(local)] = true;
    }
  }
  return m;
}

int CuMask::count(int total_cus) const {
  if (bits_.empty()) return total_cus;
  int n = 0;
  for (bool b : bits_) n += b ? 1 : 0;
  return n;
}

void CuMask::set(int cu, bool on) { bits_.at(static_cast<size_t>(cu)) = on; }

CuMask CuMask::complement() const {
  CuMask m = *this;
  for (size_t i = 0; i < m.bits_.size(); ++i) m.bits_[i] = !bits_[i];
  return m;
}

std::string CuMask::to_string() const {
  if (bits_.empty()) return "all";
  std::string out;
  size_t i = 0;
  while (i < bits_.size()) {
    if (!bits_[i]) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j + 1 < bits_.size() && bits_[j + 1]) ++j;
    if (!out.empty()) out += ",";
    out += (i == j) ? fmt::format("{}", i) : fmt::format("{}-{}", i, j);
    i = j + 1;
  }
  return out.empty() ? "none" : out;
}

}  // namespace c3sim::engine
