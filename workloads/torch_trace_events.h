#pragma once
// The events of a PyTorch profiler (Kineto) trace that the importer uses (torch_trace_import.h),
// read as a stream (json_event_stream.h) into compact records: names interned, only the args the
// importer reads, each checked where it is read (type, range, sign, NaN, overflow), so a bad value
// is an InputError naming the event (traceEvents[<index>], its line) and the field, never a
// wrong or unloadable program.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/base/errors.h"

namespace c3sim::wl {

// Bounds of one trace import. A Kineto trace of one training step holds 10^4 to 10^6 events of
// 150-400 bytes each and nests 6 levels (document, traceEvents, event, args, Input Dims, a shape).
inline constexpr std::uintmax_t kMaxTraceBytes = std::uintmax_t{4} << 30;  // 4 GiB
inline constexpr std::size_t kMaxTraceEvents = std::size_t{1} << 23;       // 8.4 M, about 1 GB of records
inline constexpr int kMaxTraceDepth = 32;
// Timestamps are microseconds, often since the epoch (about 1.7e15 today); 1e16 is year 2286.
inline constexpr double kMaxTraceTimestampUs = 1e16;

// gpu_annotation: a record_function range on a GPU stream ("gpu_user_annotation"; kept only for
// FSDP2's communication ranges, whose streams FSDP2 creates at high priority).
enum class TraceCategory : std::uint8_t {
  kernel,
  gpu_memcpy,
  gpu_memset,
  runtime,
  sync,
  cpu_op,
  annotation,
  gpu_annotation
};

// Interned strings: id 0 is "".
class TraceStrings {
public:
  TraceStrings() : texts_{""} { ids_.emplace("", 0); }
  std::uint32_t id(const std::string& text);
  [[nodiscard]] const std::string& text(std::uint32_t id) const { return texts_[id]; }

private:
  std::vector<std::string> texts_;
  std::unordered_map<std::string, std::uint32_t> ids_;
};

// An integer arg that may be absent, in 8 bytes where std::optional<std::int64_t> takes 16 (the
// records are most of an import's memory): absent is INT64_MIN, which the reader never accepts.
class OptionalInt {
public:
  OptionalInt() = default;
  OptionalInt(std::optional<std::int64_t> v) : v_(v.value_or(kAbsent)) {}  // NOLINT: converts like optional
  explicit operator bool() const { return v_ != kAbsent; }
  [[nodiscard]] bool has_value() const { return v_ != kAbsent; }
  std::int64_t operator*() const { return v_; }
  [[nodiscard]] std::int64_t value_or(std::int64_t absent) const { return v_ != kAbsent ? v_ : absent; }

  static constexpr std::int64_t kAbsent = std::numeric_limits<std::int64_t>::min();

private:
  std::int64_t v_ = kAbsent;
};

struct TraceEvent {
  std::uint32_t index = 0;  // position in traceEvents (< kMaxTraceEvents)
  int line = 0;             // where it starts in the file
  TraceCategory cat = TraceCategory::cpu_op;
  std::uint32_t name = 0;  // TraceStrings ids
  std::uint32_t tid = 0;
  double ts = 0, dur = 0;
  OptionalInt device, stream, correlation, external_id;
  OptionalInt wait_on_stream, wait_record_correlation;  // cuda_sync "Stream Wait Event"
  // Collective message args (on an NCCL kernel or its record_param_comms op).
  OptionalInt in_nelems, out_nelems, group_size;
  std::uint32_t dtype = 0, collective_name = 0;
  OptionalInt workgroups;  // the grid's product, saturated at kMaxTraceWorkgroups
  // x of a one-dimensional grid and block ({x, 1, 1}, x in 1..kMaxTraceWorkgroups); 0 otherwise.
  std::int32_t grid_x = 0, block_x = 0;
  // A kernel's launch as CUPTI reports it: threads per block (0 = not given), registers per thread
  // (0 = not given) and static + dynamic shared memory per block in bytes (-1 = not given).
  std::int32_t block_threads = 0, registers = 0, shared_memory = -1;
  std::int32_t shapes = -1;  // matmul ops: index into TraceEvents::shapes

  [[nodiscard]] double end() const { return ts + dur; }
  [[nodiscard]] bool has_message_sizes() const { return in_nelems.has_value() || out_nelems.has_value(); }
};

// "Input Dims" and "Input type" of a matmul op (only integer dimensions are kept).
struct OpShapes {
  std::vector<std::vector<std::int64_t>> dims;
  std::vector<std::string> types;  // "" where not a string
};

inline constexpr std::int64_t kMaxTraceWorkgroups = std::int64_t{1} << 20;

// One entry of the trace's deviceProperties (Kineto writes it for CUDA and ROCm alike).
struct TraceDevice {
  std::int64_t id = 0;
  std::string name;                          // "NVIDIA H200"
  std::optional<int> sms;                    // numSms: SMs or CUs
  std::optional<std::int64_t> memory_bytes;  // totalGlobalMem
  // What one SM holds at once (maxThreadsPerMultiprocessor, regsPerMultiprocessor,
  // sharedMemPerMultiprocessor) and the compute capability (computeMajor, computeMinor).
  std::optional<std::int64_t> threads_per_cu, registers_per_cu, shared_memory_per_cu;
  std::optional<int> compute_major, compute_minor;
};

struct TraceEvents {
  std::string file;
  // The ph "X" events of the categories above that the import can use (CPU ops only when they are
  // matmul or collective ops or a ProfilerStep#), in file order. A deque: it grows without the
  // copy-and-double peak of a vector (the records are most of an import's memory).
  std::deque<TraceEvent> events;
  TraceStrings strings;
  std::vector<OpShapes> shapes;
  // deviceProperties entries with an integer id and a printable name; malformed fields are left
  // out (they only select or check the hardware: c3sim run, docs/programs.md).
  std::vector<TraceDevice> devices;
  // distributedInfo.rank as written: nullopt when absent; an error when present but not a rank.
  std::optional<std::int64_t> rank;
  int rank_line = 0;
  bool rank_invalid = false;
  std::string rank_text;
  // distributedInfo.nccl_version ("2.28.9") when it is a version number, else "".
  std::string nccl_version;

  // "traceEvents[<index>]" and its location, for messages about event `e`.
  [[nodiscard]] SourceLocation where(const TraceEvent& e) const { return SourceLocation{file, e.line, 0}; }
  [[nodiscard]] static std::string key(const TraceEvent& e, const std::string& field);
};

// Reads the trace (file, or text in memory named `file`). Throws InputError for a file that is not
// JSON, not a profiler trace (no traceEvents array), over the limits above, or holds an event whose
// used field is malformed.
TraceEvents read_torch_trace_file(const std::string& path);
TraceEvents read_torch_trace_string(const std::string& text, const std::string& file);

}  // namespace c3sim::wl
