#include "sim/engine/chrome_trace.h"

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace c3sim::engine {

namespace {

using nlohmann::json;

// Trace-event timestamps are microseconds; picoseconds divide exactly enough in a double for
// any run shorter than ~100 days.
double to_us(TimePs t) { return static_cast<double>(t) * 1e-6; }

// Streams (kernels) on top where a reader starts, then what the host does, then the XCDs
// (who holds the CUs), then the copy engines.
std::pair<int, int> track_order(const TraceTrack& track) {
  switch (track.kind) {
    case TrackKind::stream: return {0, 0};
    case TrackKind::host: return {1, 0};
    case TrackKind::xcd: return {2, track.index};
    case TrackKind::dma_engine: return {3, track.index};
  }
  return {0, 0};
}

// The trace-event category: what kind of work a span is, so Perfetto can colour and filter by it.
std::string_view category_name(const SpanCategory& c) {
  if (c.waiting) return "queue";
  switch (c.kind) {
    case KernelKind::gemm: return "gemm";
    case KernelKind::cu_collective:
    case KernelKind::collective_sync: return "collective";
    case KernelKind::dma_transfer: return "dma";
    case KernelKind::memory: return "memory";
    case KernelKind::other: return "span";
  }
  return "span";
}

struct Lane {
  std::vector<const TraceSpan*> spans;
  std::vector<TimePs> open_ends;  // stack of ends of spans still open at the last placed begin
};

// Greedy lane assignment over spans sorted by (begin, longer first): a span joins the first lane
// where, after closing the spans that ended, it either starts a fresh stack or nests inside the
// innermost open span.
std::vector<Lane> assign_lanes(std::vector<const TraceSpan*> spans) {
  std::stable_sort(spans.begin(), spans.end(), [](const TraceSpan* a, const TraceSpan* b) {
    if (a->begin != b->begin) return a->begin < b->begin;
    return a->end > b->end;
  });
  std::vector<Lane> lanes;
  for (const TraceSpan* s : spans) {
    Lane* home = nullptr;
    for (Lane& lane : lanes) {
      while (!lane.open_ends.empty() && lane.open_ends.back() <= s->begin) lane.open_ends.pop_back();
      if (lane.open_ends.empty() || lane.open_ends.back() >= s->end) {
        home = &lane;
        break;
      }
    }
    if (home == nullptr) home = &lanes.emplace_back();
    home->spans.push_back(s);
    home->open_ends.push_back(s->end);
  }
  return lanes;
}

json metadata(const char* what, int pid, int tid, json args) {
  return json{{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

}  // namespace

std::string counter_name(const TracedResource& resource) {
  std::string_view title;
  switch (resource.kind) {
    case ResourceKind::hbm: title = "HBM"; break;
    case ResourceKind::llc: title = "LLC"; break;
    case ResourceKind::l2: title = "L2"; break;
    case ResourceKind::xcd_fabric: title = "XCD fabric"; break;
    case ResourceKind::link: title = "link"; break;
    case ResourceKind::dma_engine: title = "DMA engine"; break;
    case ResourceKind::cu: title = "CU"; break;
    case ResourceKind::host: title = "host"; break;
    case ResourceKind::other: return resource.name + " util %";
  }
  return std::string(title) + " util %" + (resource.where.empty() ? "" : " " + resource.where);
}

std::string to_chrome_trace(const std::vector<LabeledTrace>& runs) {
  json events = json::array();
  int next_pid = 1;
  for (const auto& run : runs) {
    if (run.trace == nullptr) continue;
    const TraceRecorder& tr = *run.trace;
    // Processes in first-appearance order; counters belong to the first one (the simulated
    // resources are those of the GPU whose kernels are traced).
    std::vector<std::string> processes;
    std::map<std::string, std::map<std::string, std::vector<const TraceSpan*>>> by_track;
    for (const auto& s : tr.spans()) {
      if (!by_track.contains(s.process)) processes.push_back(s.process);
      by_track[s.process][s.track.name].push_back(&s);
    }
    if (processes.empty() && !tr.counters().empty()) processes.emplace_back("gpu0");
    for (size_t pi = 0; pi < processes.size(); ++pi) {
      const int pid = next_pid++;
      const std::string pname = run.label.empty() ? processes[pi] : run.label + " / " + processes[pi];
      events.push_back(metadata("process_name", pid, 0, {{"name", pname}}));
      events.push_back(metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));

      std::vector<std::pair<std::string, std::vector<const TraceSpan*>>> tracks(
          by_track[processes[pi]].begin(), by_track[processes[pi]].end());
      std::stable_sort(tracks.begin(), tracks.end(), [](const auto& a, const auto& b) {
        return track_order(a.second.front()->track) < track_order(b.second.front()->track);
      });
      int tid = 1;
      for (const auto& [track, spans] : tracks) {
        const std::vector<Lane> lanes = assign_lanes(spans);
        for (size_t li = 0; li < lanes.size(); ++li) {
          const std::string tname = li == 0 ? track : track + " #" + std::to_string(li + 1);
          events.push_back(metadata("thread_name", pid, tid, {{"name", tname}}));
          events.push_back(metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
          for (const TraceSpan* s : lanes[li].spans) {
            events.push_back(json{{"ph", "X"},
                                  {"name", s->name},
                                  {"cat", std::string(category_name(s->category))},
                                  {"pid", pid},
                                  {"tid", tid},
                                  {"ts", to_us(s->begin)},
                                  {"dur", to_us(s->end - s->begin)}});
          }
          ++tid;
        }
      }
      if (pi != 0) continue;
      // Several samples at one instant (events processed at the same time): the last one holds.
      const auto& resources = tr.resources();
      std::map<std::pair<std::int32_t, TimePs>, double> last;
      for (const auto& c : tr.counters()) last[{c.resource, c.at}] = c.utilization;
      for (const auto& [key, u] : last) {
        const auto r = static_cast<size_t>(key.first);
        const std::string name =
            r < resources.size() ? counter_name(resources[r]) : "resource " + std::to_string(r) + " util %";
        events.push_back(json{{"ph", "C"},
                              {"name", name},
                              {"pid", pid},
                              {"tid", 0},
                              {"ts", to_us(key.second)},
                              {"args", {{"value", 100.0 * u}}}});
      }
    }
  }
  json doc{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  return doc.dump() + "\n";
}

}  // namespace c3sim::engine
