#include "workloads/torch_trace_events.h"

#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/base/input_file.h"
#include "workloads/input_limits.h"
#include "workloads/json_event_stream.h"

namespace c3sim::wl {

std::uint32_t TraceStrings::id(const std::string& text) {
  const auto [it, added] = ids_.emplace(text, static_cast<std::uint32_t>(texts_.size()));
  if (added) texts_.push_back(text);
  return it->second;
}

std::string TraceEvents::key(const TraceEvent& e, const std::string& field) {
  return fmt::format("traceEvents[{}].{}", e.index, field);
}

namespace {

using nlohmann::json;

constexpr std::int64_t kInt64Min = OptionalInt::kAbsent + 1;  // the least id the reader accepts
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

std::optional<TraceCategory> category_of(const std::string& cat) {
  if (cat == "kernel") return TraceCategory::kernel;
  if (cat == "gpu_memcpy") return TraceCategory::gpu_memcpy;
  if (cat == "gpu_memset") return TraceCategory::gpu_memset;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "hip_runtime") return TraceCategory::runtime;
  if (cat == "cuda_sync") return TraceCategory::sync;
  if (cat == "cpu_op") return TraceCategory::cpu_op;
  if (cat == "user_annotation") return TraceCategory::annotation;
  if (cat == "gpu_user_annotation") return TraceCategory::gpu_annotation;
  return std::nullopt;
}

bool gpu_category(TraceCategory c) {
  return c == TraceCategory::kernel || c == TraceCategory::gpu_memcpy || c == TraceCategory::gpu_memset;
}

bool matmul_op(const std::string& name) {
  return name == "aten::mm" || name == "aten::addmm" || name == "aten::bmm" || name == "aten::baddbmm" ||
         name == "aten::matmul" || name == "aten::linear" || name == "aten::_scaled_mm";
}

// Reads one event's fields, failing with its index, line and the field's key.
class EventReader {
public:
  EventReader(const TraceEvents& trace, const TraceEvent& e, const json& j) : trace_(trace), e_(e), j_(j) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw InputError(trace_.where(e_), TraceEvents::key(e_, field), problem);
  }

  // A time in microseconds: a finite JSON number; `ts` within +-kMaxTraceTimestampUs, `dur` >= 0.
  double time(const char* field, bool duration) const {
    const auto it = j_.find(field);
    if (it == j_.end()) {
      if (!duration) fail(field, "missing: a complete (ph X) event needs a start time");
      return 0;  // an event without a duration took no time
    }
    if (!it->is_number())
      fail(field, fmt::format("expected a number of microseconds, found {}", it->type_name()));
    const double v = it->get<double>();
    if (!std::isfinite(v)) fail(field, "must be finite");
    if (duration) {
      if (v < 0) fail(field, fmt::format("duration {} us is negative", v));
      if (v > kMaxTraceTimestampUs)
        fail(field, fmt::format("duration {} us is over {} us", v, kMaxTraceTimestampUs));
    } else if (std::abs(v) > kMaxTraceTimestampUs) {
      fail(field, fmt::format("timestamp {} us is outside +-{} us", v, kMaxTraceTimestampUs));
    }
    return v;
  }

  // An integer arg: a JSON integer, an integral JSON number, or a string of decimal digits (Kineto
  // writes some ids as strings); within lo..hi.
  std::optional<std::int64_t> integer(const json& args, const char* key, std::int64_t lo,
                                      std::int64_t hi) const {
    const auto it = args.find(key);
    if (it == args.end()) return std::nullopt;
    const std::string field = std::string("args.") + key;
    std::int64_t v = 0;
    if (it->is_number_unsigned()) {
      const auto u = it->get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(kInt64Max))
        fail(field, fmt::format("{} is beyond the 64-bit integer range", u));
      v = static_cast<std::int64_t>(u);
    } else if (it->is_number_integer()) {
      v = it->get<std::int64_t>();
    } else if (it->is_number_float()) {
      const double d = it->get<double>();
      if (!std::isfinite(d) || d != std::trunc(d) || std::abs(d) >= 0x1p63)
        fail(field, fmt::format("expected an integer, found {}", it->dump()));
      v = static_cast<std::int64_t>(d);
    } else if (it->is_string()) {
      const std::string& s = it->get_ref<const std::string&>();
      const char* first = s.data();
      const char* last = s.data() + s.size();
      const auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec == std::errc::result_out_of_range)
        fail(field, fmt::format("'{}' is beyond the 64-bit integer range", s));
      if (ec != std::errc() || ptr != last || s.empty())
        fail(field, fmt::format("expected an integer, found '{}'", s));
    } else {
      fail(field, fmt::format("expected an integer, found {}", it->type_name()));
    }
    if (v < lo || v > hi) fail(field, fmt::format("{} is outside {}..{}", v, lo, hi));
    return v;
  }

  std::uint32_t string_id(TraceStrings& strings, const json& args, const char* key) const {
    const auto it = args.find(key);
    if (it == args.end() || !it->is_string()) return 0;
    return strings.id(it->get<std::string>());
  }

  // The thread id as text: Kineto writes numbers or strings.
  std::string tid() const {
    const auto it = j_.find("tid");
    if (it == j_.end()) return "";
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number()) return it->dump();  // a scalar: no recursion
    fail("tid", fmt::format("expected a number or a string, found {}", it->type_name()));
  }

