// Event-record -> stream-wait dependencies of a profiler trace; the rules are in the header.
#include "workloads/torch_trace_dependencies.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace c3sim::wl {

namespace {

bool record_call(const std::string& name) { return name.find("EventRecord") != std::string::npos; }
bool wait_call(const std::string& name) { return name.find("StreamWaitEvent") != std::string::npos; }

// Kineto writes times in microseconds with nanosecond digits: a consumer that started before its
// producer ended by more than this did not wait for it.
constexpr double kTimelineSlackUs = 1e-3;

class Builder {
public:
  Builder(const TraceEvents& trace, const std::vector<TraceLaunch>& kernels,
          std::optional<std::pair<double, double>> step)
      : t_(trace), k_(kernels), step_(step) {
    for (std::size_t i = 0; i < k_.size(); ++i) {
      on_stream_[k_[i].stream].push_back(i);
      if (k_[i].launch != nullptr && k_[i].launch->correlation)
        kernel_by_launch_corr_.emplace(*k_[i].launch->correlation, i);
    }
  }

  [[nodiscard]] bool in_step(double ts) const {
    return !step_ || (ts >= step_->first && ts <= step_->second);
  }

  // Adds producer -> consumer once; true when it was new.
  bool add(std::size_t producer, std::size_t consumer) {
    if (!seen_.insert({producer, consumer}).second) return false;
    out_.edges.emplace_back(producer, consumer);
    return true;
  }

  [[nodiscard]] bool obeyed(std::size_t producer, std::size_t consumer) const {
    return k_[consumer].gpu->ts + kTimelineSlackUs >= k_[producer].gpu->end();
  }

  // The last kernel launched on `stream` before host time `when`, or the first after it; -1 if none.
  [[nodiscard]] long last_before(std::int64_t stream, double when) const {
    const auto s = on_stream_.find(stream);
    if (s == on_stream_.end()) return -1;
    const auto& v = s->second;
    const auto it = std::lower_bound(v.begin(), v.end(), when,
                                     [&](std::size_t i, double x) { return k_[i].launch_ts() < x; });
    return it == v.begin() ? -1 : static_cast<long>(*(it - 1));
  }
  [[nodiscard]] long first_after(std::int64_t stream, double when) const {
    const auto s = on_stream_.find(stream);
    if (s == on_stream_.end()) return -1;
    const auto& v = s->second;
    const auto it = std::upper_bound(v.begin(), v.end(), when,
                                     [&](double x, std::size_t i) { return x < k_[i].launch_ts(); });
    return it == v.end() ? -1 : static_cast<long>(*it);
  }

  // The imported kernel a runtime call launched: its index, -1 for a call that launched GPU work
  // the program does not hold (another device, outside the step), nullopt for a call that
  // launched nothing.
  [[nodiscard]] std::optional<long> launched(const TraceEvent& call) const {
    if (!call.correlation) return std::nullopt;
    if (const auto it = kernel_by_launch_corr_.find(*call.correlation); it != kernel_by_launch_corr_.end())
      return static_cast<long>(it->second);
    if (gpu_correlations_.contains(*call.correlation)) return -1;
    return std::nullopt;
  }

  // Runtime calls by host thread in call order, for the record a wait call pairs with.
  void index_threads(const std::vector<const TraceEvent*>& runtime) {
    for (const TraceEvent* e : runtime) thread_calls_[e->tid].push_back(e);
    for (auto& [tid, calls] : thread_calls_) {
      std::stable_sort(calls.begin(), calls.end(),
                       [](const TraceEvent* a, const TraceEvent* b) { return a->ts < b->ts; });
    }
  }

  // On `call`'s thread, the latest call before it that satisfies `pred`; nullptr if none.
  template <class Pred>
  [[nodiscard]] const TraceEvent* latest_before(const TraceEvent& call, Pred pred) const {
    const auto it = thread_calls_.find(call.tid);
    if (it == thread_calls_.end()) return nullptr;
    const auto& calls = it->second;
    auto i = std::lower_bound(calls.begin(), calls.end(), call.ts,
                              [](const TraceEvent* e, double ts) { return e->ts < ts; });
    while (i != calls.begin()) {
      --i;
      if (*i != &call && pred(**i)) return *i;
    }
    return nullptr;
  }

  // The imported kernel its thread launched last before `call`; -1 when none or not imported.
  [[nodiscard]] long thread_launch_before(const TraceEvent& call) const {
    const TraceEvent* l = latest_before(call, [&](const TraceEvent& e) { return launched(e).has_value(); });
    return l == nullptr ? -1 : *launched(*l);
  }

