#pragma once
// Cross-stream dependencies of an imported PyTorch profiler trace: which kernel waited for which
// kernel of another stream through an event (cudaEventRecord / cudaStreamWaitEvent, hipEvent*).
//
// From sync records (a trace profiled with enable_cuda_sync_events): each "Stream Wait Event"
// record (cat cuda_sync) names the waiting `stream` and the wait call (`correlation`), and may name
// the recording stream (`wait_on_stream`) and the record call's correlation
// (`wait_on_cuda_event_record_corr_id`); CUPTI writes -1 for those two where it cannot link them
// (PyTorch 2.11 on H200 does, for every wait). The record call: the named one (the edge counts as
// exact), else the latest record call on the wait call's host thread before it (inferred).
// Producer: the last kernel launched on wait_on_stream before the record call, or when that is
// unknown the last kernel the record call's thread launched before it. Consumer: the first kernel
// launched on `stream` after the wait call. The edge is kept as below (different streams, a
// timeline that obeys it).
//
// Inferred (a trace without sync records: runtime calls carry no stream). On each host thread,
// in call order:
// - a record call (cudaEventRecord*, hipEventRecord*) captures the thread's last launch before it
//   (the event is taken to be recorded on the stream that kernel ran on);
// - a wait call (cudaStreamWaitEvent, hipStreamWaitEvent) pairs with the thread's latest record
//   call before it (several waits may pair with one record; of several records the latest wins);
// - the wait's consumer is the thread's next launch after the wait call.
// The edge producer -> consumer is kept when the two are on different streams and the traced
// timeline obeys it (the consumer started no earlier than the producer ended: an event the GPU
// honoured cannot be violated in the trace); a wait whose consumer is on the producer's stream
// adds nothing to stream order (counted as same-stream). A wait with no record before it on its
// thread, no launch after it, a producer or consumer that is not an imported kernel, or an edge
// the timeline contradicts (the event was recorded on another stream than the thread's last
// launch) is counted as unresolved.
// Waits outside the profiler step (when there is one) are not counted.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "workloads/torch_trace_events.h"

namespace c3sim::wl {

// One imported kernel: its GPU event, its launch call (nullptr when the trace has none) and stream.
struct TraceLaunch {
  const TraceEvent* gpu = nullptr;
  const TraceEvent* launch = nullptr;
  std::int64_t stream = 0;
  [[nodiscard]] double launch_ts() const { return launch != nullptr ? launch->ts : gpu->ts; }
};

struct TraceDependencyCounts {
  int exact = 0;              // edges from Stream Wait Event records
  int inferred = 0;           // edges from record -> wait -> launch on one host thread
  int same_stream = 0;        // waits whose producer and consumer share a stream (stream order already)
  int unresolved = 0;         // waits that gave no edge for any other reason
  bool sync_records = false;  // the trace had Stream Wait Event records (exact mode)
};

struct TraceDependencies {
  std::vector<std::pair<std::size_t, std::size_t>> edges;  // (producer, consumer) indices, unique
  TraceDependencyCounts counts;
};

// `kernels` in host launch order (the program's order); `step`: the profiler step's host span.
TraceDependencies trace_dependencies(const TraceEvents& trace, const std::vector<TraceLaunch>& kernels,
                                     std::int64_t device, std::optional<std::pair<double, double>> step);

}  // namespace c3sim::wl