private:
  const TraceEvents& trace_;
  const TraceEvent& e_;
  const json& j_;
};

// Product of a kernel's grid, saturated (a grid is at most 2^31 x 65535 x 65535 blocks).
std::int64_t grid_workgroups(const json& grid) {
  std::int64_t wgs = 1;
  for (const json& x : grid) {
    std::int64_t d = 1;
    if (x.is_number_unsigned()) {
      d = static_cast<std::int64_t>(std::min<std::uint64_t>(x.get<std::uint64_t>(), kMaxTraceWorkgroups));
    } else if (x.is_number_integer()) {
      d = std::clamp<std::int64_t>(x.get<std::int64_t>(), 1, kMaxTraceWorkgroups);
    }
    wgs = std::min(wgs * std::max<std::int64_t>(d, 1), kMaxTraceWorkgroups);  // both <= 2^20: no overflow
  }
  return wgs;
}

// x of a one-dimensional launch dimension {x, 1, 1}; 0 for any other shape.
std::int32_t launch_x(const json& dims) {
  if (dims.empty() || !dims.front().is_number_integer()) return 0;
  for (std::size_t i = 1; i < dims.size(); ++i) {
    if (!dims[i].is_number_integer() || dims[i].get<std::int64_t>() != 1) return 0;
  }
  const std::int64_t x = dims.front().get<std::int64_t>();
  return x >= 1 && x <= kMaxTraceWorkgroups ? static_cast<std::int32_t>(x) : 0;
}

OpShapes shapes_of(const EventReader& r, const json& args) {
  OpShapes out;
  if (const auto it = args.find("Input Dims"); it != args.end() && it->is_array()) {
    for (const json& d : *it) {
      std::vector<std::int64_t> dims;
      if (d.is_array()) {
        for (const json& x : d) {
          if (x.is_number_unsigned() && x.get<std::uint64_t>() > static_cast<std::uint64_t>(kInt64Max))
            r.fail("args.Input Dims",
                   fmt::format("dimension {} is beyond the 64-bit integer range", x.dump()));
          if (x.is_number_integer()) dims.push_back(x.get<std::int64_t>());
        }
      }
      out.dims.push_back(std::move(dims));
    }
  }
  if (const auto it = args.find("Input type"); it != args.end() && it->is_array()) {
    for (const json& t : *it) out.types.push_back(t.is_string() ? t.get<std::string>() : "");
  }
  return out;
}

// An integer member of an object (deviceProperties, an event's tid), within lo..hi; else nullopt.
std::optional<std::int64_t> integer_in(const json& j, const char* key, std::int64_t lo, std::int64_t hi);