  // Stream Wait Event records: the waiting stream and the wait call are exact. The recording
  // call is exact when the record names its correlation; otherwise (CUPTI versions that write -1)
  // it is the latest record call on the wait call's thread, and the edge counts as inferred.
  void from_sync_records(const std::vector<const TraceEvent*>& waits,
                         const std::vector<const TraceEvent*>& runtime) {
    std::unordered_map<std::int64_t, const TraceEvent*> call_by_corr;
    for (const TraceEvent* e : runtime) {
      if (e->correlation) call_by_corr[*e->correlation] = e;
    }
    for (const TraceEvent* w : waits) {
      const auto wait_it = w->correlation ? call_by_corr.find(*w->correlation) : call_by_corr.end();
      if (wait_it != call_by_corr.end() && !in_step(wait_it->second->ts)) continue;
      if (wait_it == call_by_corr.end() || !w->stream) {
        ++out_.counts.unresolved;
        continue;
      }
      const TraceEvent& wait = *wait_it->second;
      const TraceEvent* record = nullptr;
      bool exact = false;
      if (w->wait_record_correlation && *w->wait_record_correlation >= 0) {
        if (const auto r = call_by_corr.find(*w->wait_record_correlation); r != call_by_corr.end()) {
          record = r->second;
          exact = true;
        }
      }
      if (record == nullptr) {
        record =
            latest_before(wait, [&](const TraceEvent& e) { return record_call(t_.strings.text(e.name)); });
      }
      if (record == nullptr) {
        ++out_.counts.unresolved;
        continue;
      }
      const long producer = w->wait_on_stream && *w->wait_on_stream >= 0
                                ? last_before(*w->wait_on_stream, record->ts)
                                : thread_launch_before(*record);
      const long consumer = first_after(*w->stream, wait.ts);
      settle(producer, consumer, exact);
    }
  }

  void inferred(std::vector<const TraceEvent*> runtime) {
    std::stable_sort(runtime.begin(), runtime.end(), [](const TraceEvent* a, const TraceEvent* b) {
      if (a->tid != b->tid) return a->tid < b->tid;
      return a->ts < b->ts;
    });
    std::uint32_t tid = 0;
    bool first = true;
    long last_launch = -1;  // the thread's last launch: an imported kernel or -1
    long record =
        -1;  // what the latest record call captured; -1: no record yet, or no imported launch before it
    std::vector<long> pending;  // producers of waits not yet followed by a launch
    auto flush_unfollowed = [&] {
      out_.counts.unresolved += static_cast<int>(pending.size());
      pending.clear();
    };
    for (const TraceEvent* e : runtime) {
      if (first || e->tid != tid) {
        flush_unfollowed();
        tid = e->tid, first = false, last_launch = -1, record = -1;
      }
      const std::string& name = t_.strings.text(e->name);
      if (const std::optional<long> k = launched(*e)) {
        for (const long producer : pending) settle(producer, *k);
        pending.clear();
        last_launch = *k;
      } else if (record_call(name)) {
        record = last_launch;
      } else if (wait_call(name) && in_step(e->ts)) {
        // No record before it on this thread: the event was recorded elsewhere (unresolved).
        pending.push_back(record);
      }
    }
    flush_unfollowed();
  }

  TraceDependencies done() { return std::move(out_); }

  void note_gpu_correlation(std::int64_t c) { gpu_correlations_.insert(c); }

private:
  void settle(long producer, long consumer, bool exact = false) {
    if (producer < 0 || consumer < 0) {
      ++out_.counts.unresolved;
      return;
    }
    const auto p = static_cast<std::size_t>(producer), c = static_cast<std::size_t>(consumer);
    if (k_[p].stream == k_[c].stream) {
      ++out_.counts.same_stream;
    } else if (!obeyed(p, c)) {
      ++out_.counts.unresolved;
    } else if (add(p, c)) {
      ++(exact ? out_.counts.exact : out_.counts.inferred);
    }
  }

  const TraceEvents& t_;
  const std::vector<TraceLaunch>& k_;
  std::optional<std::pair<double, double>> step_;
  std::map<std::int64_t, std::vector<std::size_t>> on_stream_;
  std::unordered_map<std::int64_t, std::size_t> kernel_by_launch_corr_;
  std::unordered_set<std::int64_t> gpu_correlations_;
  std::set<std::pair<std::size_t, std::size_t>> seen_;
  std::unordered_map<std::uint32_t, std::vector<const TraceEvent*>> thread_calls_;
  TraceDependencies out_;
};

}  // namespace

TraceDependencies trace_dependencies(const TraceEvents& trace, const std::vector<TraceLaunch>& kernels,
                                     std::int64_t device, std::optional<std::pair<double, double>> step) {
  Builder b(trace, kernels, step);
  std::vector<const TraceEvent*> runtime, waits;
  for (const TraceEvent& e : trace.events) {
    switch (e.cat) {
      case TraceCategory::kernel:
      case TraceCategory::gpu_memcpy:
      case TraceCategory::gpu_memset:
        if (e.correlation) b.note_gpu_correlation(*e.correlation);
        break;
      case TraceCategory::runtime: runtime.push_back(&e); break;
      case TraceCategory::sync:
        if (trace.strings.text(e.name).find("Wait Event") != std::string::npos &&
            e.device.value_or(device) == device)
          waits.push_back(&e);
        break;
      default: break;
    }
  }
  if (!waits.empty()) {
    b.index_threads(runtime);
    b.from_sync_records(waits, runtime);
  } else {
    b.inferred(std::move(runtime));
  }
  TraceDependencies d = b.done();
  d.counts.sync_records = !waits.empty();
  return d;
}

}  // namespace c3sim::wl
