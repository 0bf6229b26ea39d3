// PyTorch profiler (Kineto) trace -> program. The rules are in torch_trace_import.h; the events
// come from torch_trace_events.h, already checked field by field.
#include "workloads/torch_trace_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/base/ascii_case.h"
#include "sim/base/input_file.h"
#include "workloads/input_limits.h"
#include "workloads/nccl_launch_shape.h"
#include "workloads/program_io.h"
#include "workloads/torch_trace_dependencies.h"
#include "workloads/torch_trace_events.h"
#include "workloads/torch_trace_nccl.h"
#include "workloads/torch_trace_occupancy.h"

namespace c3sim::wl {

namespace {

// The N of a "ProfilerStep#N" annotation (the profiler counts the loop's steps from 0); -1 when the
// name carries no number.
int profiler_step_number(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.rfind(kPrefix, 0) != 0) return -1;
  const std::string_view digits = name.substr(kPrefix.size());
  if (digits.empty() || digits.size() > 9) return -1;
  int n = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// The kernel's function name without its return type, namespace-free template arguments and
// parameters: "void cutlass::Kernel2<...>(...)" -> "cutlass::Kernel2". Template arguments name
// types such as cutlass::bfloat16_t inside attention kernels, so they must not decide the kind.
std::string base_name(const std::string& full) {
  std::string s = full;
  if (s.rfind("void ", 0) == 0) s = s.substr(5);
  for (size_t at = s.find("(anonymous namespace)"); at != std::string::npos;
       at = s.find("(anonymous namespace)"))
    s.replace(at, 21, "anon");
  const size_t cut = s.find_first_of("<(");
  return cut == std::string::npos ? s : s.substr(0, cut);
}

bool gemm_kernel_name(const std::string& full) {
  const std::string b = ascii_lowercase(base_name(full));
  for (const char* k : {"gemm", "nvjet", "cijk_", "xmma", "cutlass", "sgemm", "hgemm"}) {
    if (contains(b, k)) return true;
  }
  return false;
}

std::optional<Dtype> dtype_of_type(const std::string& t) {
  const std::string s = ascii_lowercase(t);
  if (contains(s, "bfloat16")) return Dtype::bf16;
  if (contains(s, "half")) return Dtype::fp16;
  if (contains(s, "float8")) return Dtype::fp8;
  if (s == "float" || contains(s, "float32")) return Dtype::fp32;
  return std::nullopt;
}

int elem_bytes(const std::string& dtype) {
  const std::string s = ascii_lowercase(dtype);
  if (contains(s, "bfloat16") || contains(s, "half") || s == "short") return 2;
  if (contains(s, "float8") || s == "byte" || s == "char" || s == "bool" || contains(s, "int8")) return 1;
  if (s == "long" || s == "double" || contains(s, "int64") || contains(s, "float64")) return 8;
  if (s == "float" || s == "int" || contains(s, "float32") || contains(s, "int32")) return 4;
  return 0;
}

using Dims = std::vector<std::int64_t>;

// The product of d[from, to); nullopt when it leaves 1..kMaxGemmDim (or a factor is <= 0: 0 when
// some factor is 0 or negative, so the caller reports an empty product).
std::optional<std::int64_t> side(const Dims& d, size_t from, size_t to) {
  std::int64_t p = 1;
  for (size_t i = from; i < to; ++i) {
    if (d[i] <= 0) return 0;
    if (d[i] > kMaxGemmDim || p > kMaxGemmDim / d[i]) return std::nullopt;
    p *= d[i];
  }
  return p;
}

// {m, n, k} of the op's logical product, or why not. A side beyond the GEMM model's limit is the
// trace's error (InputError naming the op's event): no program can carry it.
std::optional<Gemm> gemm_of_op(const TraceEvents& t, const TraceEvent& op, std::string* why) {
  static const OpShapes kNone;
  const OpShapes& shapes = op.shapes >= 0 ? t.shapes[static_cast<size_t>(op.shapes)] : kNone;
  const std::vector<Dims>& in = shapes.dims;
  const std::string& n = t.strings.text(op.name);
  size_t ia = 0, ib = 1;
  if (n == "aten::addmm" || n == "aten::baddbmm") ia = 1, ib = 2;
  if (in.size() <= std::max(ia, ib)) {
    *why = fmt::format("{} has no Input Dims (profile with record_shapes=True)", n);
    return std::nullopt;
  }
  const Dims& a = in[ia];
  const Dims& b = in[ib];
  std::optional<std::int64_t> m, nn, k;
  if (n == "aten::linear") {
    // linear(x[..., K], W[N, K]): m = every leading dimension of x.
    if (a.empty() || b.size() != 2) {
      *why = fmt::format("{} with input dims of rank {} and {}", n, a.size(), b.size());
      return std::nullopt;
    }
    m = side(a, 0, a.size() - 1), nn = side(b, 0, 1), k = side(b, 1, 2);
  } else {
    // mm/addmm [M,K]x[K,N]; bmm/baddbmm [B,M,K]x[B,K,N] (B folds into m); matmul of rank >= 2
    // operands: a's leading dimensions fold into m (a batched b multiplies the same batch).
    if (a.size() < 2 || b.size() < 2) {
      *why = fmt::format("{} with input dims of rank {} and {}", n, a.size(), b.size());
      return std::nullopt;
    }
    if (b[b.size() - 2] != a.back()) {
      *why = fmt::format("{}: inner dimensions differ ({} vs {})", n, a.back(), b[b.size() - 2]);
      return std::nullopt;
    }
    m = side(a, 0, a.size() - 1), k = side(a, a.size() - 1, a.size()), nn = side(b, b.size() - 1, b.size());
  }
  if (!m || !nn || !k) {
    throw InputError(t.where(op), TraceEvents::key(op, "args.Input Dims"),
                     fmt::format("{}: a GEMM side is over the model's limit of {} (2^24)", n, kMaxGemmDim));
  }
  if (*m <= 0 || *nn <= 0 || *k <= 0) {
    *why = fmt::format("{}: empty product", n);
    return std::nullopt;
  }
  Gemm g;
  g.m = *m, g.n = *nn, g.k = *k;
  check_gemm_shape(g.m, g.n, g.k, t.where(op), TraceEvents::key(op, "args.Input Dims"));
  g.dtype = Dtype::fp32;
  if (shapes.types.size() > ia && !shapes.types[ia].empty()) {
    const std::string& type = shapes.types[ia];
    const std::optional<Dtype> d = dtype_of_type(type);
    if (!d) {
      *why = fmt::format("{}: dtype '{}' has no c3sim GEMM model", n, type);
      return std::nullopt;
    }
    g.dtype = *d;
  }
  g.source = fmt::format("{} {}x{}x{}", n, g.m, g.n, g.k);
  return g;
}

std::optional<CollectiveOp> coll_op_of_kernel(const std::string& full, const std::string& coll_name) {
  const std::string b = ascii_lowercase(base_name(full)) + " " + ascii_lowercase(coll_name);
  if (contains(b, "allgather") || contains(b, "all_gather")) return CollectiveOp::all_gather;
  if (contains(b, "reducescatter") || contains(b, "reduce_scatter")) return CollectiveOp::reduce_scatter;
  if (contains(b, "allreduce") || contains(b, "all_reduce")) return CollectiveOp::all_reduce;
  if (contains(b, "alltoall") || contains(b, "all_to_all")) return CollectiveOp::all_to_all;
  return std::nullopt;
}

bool nccl_kernel(const std::string& full) {
  const std::string b = ascii_lowercase(base_name(full));
  return contains(b, "nccl") || contains(b, "rccl");
}

// A name the YAML and the tables can carry: the base name's last component, letters, digits, '_'.
std::string short_name(const std::string& full) {
  std::string b = base_name(full);
  if (const size_t c = b.rfind("::"); c != std::string::npos) b = b.substr(c + 2);
  std::string out;
  for (char ch : b) {
    const auto u = static_cast<unsigned char>(ch);
    out += std::isalnum(u) ? ch : '_';
  }
  if (out.size() > 40) out.resize(40);
  return out.empty() ? "kernel" : out;
}

// Trace text quoted in the YAML's comments: one line, printable (a newline would end the comment).
std::string comment_text(std::string s) {
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = '?';
  }
  return s;
}

using Kernel = TraceLaunch;

// CPU ops of one kind (matmul ops, ops with message sizes) by thread, for "the innermost such op
// around this launch": the latest-starting op (file order among equal starts) whose span contains
// t. Sorted by start with a running maximum of ends, so a query walks back only over ops that
// could still contain t: O(log n) plus the ops nested around t in a well-formed trace.
class OpIndex {
public:
  void add(const TraceEvent* e) { by_tid_[e->tid].ops.push_back(e); }
  void sort() {
    for (auto& [tid, t] : by_tid_) {
      std::stable_sort(t.ops.begin(), t.ops.end(),
                       [](const TraceEvent* a, const TraceEvent* b) { return a->ts < b->ts; });
      double m = -std::numeric_limits<double>::infinity();
      for (const TraceEvent* e : t.ops) t.max_end.push_back(m = std::max(m, e->end()));
    }
  }
  [[nodiscard]] const TraceEvent* innermost(std::uint32_t tid, double t) const {
    const auto it = by_tid_.find(tid);
    if (it == by_tid_.end()) return nullptr;
    const Thread& th = it->second;
    auto i = static_cast<size_t>(std::upper_bound(th.ops.begin(), th.ops.end(), t,
                                                  [](double x, const TraceEvent* e) { return x < e->ts; }) -
                                 th.ops.begin());
    while (i-- > 0 && th.max_end[i] >= t) {
      if (th.ops[i]->end() >= t) return th.ops[i];
    }
    return nullptr;
  }

private:
  struct Thread {
    std::vector<const TraceEvent*> ops;
    std::vector<double> max_end;  // max_end[i] = the latest end among ops[0..i]
  };
  std::unordered_map<std::uint32_t, Thread> by_tid_;
};

// Host time blocked in synchronizing calls, as the union of their spans; queried for consecutive
// launch-to-launch intervals in increasing order (one pass overall).
class BlockedTime {
public:
  explicit BlockedTime(std::vector<std::pair<double, double>> spans) {
    std::sort(spans.begin(), spans.end());
    for (const auto& [a, b] : spans) {
      if (!merged_.empty() && a <= merged_.back().second) {
        merged_.back().second = std::max(merged_.back().second, b);
      } else {
        merged_.emplace_back(a, b);
      }
    }
  }
  // The blocked time inside [from, to]; `from` never decreases between calls.
  double within(double from, double to) {
    while (next_ < merged_.size() && merged_[next_].second <= from) ++next_;
    double sum = 0;
    for (size_t i = next_; i < merged_.size() && merged_[i].first < to; ++i)
      sum += std::max(0.0, std::min(merged_[i].second, to) - std::max(merged_[i].first, from));
    return sum;
  }

private:
  std::vector<std::pair<double, double>> merged_;
  size_t next_ = 0;
};

[[noreturn]] void fail(const std::string& file, const std::string& key, const std::string& why) {
  throw InputError(SourceLocation{file, 0, 0}, key, why);
}

// The collective a kernel's message args describe, or why it stays measured (appended to
// `unmapped`); InputError when the sizes are beyond what a program can hold.
struct CollectiveSizes {
  std::int64_t bytes = 0;
  int group = 0;
};

std::optional<CollectiveSizes> collective_sizes(const TraceEvents& t, const TraceEvent& comm, CollectiveOp op,
                                                std::string* why) {
  const std::int64_t in = comm.in_nelems.value_or(0);
  const std::int64_t out = comm.out_nelems.value_or(0);
  const std::int64_t gs = comm.group_size.value_or(0);  // 0..kMaxGpus (torch_trace_events.cpp)
  const std::string& dtype = t.strings.text(comm.dtype);
  const int eb = elem_bytes(dtype);
  // in, out < 2^50, gs <= 2^12, eb <= 8: every product below fits in int64.
  std::int64_t elems = 0;
  const char* field = "args.In msg nelems";
  switch (op) {
    case CollectiveOp::all_gather:
      elems = out > 0 ? out : in * gs;
      if (out > 0) field = "args.Out msg nelems";
      break;
    case CollectiveOp::reduce_scatter:
      // A program's reduce-scatter moves `bytes` = the per-GPU output, one reduced block
      // (sim/base/collective_op.h), which NCCL's "Out msg nelems" counts; the input is gs blocks.
      elems = out > 0 ? out : (gs > 0 && in % gs == 0 ? in / gs : 0);
      if (out > 0) field = "args.Out msg nelems";
      break;
    default:
      elems = in > 0 ? in : out;
      if (in <= 0) field = "args.Out msg nelems";
      break;
  }
  if (eb == 0 || elems <= 0 || gs < 2) {
    *why =
        fmt::format("collective with dtype '{}', {} elements, group size {}", comment_text(dtype), elems, gs);
    return std::nullopt;
  }
  const std::int64_t bytes = elems * eb;
  if (bytes > kMaxCollectiveBytes) {
    throw InputError(
        t.where(comm), TraceEvents::key(comm, field),
        fmt::format("{} elements of {} bytes = {} bytes, over the {} (1 PiB) a collective may move", elems,
                    eb, bytes, kMaxCollectiveBytes));
  }
  // A program's collective splits into equal shards on its GPUs (check_program_fits): the
  // reduce-scatter's output is one shard already.
  if (op != CollectiveOp::reduce_scatter && bytes % gs != 0) {
    *why = fmt::format("collective of {} bytes does not split into {} equal shards", bytes, gs);
    return std::nullopt;
  }
  return CollectiveSizes{bytes, static_cast<int>(gs)};
}

TorchImportResult import_events(const TraceEvents& t, const TorchImportOptions& options) {
  const std::string& file = t.file;
  if (has_control_character(options.name, /*allow_whitespace=*/false))
    throw InputError(SourceLocation{"<command line>", 0, 0}, "--name",
                     "the program name holds a control character");
  if (options.rank) {
    if (t.rank_invalid)
      fail(file, "distributedInfo.rank", fmt::format("{} is not a rank (0..{})", t.rank_text, kMaxGpus - 1));
    if (t.rank && *t.rank != *options.rank)
      fail(file, "distributedInfo.rank",
           fmt::format("trace is rank {}, --rank asks for {}", *t.rank, *options.rank));
  }

  // GPU work per device; runtime calls by correlation; CPU ops.
  std::map<std::int64_t, std::vector<const TraceEvent*>> gpu_by_device;
  std::unordered_map<std::int64_t, const TraceEvent*> runtime_by_corr;  // the last call of a correlation
  std::vector<const TraceEvent*> runtime, steps;
  std::unordered_map<std::int64_t, const TraceEvent*> op_by_ext;  // the first op of an External id
  OpIndex matmul_ops, comm_ops;
  for (const TraceEvent& e : t.events) {
    switch (e.cat) {
      case TraceCategory::kernel:
      case TraceCategory::gpu_memcpy:
      case TraceCategory::gpu_memset: gpu_by_device[e.device.value_or(0)].push_back(&e); break;
      case TraceCategory::runtime:
        runtime.push_back(&e);
        if (e.correlation) runtime_by_corr[*e.correlation] = &e;
        break;
      case TraceCategory::sync:
      case TraceCategory::gpu_annotation: break;  // read by fsdp2_high_priority_streams
      case TraceCategory::cpu_op:
      case TraceCategory::annotation:
        if (t.strings.text(e.name).rfind("ProfilerStep#", 0) == 0) steps.push_back(&e);
        if (e.cat == TraceCategory::cpu_op) {
          if (e.shapes >= 0) matmul_ops.add(&e);
          if (e.has_message_sizes()) comm_ops.add(&e);
          if (e.external_id) op_by_ext.emplace(*e.external_id, &e);
        }
        break;
    }
  }
  matmul_ops.sort();
  comm_ops.sort();
  if (gpu_by_device.empty())
    fail(file, "traceEvents",
         "no GPU kernels (cat kernel/gpu_memcpy/gpu_memset): was CUDA activity profiled?");
  std::int64_t device = gpu_by_device.begin()->first;
  if (options.device) {
    if (!gpu_by_device.contains(*options.device))
      fail(file, "traceEvents", fmt::format("no GPU kernels on device {}", *options.device));
    device = *options.device;
  } else if (gpu_by_device.size() > 1) {
    std::string list;
    for (const auto& [d, v] : gpu_by_device)
      list += fmt::format("{}{} ({} kernels)", list.empty() ? "" : ", ", d, v.size());
    fail(file, "traceEvents", fmt::format("kernels of several devices: {}; choose one with --device", list));
  }

  // The profiler step: the first ProfilerStep# annotation, when present, bounds the launches.
  std::optional<std::pair<double, double>> step;
  bool after_other_steps = false;
  if (!steps.empty()) {
    std::stable_sort(steps.begin(), steps.end(),
                     [](const TraceEvent* a, const TraceEvent* b) { return a->ts < b->ts; });
    step = {steps.front()->ts, steps.front()->end()};
    after_other_steps = profiler_step_number(t.strings.text(steps.front()->name)) >= 1;
  }

  std::vector<Kernel> kernels;
  for (const TraceEvent* g : gpu_by_device[device]) {
    Kernel k;
    k.gpu = g;
    k.stream = g->stream.value_or(0);
    if (g->correlation) {
      if (auto it = runtime_by_corr.find(*g->correlation); it != runtime_by_corr.end()) k.launch = it->second;
    }
    if (step && (k.launch_ts() < step->first || k.launch_ts() > step->second)) continue;
    if (k.launch != nullptr && g->ts < k.launch->ts) {
      throw InputError(
          t.where(*g), TraceEvents::key(*g, "ts"),
          fmt::format("the kernel starts at {} us, before its launch call (traceEvents[{}], line {}, "
                      "correlation {}) at {} us",
                      g->ts, k.launch->index, k.launch->line, *g->correlation, k.launch->ts));
    }
    kernels.push_back(k);
  }
  if (kernels.empty()) fail(file, "traceEvents", "no GPU kernels launched inside the profiler step");
  std::stable_sort(kernels.begin(), kernels.end(), [](const Kernel& a, const Kernel& b) {
    if (a.launch_ts() != b.launch_ts()) return a.launch_ts() < b.launch_ts();
    return a.gpu->ts < b.gpu->ts;
  });

  TorchImportResult r;
  if (t.rank && !t.rank_invalid) r.trace_rank = static_cast<int>(*t.rank);
  r.first_launch_ts_us = kernels.front().launch_ts();
  Program& p = r.program;
  p.name = options.name.empty() ? "torch_trace" : options.name;
  // ProfilerStep#N with N >= 1: the loop ran N steps before this one, so the board starts it where
  // the step before left its averaged power (model.power.window), not rested.
  p.steady_state = after_other_steps;
  p.source = "PyTorch profiler trace " + comment_text(file);
  p.location = SourceLocation{file, 0, 0};
  p.kernels.reserve(kernels.size());
  std::set<std::int64_t> stream_ids;
  std::vector<const TraceEvent*> gpu_events;
  for (const Kernel& k : kernels) {
    stream_ids.insert(k.stream);
    gpu_events.push_back(k.gpu);
  }
  const std::set<std::int64_t> high = fsdp2_high_priority_streams(t, device, gpu_events);
  for (std::int64_t s : stream_ids) {
    const bool urgent = high.count(s) > 0;
    p.streams.push_back(ProgramStream{fmt::format("stream{}", s), urgent ? 1 : 0, std::nullopt, p.location});
    if (urgent) r.high_priority_streams.push_back(p.streams.back().name);
  }
  const TraceDevice* device_properties = nullptr;
  for (const TraceDevice& d : t.devices) {
    if (d.id == device) device_properties = &d;
  }

  std::vector<std::pair<double, double>> sync_spans;
  for (const TraceEvent* e : runtime) {
    const std::string& name = t.strings.text(e->name);
    if (contains(name, "Synchronize") || (contains(name, "Memcpy") && !contains(name, "Async")))
      sync_spans.emplace_back(e->ts, e->end());
  }
  BlockedTime blocked(std::move(sync_spans));

  // RCCL's block is 256 threads whatever it runs: only an NVIDIA trace's block names a protocol.
  r.nccl_version = t.nccl_version;
  const bool amd_device = std::any_of(t.devices.begin(), t.devices.end(), [&](const TraceDevice& d) {
    return d.id == device && contains(d.name, "AMD");
  });
  int group = 0;
  double first_start = std::numeric_limits<double>::infinity(), last_end = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    const TraceEvent& g = *k.gpu;
    const std::string& gname = t.strings.text(g.name);
    first_start = std::min(first_start, g.ts);
    last_end = std::max(last_end, g.end());
    ProgramKernel pk;
    pk.name = fmt::format("k{:04}_{}", i, short_name(gname));
    pk.stream = fmt::format("stream{}", k.stream);
    pk.location = t.where(g);
    if (i > 0) {
      const double from = kernels[i - 1].launch_ts(), to = k.launch_ts();
      const double removed = blocked.within(from, to);
      r.blocked_host_us += removed;
      pk.gap_us = std::max(0.0, to - from - removed);
      if (*pk.gap_us > kMaxProgramTimeUs) {
        const TraceEvent& at = k.launch != nullptr ? *k.launch : g;
        throw InputError(
            t.where(at), TraceEvents::key(at, "ts"),
            fmt::format("{} us of host time before this launch, over the {} us a program may span",
                        *pk.gap_us, kMaxProgramTimeUs));
      }
    }
    if (k.launch == nullptr)
      r.unmapped.push_back(pk.name + ": no runtime call with its correlation (launch time = its GPU start)");
    pk.kind = KernelKind::measured;
    pk.measured.time_us = std::max(g.dur, 1e-3);
    if (pk.measured.time_us > kMaxProgramTimeUs) {
      throw InputError(t.where(g), TraceEvents::key(g, "dur"),
                       fmt::format("{} us is over the {} us a program may span", g.dur, kMaxProgramTimeUs));
    }
    pk.measured.source = gname;
    pk.traced_us = g.dur;
    if (g.cat == TraceCategory::kernel && g.workgroups) {
      pk.measured.workgroups = static_cast<int>(*g.workgroups);
      // More blocks than one wave of the GPU holds: it ran in waves (MeasuredKernel::blocks_per_cu).
      const std::optional<int> per_sm =
          device_properties != nullptr ? trace_blocks_per_sm(g, *device_properties) : std::nullopt;
      const int sms = device_properties != nullptr ? device_properties->sms.value_or(0) : 0;
      if (per_sm && sms > 0) {
        pk.measured.blocks_per_cu = *per_sm;
        if (measured_waves(pk.measured, sms) > 1)
          ++r.measured_in_waves;
        else
          pk.measured.blocks_per_cu.reset();  // one wave: nothing to say
      }
    } else if (g.cat != TraceCategory::kernel) {
      pk.measured.workgroups = 1;  // a copy or set: one CU's worth at most, mostly engine work
    }
    // The CPU op around the launch: the op with the kernel's External id first, else the innermost
    // op of the kind on the launching thread.
    const TraceEvent* by_ext = nullptr;
    if (g.external_id) {
      if (auto it = op_by_ext.find(*g.external_id); it != op_by_ext.end()) by_ext = it->second;
    }
    auto around = [&](const OpIndex& index, bool (*fits)(const TraceEvent&)) -> const TraceEvent* {
      if (by_ext != nullptr && fits(*by_ext)) return by_ext;
      return k.launch != nullptr ? index.innermost(k.launch->tid, k.launch->ts) : nullptr;
    };
    if (g.cat == TraceCategory::kernel && nccl_kernel(gname)) {
      const TraceEvent* comm =
          g.has_message_sizes() ? &g
                                : around(comm_ops, [](const TraceEvent& e) { return e.has_message_sizes(); });
      const std::string coll_name = comm != nullptr ? t.strings.text(comm->collective_name) : "";
      const std::optional<CollectiveOp> op = coll_op_of_kernel(gname, coll_name);
      std::string why;
      if (!op) {
        r.unmapped.push_back(fmt::format(
            "{}: NCCL kernel that is no all-gather, reduce-scatter, all-reduce or all-to-all ('{}'), kept as "
            "measured",
            pk.name, comment_text(coll_name.empty() ? short_name(gname) : coll_name)));
      } else if (comm == nullptr) {
        r.unmapped.push_back(
            pk.name +
            ": NCCL kernel without message sizes (no In/Out msg nelems on it or its op), kept as measured");
      } else if (const std::optional<CollectiveSizes> c = collective_sizes(t, *comm, *op, &why); !c) {
        r.unmapped.push_back(fmt::format("{}: {}: kept as measured", pk.name, why));
      } else if (group != 0 && c->group != group) {
        r.unmapped.push_back(fmt::format("{}: collective over {} GPUs in a program over {}: kept as measured",
                                         pk.name, c->group, group));
      } else {
        group = c->group;
        pk.kind = KernelKind::collective;
        pk.collective.op = *op;
        pk.collective.bytes = c->bytes;
        ++r.collectives;
        if (g.grid_x > 0 && g.grid_x <= kMaxWorkgroups) {
          pk.collective.channels = g.grid_x;
          r.channels_from_grid.push_back(p.kernels.size());
        }
        const std::optional<NcclLaunchChoice> choice =
            amd_device ? std::nullopt : nccl_choice_of_block(t.nccl_version, g.block_x);
        if (choice && algorithm_runs(choice->algorithm, *op)) {
          pk.collective.algorithm = choice->algorithm;
          pk.collective.protocol = choice->protocol;
          r.choice_from_block.push_back(p.kernels.size());
        }
      }
    } else if (g.cat == TraceCategory::kernel && gemm_kernel_name(gname)) {
      const TraceEvent* op = around(matmul_ops, [](const TraceEvent& e) { return e.shapes >= 0; });
      std::string why;
      if (op == nullptr) {
        r.unmapped.push_back(
            pk.name + ": GEMM-library kernel with no aten matmul op around its launch, kept as measured");
      } else if (const std::optional<Gemm> gm = gemm_of_op(t, *op, &why)) {
        pk.kind = KernelKind::gemm;
        pk.gemm = *gm;
        ++r.gemms;
      } else {
        r.unmapped.push_back(
            fmt::format("{}: GEMM kernel: {}; kept as measured", pk.name, comment_text(why)));
      }
    }
    if (pk.kind == KernelKind::measured) ++r.measured;
    p.kernels.push_back(std::move(pk));
  }
  if (group != 0) p.gpus = group;
  p.measured_step_us = last_end - first_start;
  for (size_t i = 0; i < kernels.size(); ++i) p.kernels[i].traced_start_us = kernels[i].gpu->ts - first_start;
  r.first_kernel_ts_us = first_start;
  if (*p.measured_step_us > kMaxProgramTimeUs)
    fail(file, "traceEvents",
         fmt::format("the kernels span {} us, over the {} us a program may span", *p.measured_step_us,
                     kMaxProgramTimeUs));
  if (step) p.measured_profiler_step_us = step->second - step->first;
  for (const TraceDevice& d : t.devices) {
    if (d.id != device) continue;
    p.device = ProgramDevice{d.name, d.sms, d.memory_bytes, p.location};
    break;
  }

