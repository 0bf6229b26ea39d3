#pragma once
// Optional recording of what happened: spans (kernels per stream, cohorts per XCD, DMA transfers
// per engine) and resource-utilization counters sampled whenever rates may have changed.
// Exporters (Chrome/Perfetto trace JSON) live beside it; recording costs nothing when disabled
// because the simulation only calls it through a null-checked pointer.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/units.h"

namespace c3sim::engine {

class Simulation;

struct TraceSpan {
  std::string process;  // "gpu0"
  std::string track;    // stream name, "xcd3", "sdma5"
  std::string name;
  TimePs begin = 0;
  TimePs end = 0;
  std::string category;  // "gemm", "collective", "dma"
};

struct CounterSample {
  TimePs at = 0;
  std::int32_t resource = 0;
  double utilization = 0;  // load / capacity, 0..1
};

class TraceRecorder {
public:
  void span(std::string process, std::string track, std::string name, TimePs begin, TimePs end,
            std::string category);
  // Samples every resource's utilization; only records values that changed since the last sample.
  void sample_counters(Simulation& sim);

  [[nodiscard]] const std::vector<TraceSpan>& spans() const { return spans_; }
  [[nodiscard]] const std::vector<CounterSample>& counters() const { return counters_; }
  [[nodiscard]] const std::vector<std::string>& resource_names() const { return resource_names_; }

private:
  std::vector<TraceSpan> spans_;
  std::vector<CounterSample> counters_;
  std::vector<double> last_;
  std::vector<std::string> resource_names_;
};

}  // namespace c3sim::engine
