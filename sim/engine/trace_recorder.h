#pragma once
// Optional recording of what happened: spans (kernels per stream, cohorts per XCD, DMA transfers
// per engine) and resource-utilization counters sampled whenever rates may have changed.
// Exporters (Chrome/Perfetto trace JSON) live beside it; recording costs nothing when disabled
// because the simulation only calls it through a null-checked pointer.
//
// Costs: span() amortized O(1) (a push; ~120 B + its strings per span); sample_counters() O(R)
// per step for R resources, a sample (16 B) kept only for a resource whose utilization changed.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/units.h"
#include "sim/engine/identity.h"

namespace c3sim::engine {

class Simulation;

// Where a span is drawn: a stream (kernels in launch order), the host thread, an XCD (cohorts
// holding its CUs) or a copy engine. Exporters order tracks by kind and index, never by name.
enum class TrackKind : std::uint8_t { stream, host, xcd, dma_engine };

struct TraceTrack {
  TrackKind kind = TrackKind::stream;
  int index = 0;     // XCD or engine number; 0 for streams and the host
  std::string name;  // shown as is: the stream's name, "host", "xcd3", "sdma5"

  static TraceTrack stream(std::string name) { return {TrackKind::stream, 0, std::move(name)}; }
  static TraceTrack host() { return {TrackKind::host, 0, "host"}; }
  static TraceTrack xcd(int i) { return {TrackKind::xcd, i, "xcd" + std::to_string(i)}; }
  static TraceTrack dma_engine(int i) { return {TrackKind::dma_engine, i, "sdma" + std::to_string(i)}; }
};

// What a span shows: work of a kernel kind, or time a kernel spent waiting in its queue.
struct SpanCategory {
  KernelKind kind = KernelKind::other;
  bool waiting = false;
};

struct TraceSpan {
  std::string process;  // "gpu0"
  TraceTrack track;
  std::string name;
  TimePs begin = 0;
  TimePs end = 0;
  SpanCategory category;
};

// A resource as counters show it: its kind and instance ("xcd3"), and its name for kinds the
// exporter has no title for.
struct TracedResource {
  std::string name;
  ResourceKind kind = ResourceKind::other;
  std::string where;
};

struct CounterSample {
  TimePs at = 0;
  std::int32_t resource = 0;
  double utilization = 0;  // load / capacity, 0..1
};

class TraceRecorder {
public:
  void span(std::string process, TraceTrack track, std::string name, TimePs begin, TimePs end,
            SpanCategory category);
  // Samples every resource's utilization; only records values that changed since the last sample.
  void sample_counters(Simulation& sim);

  [[nodiscard]] const std::vector<TraceSpan>& spans() const { return spans_; }
  [[nodiscard]] const std::vector<CounterSample>& counters() const { return counters_; }
  [[nodiscard]] const std::vector<TracedResource>& resources() const { return resources_; }

private:
  std::vector<TraceSpan> spans_;
  std::vector<CounterSample> counters_;
  std::vector<double> last_;
  std::vector<TracedResource> resources_;
};

}  // namespace c3sim::engine