void add_event(TraceEvents& trace, std::size_t index, int line, const json& j) {
  if (!j.is_object()) return;
  const auto ph = j.find("ph");
  if (ph == j.end() || !ph->is_string() || ph->get_ref<const std::string&>() != "X") return;
  const auto cat_it = j.find("cat");
  if (cat_it == j.end() || !cat_it->is_string()) return;
  const std::optional<TraceCategory> cat = category_of(cat_it->get_ref<const std::string&>());
  if (!cat) return;
  TraceEvent e;
  e.index = static_cast<std::uint32_t>(index);  // < kMaxTraceEvents
  e.line = line;
  e.cat = *cat;
  const EventReader r(trace, e, j);
  std::string name;
  if (const auto n = j.find("name"); n != j.end() && n->is_string()) name = n->get<std::string>();
  if (gpu_category(e.cat) && has_control_character(name, /*allow_whitespace=*/false)) {
    // The kernel's name is carried into the program (measured.source), where a control byte is refused.
    r.fail("name", "kernel name holds a control character");
  }
  if (e.cat == TraceCategory::annotation && name.rfind("ProfilerStep#", 0) != 0) return;
  if (e.cat == TraceCategory::gpu_annotation && name.rfind("FSDP::", 0) != 0) return;
  e.name = trace.strings.id(name);
  e.ts = r.time("ts", /*duration=*/false);
  e.dur = r.time("dur", /*duration=*/true);
  if (e.cat == TraceCategory::runtime || e.cat == TraceCategory::cpu_op) e.tid = trace.strings.id(r.tid());
  if (e.cat == TraceCategory::gpu_annotation) {
    // Kineto draws a GPU range on its stream's row: tid is the stream.
    e.stream = integer_in(j, "tid", 0, kInt64Max);
  }
  const auto args_it = j.find("args");
  if (args_it != j.end() && args_it->is_object() && e.cat != TraceCategory::annotation) {
    const json& a = *args_it;
    constexpr std::int64_t kMaxDevice = std::int64_t{1} << 20;
    if (gpu_category(e.cat) || e.cat == TraceCategory::sync) {
      e.device = r.integer(a, "device", 0, kMaxDevice);
      e.stream = r.integer(a, "stream", kInt64Min, kInt64Max);
    }
    if (e.cat != TraceCategory::cpu_op) e.correlation = r.integer(a, "correlation", kInt64Min, kInt64Max);
    if (gpu_category(e.cat) || e.cat == TraceCategory::cpu_op)
      e.external_id = r.integer(a, "External id", kInt64Min, kInt64Max);
    if (e.cat == TraceCategory::sync) {
      e.wait_on_stream = r.integer(a, "wait_on_stream", kInt64Min, kInt64Max);
      e.wait_record_correlation = r.integer(a, "wait_on_cuda_event_record_corr_id", kInt64Min, kInt64Max);
    }
    if (e.cat == TraceCategory::kernel || e.cat == TraceCategory::cpu_op) {
      // Element counts stay below 2^50 (a byte count's limit: input_limits.h) so bytes = count x
      // element size x group size cannot overflow before it is checked.
      e.in_nelems = r.integer(a, "In msg nelems", 0, kMaxCollectiveBytes);
      e.out_nelems = r.integer(a, "Out msg nelems", 0, kMaxCollectiveBytes);
      if (e.has_message_sizes()) {
        e.group_size = r.integer(a, "Group size", 0, kMaxGpus);
        e.dtype = r.string_id(trace.strings, a, "dtype");
        e.collective_name = r.string_id(trace.strings, a, "Collective name");
      }
    }
    if (e.cat == TraceCategory::kernel) {
      if (const auto g = a.find("grid"); g != a.end() && g->is_array()) {
        e.workgroups = std::optional<std::int64_t>(grid_workgroups(*g));
        e.grid_x = launch_x(*g);
      }
      if (const auto b = a.find("block"); b != a.end() && b->is_array()) {
        e.block_x = launch_x(*b);
        e.block_threads = static_cast<std::int32_t>(grid_workgroups(*b));
      }
      e.registers = static_cast<std::int32_t>(r.integer(a, "registers per thread", 0, 65536).value_or(0));
      e.shared_memory =
          static_cast<std::int32_t>(r.integer(a, "shared memory", 0, std::int64_t{1} << 30).value_or(-1));
    }
    if (e.cat == TraceCategory::cpu_op && matmul_op(name)) {
      e.shapes = static_cast<std::int32_t>(trace.shapes.size());
      trace.shapes.push_back(shapes_of(r, a));
    }
  }
  if (e.cat == TraceCategory::cpu_op && matmul_op(name) && e.shapes < 0) {  // no args: no shapes
    e.shapes = static_cast<std::int32_t>(trace.shapes.size());
    trace.shapes.emplace_back();
  }
  // Other CPU ops decide nothing: the import looks for matmul ops, ops with message sizes, and the
  // profiler step.
  if (e.cat == TraceCategory::cpu_op && e.shapes < 0 && !e.has_message_sizes() &&
      name.rfind("ProfilerStep#", 0) != 0)
    return;
  trace.events.push_back(e);
}