  // Cross-stream dependencies (torch_trace_dependencies.h).
  const TraceDependencies deps = trace_dependencies(t, kernels, device, step);
  for (const auto& [producer, consumer] : deps.edges)
    p.kernels[consumer].after.push_back(p.kernels[producer].name);
  r.dependencies = deps.counts;
  validate_program(p);
  return r;
}

}  // namespace

TorchImportResult import_torch_trace(const std::string& text, const std::string& file,
                                     const TorchImportOptions& options) {
  return import_events(read_torch_trace_string(text, file), options);
}

TorchImportResult import_torch_trace_file(const std::string& path, const TorchImportOptions& options) {
  return import_events(read_torch_trace_file(path), options);
}

std::string occupancy_summary(const TorchImportResult& r) {
  std::string s =
      fmt::format("measured kernels in waves of their launch's occupancy: {}", r.measured_in_waves);
  if (!r.high_priority_streams.empty())
    s += fmt::format(
        "; high-priority streams (PyTorch FSDP2's communication streams, created at priority -1): {}",
        fmt::join(r.high_priority_streams, ", "));
  return s;
}

std::string torch_import_yaml(const TorchImportResult& r, const std::string& trace_file) {
  const TraceDependencyCounts& d = r.dependencies;
  std::string head = fmt::format(
      "# Imported from the PyTorch profiler trace {} by `c3sim import --from torch-profiler`.\n"
      "# {} kernels: {} GEMMs, {} collectives, {} measured.\n"
      "# Cross-stream dependencies: {} exact (Stream Wait Event records), {} inferred (event record -> "
      "stream wait -> launch on one host thread); {} waits unresolved, {} within one stream.\n"
      "# Host time removed from launch gaps (blocked in synchronizing calls): {:.1f} us.\n"
      "# {}.\n",
      comment_text(trace_file), r.program.kernels.size(), r.gemms, r.collectives, r.measured, d.exact,
      d.inferred, d.unresolved, d.same_stream, r.blocked_host_us, occupancy_summary(r));
  if (r.nccl_log) head += "# " + nccl_log_summary(*r.nccl_log) + ".\n";
  if (r.collectives > 0) head += "# " + collective_choice_summary(r) + ".\n";
  head += fmt::format("# unmapped ({}):\n", r.unmapped.size());
  for (const auto& u : r.unmapped) head += "#   " + comment_text(u) + "\n";
  std::string yaml = program_to_yaml(r.program, head);
  if (yaml.size() > kMaxInputFileBytes) {
    throw InputError(
        SourceLocation{trace_file, 0, 0}, "traceEvents",
        fmt::format("the program would be {} bytes ({} kernels), over the {} MiB a program file may "
                    "have: import one profiler step (a ProfilerStep# annotation bounds the import)",
                    yaml.size(), r.program.kernels.size(), kMaxInputFileBytes >> 20));
  }
  return yaml;
}

}  // namespace c3sim::wl
