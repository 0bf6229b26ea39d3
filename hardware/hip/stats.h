#pragma once
// Summary of repeated trials: the median is what records report; the spread (max - min) says how
// much to trust it.
#include <vector>

namespace c3sim::bench {

struct Summary {
  double median = 0;
  double min = 0;
  double max = 0;
  [[nodiscard]] double spread() const { return max - min; }
};

// Throws std::invalid_argument on an empty sample (a caller bug).
Summary summarize(std::vector<double> samples);

}  // namespace c3sim::bench