// A version as digits and dots, at most 32 characters; anything else reads as no version.
std::string version_text(const json& v) {
  if (!v.is_string()) return "";
  const auto& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > 32) return "";
  for (const char c : s) {
    if ((c < '0' || c > '9') && c != '.') return "";
  }
  return s;
}

void read_distributed_info(TraceEvents& trace, const json& info) {
  if (!info.is_object()) return;
  if (const auto v = info.find("nccl_version"); v != info.end()) trace.nccl_version = version_text(*v);
  const auto it = info.find("rank");
  if (it == info.end()) return;
  if (it->is_number_integer() && !it->is_number_unsigned() && it->get<std::int64_t>() >= 0 &&
      it->get<std::int64_t>() < kMaxGpus) {
    trace.rank = it->get<std::int64_t>();
  } else if (it->is_number_unsigned() && it->get<std::uint64_t>() < static_cast<std::uint64_t>(kMaxGpus)) {
    trace.rank = static_cast<std::int64_t>(it->get<std::uint64_t>());
  } else {
    trace.rank_invalid = true;
    trace.rank_text = it->is_primitive() ? it->dump() : it->type_name();
  }
}

std::optional<std::int64_t> integer_in(const json& j, const char* key, std::int64_t lo, std::int64_t hi) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  if (it->is_number_unsigned()) {
    const auto u = it->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(hi)) return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  const std::int64_t v = it->get<std::int64_t>();
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

void read_device_properties(TraceEvents& trace, const json& list) {
  if (!list.is_array()) return;
  constexpr std::int64_t kMaxSms = std::int64_t{1} << 16;
  for (const json& d : list) {
    if (!d.is_object()) continue;
    const auto name = d.find("name");
    const std::optional<std::int64_t> id = integer_in(d, "id", 0, std::int64_t{1} << 20);
    if (name == d.end() || !name->is_string() || !id) continue;
    TraceDevice out;
    out.id = *id;
    out.name = name->get<std::string>();
    if (out.name.empty() || out.name.size() > 256 ||
        has_control_character(out.name, /*allow_whitespace=*/false))
      continue;
    if (const auto sms = integer_in(d, "numSms", 1, kMaxSms)) out.sms = static_cast<int>(*sms);
    out.memory_bytes = integer_in(d, "totalGlobalMem", 1, kMaxCollectiveBytes);
    out.threads_per_cu = integer_in(d, "maxThreadsPerMultiprocessor", 1, std::int64_t{1} << 20);
    out.registers_per_cu = integer_in(d, "regsPerMultiprocessor", 1, std::int64_t{1} << 30);
    out.shared_memory_per_cu = integer_in(d, "sharedMemPerMultiprocessor", 1, std::int64_t{1} << 40);
    if (const auto v = integer_in(d, "computeMajor", 0, 1000)) out.compute_major = static_cast<int>(*v);
    if (const auto v = integer_in(d, "computeMinor", 0, 1000)) out.compute_minor = static_cast<int>(*v);
    trace.devices.push_back(std::move(out));
  }
}

TraceEvents finish(TraceEvents trace, const JsonStreamSummary& summary) {
  if (!summary.object || !summary.had_events)
    throw InputError(SourceLocation{trace.file, 0, 0}, "traceEvents",
                     "no traceEvents array: not a PyTorch profiler (Chrome trace) file");
  return trace;
}

JsonStreamCallbacks callbacks(TraceEvents& trace) {
  JsonStreamCallbacks cb;
  cb.member = [&trace](const std::string& key, const json& value) {
    if (key == "distributedInfo") read_distributed_info(trace, value);
    if (key == "deviceProperties") read_device_properties(trace, value);
  };
  cb.event = [&trace](std::size_t index, int line, const json& e) { add_event(trace, index, line, e); };
  return cb;
}

constexpr JsonStreamLimits kLimits{kMaxTraceBytes, kMaxTraceDepth, kMaxTraceEvents};

}  // namespace

TraceEvents read_torch_trace_file(const std::string& path) {
  TraceEvents trace;
  trace.file = path;
  const JsonStreamSummary s = read_json_event_stream_file(path, "traceEvents", kLimits, callbacks(trace));
  return finish(std::move(trace), s);
}

TraceEvents read_torch_trace_string(const std::string& text, const std::string& file) {
  TraceEvents trace;
  trace.file = file;
  const JsonStreamSummary s =
      read_json_event_stream_string(text, file, "traceEvents", kLimits, callbacks(trace));
  return finish(std::move(trace), s);
}

}  // namespace c3sim::wl
