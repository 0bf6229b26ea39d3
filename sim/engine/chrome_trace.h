#pragma once
// Exports TraceRecorder contents as Chrome trace-event JSON, the format Perfetto's UI and
// chrome://tracing open (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
//
// Layout: one process per (run label, recorded process), e.g. "cb1_896M_ag / base / gpu0"; in
// it, one thread track per recorded track (streams first, then the host, XCDs, DMA engines) and
// one counter track per resource ("HBM util %", "L2 util % xcd3", "link util % out2").
// Spans that overlap without nesting (cohorts of one XCD) would be rejected by Perfetto's JSON
// importer on one thread, so a track is split into lanes ("xcd0", "xcd0 #2", ...), each holding
// only disjoint or properly nested spans.
#include <string>
#include <vector>

#include "sim/engine/trace_recorder.h"

namespace c3sim::engine {

struct LabeledTrace {
  std::string label;  // prefixes every process name; empty: the recorded names alone
  const TraceRecorder* trace = nullptr;
};

// The whole trace document (deterministic: same recorders, same bytes).
std::string to_chrome_trace(const std::vector<LabeledTrace>& runs);

// Human name of a resource's counter track, from its kind and instance: hbm -> "HBM util %",
// l2 at "xcd3" -> "L2 util % xcd3". A resource of kind `other` shows its name with " util %".
std::string counter_name(const TracedResource& resource);

}  // namespace c3sim::engine
