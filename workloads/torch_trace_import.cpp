// PyTorch profiler (Kineto) trace -> program. The rules are in torch_trace_import.h.
#include "workloads/torch_trace_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "workloads/program_io.h"

namespace c3sim::wl {

namespace {

using nlohmann::json;

struct Event {
  std::string name;
  std::string cat;
  std::string tid;  // as text: Kineto writes numbers or strings
  double ts = 0;
  double dur = 0;
  const json* args = nullptr;
  [[nodiscard]] double end() const { return ts + dur; }
};

std::string id_text(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer()) return std::to_string(j.get<std::int64_t>());
  return j.dump();
}

std::optional<std::int64_t> int_arg(const Event& e, const char* key) {
  if (e.args == nullptr || !e.args->contains(key)) return std::nullopt;
  const json& v = (*e.args)[key];
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number()) return static_cast<std::int64_t>(v.get<double>());
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) return std::stoll(s);
  }
  return std::nullopt;
}

std::string str_arg(const Event& e, const char* key) {
  if (e.args == nullptr || !e.args->contains(key) || !(*e.args)[key].is_string()) return "";
  return (*e.args)[key].get<std::string>();
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
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
  const std::string b = lower(base_name(full));
  for (const char* k : {"gemm", "nvjet", "cijk_", "xmma", "cutlass", "sgemm", "hgemm"}) {
    if (contains(b, k)) return true;
  }
  return false;
}

bool gemm_op(const std::string& name) {
  static const std::set<std::string> ops = {"aten::mm",        "aten::addmm",  "aten::bmm",
                                            "aten::baddbmm",   "aten::matmul", "aten::linear",
                                            "aten::_scaled_mm"};
  return ops.contains(name);
}

std::optional<Dtype> dtype_of_type(const std::string& t) {
  const std::string s = lower(t);
  if (contains(s, "bfloat16")) return Dtype::bf16;
  if (contains(s, "half")) return Dtype::fp16;
  if (contains(s, "float8")) return Dtype::fp8;
  if (s == "float" || contains(s, "float32")) return Dtype::fp32;
  return std::nullopt;
}

int elem_bytes(const std::string& dtype) {
  const std::string s = lower(dtype);
  if (contains(s, "bfloat16") || contains(s, "half") || s == "short") return 2;
  if (contains(s, "float8") || s == "byte" || s == "char" || s == "bool" || contains(s, "int8")) return 1;
  if (s == "long" || s == "double" || contains(s, "int64") || contains(s, "float64")) return 8;
  if (s == "float" || s == "int" || contains(s, "float32") || contains(s, "int32")) return 4;
  return 0;
}

using Dims = std::vector<std::int64_t>;

std::vector<Dims> input_dims(const Event& op) {
  std::vector<Dims> out;
  if (op.args == nullptr || !op.args->contains("Input Dims") || !(*op.args)["Input Dims"].is_array())
    return out;
  for (const json& d : (*op.args)["Input Dims"]) {
    Dims dims;
    if (d.is_array()) {
      for (const json& x : d) {
        if (x.is_number_integer()) dims.push_back(x.get<std::int64_t>());
      }
    }
    out.push_back(dims);
  }
  return out;
}

std::int64_t product(const Dims& d, size_t from, size_t to) {
  std::int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= d[i];
  return p;
}

// {m, n, k} of the op's logical product, or why not.
std::optional<Gemm> gemm_of_op(const Event& op, std::string* why) {
  const std::vector<Dims> in = input_dims(op);
  auto shape = [&](size_t a, size_t b) -> const Dims* {
    if (in.size() <= std::max(a, b)) return nullptr;
    return &in[a];
  };
  Gemm g;
  const std::string& n = op.name;
  size_t ia = 0, ib = 1;
  if (n == "aten::addmm" || n == "aten::baddbmm") ia = 1, ib = 2;
  if (shape(ia, ib) == nullptr) {
    *why = fmt::format("{} has no Input Dims (profile with record_shapes=True)", n);
    return std::nullopt;
  }
  const Dims& a = in[ia];
  const Dims& b = in[ib];
  if (n == "aten::linear") {
    // linear(x[..., K], W[N, K]): m = every leading dimension of x.
    if (a.empty() || b.size() != 2) {
      *why = fmt::format("{} with input dims of rank {} and {}", n, a.size(), b.size());
      return std::nullopt;
    }
    g.m = product(a, 0, a.size() - 1), g.n = b[0], g.k = b[1];
  } else {
    // mm/addmm [M,K]x[K,N]; bmm/baddbmm [B,M,K]x[B,K,N] (B folds into m); matmul of rank >= 2
    // operands: a's leading dimensions fold into m (a batched b multiplies the same batch).
    if (a.size() < 2 || b.size() < 2) {
      *why = fmt::format("{} with input dims of rank {} and {}", n, a.size(), b.size());
      return std::nullopt;
    }
    g.m = product(a, 0, a.size() - 1), g.k = a.back(), g.n = b.back();
    if (b[b.size() - 2] != g.k) {
      *why = fmt::format("{}: inner dimensions differ ({} vs {})", n, g.k, b[b.size() - 2]);
      return std::nullopt;
    }
  }
  if (g.m <= 0 || g.n <= 0 || g.k <= 0) {
    *why = fmt::format("{}: empty product", n);
    return std::nullopt;
  }
  g.dtype = Dtype::fp32;
  if (op.args->contains("Input type") && (*op.args)["Input type"].is_array() &&
      (*op.args)["Input type"].size() > ia && (*op.args)["Input type"][ia].is_string()) {
    const std::string t = (*op.args)["Input type"][ia].get<std::string>();
    const std::optional<Dtype> d = dtype_of_type(t);
    if (!d) {
      *why = fmt::format("{}: dtype '{}' has no c3sim GEMM model", n, t);
      return std::nullopt;
    }
    g.dtype = *d;
  }
  g.source = fmt::format("{} {}x{}x{}", n, g.m, g.n, g.k);
  return g;
}

std::optional<CollectiveOp> coll_op_of_kernel(const std::string& full, const std::string& coll_name) {
  const std::string b = lower(base_name(full)) + " " + lower(coll_name);
  if (contains(b, "allgather") || contains(b, "all_gather")) return CollectiveOp::all_gather;
  if (contains(b, "reducescatter") || contains(b, "reduce_scatter")) return CollectiveOp::reduce_scatter;
  if (contains(b, "allreduce") || contains(b, "all_reduce")) return CollectiveOp::all_reduce;
  if (contains(b, "alltoall") || contains(b, "all_to_all")) return CollectiveOp::all_to_all;
  return std::nullopt;
}

bool nccl_kernel(const std::string& full) {
  const std::string b = lower(base_name(full));
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

struct Kernel {
  const Event* gpu = nullptr;
  const Event* launch = nullptr;  // runtime call, nullptr if absent
  std::int64_t stream = 0;
  [[nodiscard]] double launch_ts() const { return launch != nullptr ? launch->ts : gpu->ts; }
};

// CPU ops by thread, sorted by start, for "innermost op around this launch".
class OpIndex {
public:
  void add(const Event* e) { by_tid_[e->tid].push_back(e); }
  void sort() {
    for (auto& [tid, v] : by_tid_) {
      std::stable_sort(v.begin(), v.end(), [](const Event* a, const Event* b) { return a->ts < b->ts; });
    }
  }
  // Ops on `tid` whose span contains t, outermost first.
  [[nodiscard]] std::vector<const Event*> around(const std::string& tid, double t) const {
    std::vector<const Event*> out;
    auto it = by_tid_.find(tid);
    if (it == by_tid_.end()) return out;
    const auto& v = it->second;
    const auto last =
        std::upper_bound(v.begin(), v.end(), t, [](double x, const Event* e) { return x < e->ts; });
    for (auto i = v.begin(); i != last; ++i) {
      if ((*i)->end() >= t) out.push_back(*i);
    }
    return out;
  }

private:
  std::map<std::string, std::vector<const Event*>> by_tid_;
};

[[noreturn]] void fail(const std::string& file, const std::string& key, const std::string& why) {
  throw InputError(SourceLocation{file, 0, 0}, key, why);
}

}  // namespace

TorchImportResult import_torch_trace(const std::string& text, const std::string& file,
                                     const TorchImportOptions& options) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) fail(file, "", "not JSON, so not a PyTorch profiler trace");
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    fail(file, "traceEvents", "no traceEvents array: not a PyTorch profiler (Chrome trace) file");
  if (options.rank && doc.contains("distributedInfo") && doc["distributedInfo"].is_object() &&
      doc["distributedInfo"].contains("rank") && doc["distributedInfo"]["rank"].is_number_integer()) {
    const int r = doc["distributedInfo"]["rank"].get<int>();
    if (r != *options.rank)
      fail(file, "distributedInfo.rank",
           fmt::format("trace is rank {}, --rank asks for {}", r, *options.rank));
  }

  std::vector<Event> events;
  events.reserve(doc["traceEvents"].size());
  for (const json& e : doc["traceEvents"]) {
    if (!e.is_object() || !e.contains("ph") || e["ph"] != "X" || !e.contains("ts") || !e["ts"].is_number())
      continue;
    Event ev;
    ev.name = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
    ev.cat = e.contains("cat") && e["cat"].is_string() ? e["cat"].get<std::string>() : "";
    ev.tid = e.contains("tid") ? id_text(e["tid"]) : "";
    ev.ts = e["ts"].get<double>();
    ev.dur = e.contains("dur") && e["dur"].is_number() ? std::max(0.0, e["dur"].get<double>()) : 0.0;
    ev.args = e.contains("args") && e["args"].is_object() ? &e["args"] : nullptr;
    events.push_back(std::move(ev));
  }

  // GPU work per device; runtime calls by correlation; CPU ops.
  std::map<std::int64_t, std::vector<const Event*>> gpu_by_device;
  std::map<std::int64_t, const Event*> runtime_by_corr;
  std::vector<const Event*> runtime, waits, steps;
  std::map<std::int64_t, const Event*> op_by_ext;
  OpIndex ops;
  for (const Event& e : events) {
    if (e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset") {
      gpu_by_device[int_arg(e, "device").value_or(0)].push_back(&e);
    } else if (e.cat == "cuda_runtime" || e.cat == "cuda_driver" || e.cat == "hip_runtime") {
      runtime.push_back(&e);
      if (auto c = int_arg(e, "correlation")) runtime_by_corr[*c] = &e;
    } else if (e.cat == "cuda_sync") {
      waits.push_back(&e);
    } else if (e.cat == "cpu_op" || e.cat == "user_annotation") {
      if (e.name.rfind("ProfilerStep#", 0) == 0) steps.push_back(&e);
      if (e.cat == "cpu_op") {
        ops.add(&e);
        if (auto x = int_arg(e, "External id")) op_by_ext.emplace(*x, &e);
      }
    }
  }
  ops.sort();
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
  if (!steps.empty()) {
    std::stable_sort(steps.begin(), steps.end(),
                     [](const Event* a, const Event* b) { return a->ts < b->ts; });
    step = {steps.front()->ts, steps.front()->end()};
  }

  std::vector<Kernel> kernels;
  for (const Event* g : gpu_by_device[device]) {
    Kernel k;
    k.gpu = g;
    k.stream = int_arg(*g, "stream").value_or(0);
    if (auto c = int_arg(*g, "correlation")) {
      if (auto it = runtime_by_corr.find(*c); it != runtime_by_corr.end()) k.launch = it->second;
    }
    if (step && (k.launch_ts() < step->first || k.launch_ts() > step->second)) continue;
    kernels.push_back(k);
  }
  if (kernels.empty()) fail(file, "traceEvents", "no GPU kernels launched inside the profiler step");
  std::stable_sort(kernels.begin(), kernels.end(), [](const Kernel& a, const Kernel& b) {
    if (a.launch_ts() != b.launch_ts()) return a.launch_ts() < b.launch_ts();
    return a.gpu->ts < b.gpu->ts;
  });

  TorchImportResult r;
  Program& p = r.program;
  p.name = options.name.empty() ? "torch_trace" : options.name;
  p.source = "PyTorch profiler trace " + file;
  p.location = SourceLocation{file, 0, 0};
  std::set<std::int64_t> stream_ids;
  for (const Kernel& k : kernels) stream_ids.insert(k.stream);
  for (std::int64_t s : stream_ids)
    p.streams.push_back(ProgramStream{fmt::format("stream{}", s), 0, std::nullopt, p.location});

  // Host time blocked in synchronizing calls, as sorted intervals.
  std::vector<std::pair<double, double>> blocked;
  for (const Event* e : runtime) {
    const bool sync =
        contains(e->name, "Synchronize") || (contains(e->name, "Memcpy") && !contains(e->name, "Async"));
    if (sync) blocked.emplace_back(e->ts, e->end());
  }
  std::sort(blocked.begin(), blocked.end());
  auto blocked_in = [&](double from, double to) {
    double sum = 0;
    for (const auto& [a, b] : blocked) sum += std::max(0.0, std::min(b, to) - std::max(a, from));
    return sum;
  };
  std::vector<double> wait_calls;  // host times of cudaStreamWaitEvent calls
  for (const Event* e : runtime) {
    if (contains(e->name, "StreamWaitEvent")) wait_calls.push_back(e->ts);
  }
  std::sort(wait_calls.begin(), wait_calls.end());

  const int group_default = 0;
  int group = group_default;
  double first_start = std::numeric_limits<double>::infinity(), last_end = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    const Event& g = *k.gpu;
    first_start = std::min(first_start, g.ts);
    last_end = std::max(last_end, g.end());
    ProgramKernel pk;
    pk.name = fmt::format("k{:04}_{}", i, short_name(g.name));
    pk.stream = fmt::format("stream{}", k.stream);
    pk.location = p.location;
    if (i > 0) {
      const double from = kernels[i - 1].launch_ts(), to = k.launch_ts();
      const double removed = blocked_in(from, to);
      r.blocked_host_us += removed;
      pk.gap_us = std::max(0.0, to - from - removed);
    }
    if (k.launch == nullptr)
      r.unmapped.push_back(pk.name + ": no runtime call with its correlation (launch time = its GPU start)");
    pk.kind = KernelKind::measured;
    pk.measured.time_us = std::max(g.dur, 1e-3);
    pk.measured.source = g.name;
    if (g.cat == "kernel" && g.args != nullptr && g.args->contains("grid") && (*g.args)["grid"].is_array()) {
      std::int64_t wgs = 1;
      for (const json& x : (*g.args)["grid"])
        wgs *= x.is_number_integer() ? std::max<std::int64_t>(1, x.get<std::int64_t>()) : 1;
      pk.measured.workgroups = static_cast<int>(std::min<std::int64_t>(wgs, 1 << 20));
    } else if (g.cat != "kernel") {
      pk.measured.workgroups = 1;  // a copy or set: one CU's worth at most, mostly engine work
    }
    // The CPU ops around the launch, innermost last; the op with the kernel's External id first.
    std::vector<const Event*> around;
    if (k.launch != nullptr) around = ops.around(k.launch->tid, k.launch->ts);
    if (auto x = int_arg(g, "External id")) {
      if (auto it = op_by_ext.find(*x); it != op_by_ext.end()) around.push_back(it->second);
    }
    if (g.cat == "kernel" && nccl_kernel(g.name)) {
      const Event* comm = nullptr;
      if (g.args != nullptr && (g.args->contains("In msg nelems") || g.args->contains("Out msg nelems")))
        comm = &g;
      for (auto it = around.rbegin(); comm == nullptr && it != around.rend(); ++it) {
        if ((*it)->args != nullptr &&
            ((*it)->args->contains("In msg nelems") || (*it)->args->contains("Out msg nelems")))
          comm = *it;
      }
      const std::string coll_name = comm != nullptr ? str_arg(*comm, "Collective name") : "";
      const std::optional<CollectiveOp> op = coll_op_of_kernel(g.name, coll_name);
      if (!op) {
        r.unmapped.push_back(
            fmt::format("{}: NCCL kernel that is no all-gather, reduce-scatter, all-reduce or "
                        "all-to-all ('{}'), kept as measured",
                        pk.name, coll_name.empty() ? short_name(g.name) : coll_name));
      } else if (comm == nullptr) {
        r.unmapped.push_back(
            pk.name +
            ": NCCL kernel without message sizes (no In/Out msg nelems on it or its op), kept as measured");
      } else {
        const std::int64_t in = int_arg(*comm, "In msg nelems").value_or(0);
        const std::int64_t out = int_arg(*comm, "Out msg nelems").value_or(0);
        const int gs = static_cast<int>(int_arg(*comm, "Group size").value_or(0));
        const int eb = elem_bytes(str_arg(*comm, "dtype"));
        std::int64_t elems = 0;
        switch (*op) {
          case CollectiveOp::all_gather: elems = out > 0 ? out : in * gs; break;
          case CollectiveOp::reduce_scatter: elems = in > 0 ? in : out * gs; break;
          default: elems = in > 0 ? in : out; break;
        }
        if (eb == 0 || elems <= 0 || gs < 2) {
          r.unmapped.push_back(
              fmt::format("{}: collective with dtype '{}', {} elements, group size {}: kept as measured",
                          pk.name, str_arg(*comm, "dtype"), elems, gs));
        } else if (group != 0 && gs != group) {
          r.unmapped.push_back(fmt::format(
              "{}: collective over {} GPUs in a program over {}: kept as measured", pk.name, gs, group));
        } else {
          group = gs;
          pk.kind = KernelKind::collective;
          pk.collective.op = *op;
          pk.collective.bytes = elems * eb;
          ++r.collectives;
        }
      }
    } else if (g.cat == "kernel") {
      const Event* op = nullptr;
      for (auto it = around.rbegin(); op == nullptr && it != around.rend(); ++it) {
        if (gemm_op((*it)->name)) op = *it;
      }
      if (gemm_kernel_name(g.name) && op == nullptr) {
        r.unmapped.push_back(
            pk.name + ": GEMM-library kernel with no aten matmul op around its launch, kept as measured");
      } else if (gemm_kernel_name(g.name)) {
        std::string why;
        if (const std::optional<Gemm> gm = gemm_of_op(*op, &why)) {
          pk.kind = KernelKind::gemm;
          pk.gemm = *gm;
          ++r.gemms;
        } else {
          r.unmapped.push_back(fmt::format("{}: GEMM kernel: {}; kept as measured", pk.name, why));
        }
      }
    }
    if (pk.kind == KernelKind::measured) ++r.measured;
    p.kernels.push_back(std::move(pk));
  }
  if (group != 0) p.gpus = group;
  p.measured_step_us = last_end - first_start;
  if (step) p.measured_profiler_step_us = step->second - step->first;

  // Cross-stream dependencies.
  std::map<std::int64_t, std::vector<size_t>> on_stream;  // launch order
  for (size_t i = 0; i < kernels.size(); ++i) on_stream[kernels[i].stream].push_back(i);
  auto add_edge = [&](size_t producer, size_t consumer) {
    auto& after = p.kernels[consumer].after;
    const std::string& n = p.kernels[producer].name;
    if (std::find(after.begin(), after.end(), n) != after.end()) return false;
    after.push_back(n);
    return true;
  };
  // Last kernel launched on `stream` before host time t; -1 if none.
  auto last_before = [&](std::int64_t stream, double t) -> long {
    long best = -1;
    for (size_t i : on_stream[stream]) {
      if (kernels[i].launch_ts() < t) best = static_cast<long>(i);
    }
    return best;
  };
  auto first_after = [&](std::int64_t stream, double t) -> long {
    for (size_t i : on_stream[stream]) {
      if (kernels[i].launch_ts() > t) return static_cast<long>(i);
    }
    return -1;
  };
  bool have_sync_records = false;
  for (const Event* w : waits) {
    if (!contains(w->name, "Wait Event") || int_arg(*w, "device").value_or(device) != device) continue;
    const auto on = int_arg(*w, "wait_on_stream");
    const auto rec = int_arg(*w, "wait_on_cuda_event_record_corr_id");
    const auto stream = int_arg(*w, "stream");
    const auto corr = int_arg(*w, "correlation");
    if (!on || !rec || !stream || !corr) continue;
    have_sync_records = true;
    const auto rec_call = runtime_by_corr.find(*rec);
    const auto wait_call = runtime_by_corr.find(*corr);
    if (rec_call == runtime_by_corr.end() || wait_call == runtime_by_corr.end() || *on == *stream) continue;
    const long producer = last_before(*on, rec_call->second->ts);
    const long consumer = first_after(*stream, wait_call->second->ts);
    if (producer < 0 || consumer < 0 || producer == consumer) continue;
    if (add_edge(static_cast<size_t>(producer), static_cast<size_t>(consumer))) ++r.event_edges;
  }
  if (!have_sync_records) {
    for (size_t b = 0; b < kernels.size(); ++b) {
      const Kernel& kb = kernels[b];
      if (kb.launch == nullptr) continue;
      const auto& mine = on_stream[kb.stream];
      const auto pos = std::find(mine.begin(), mine.end(), b);
      const double prev_end =
          pos == mine.begin() ? -std::numeric_limits<double>::infinity() : kernels[*(pos - 1)].gpu->end();
      long pick = -1;
      for (size_t a = 0; a < b; ++a) {  // launched before b
        const Kernel& ka = kernels[a];
        if (ka.stream == kb.stream) continue;
        const double ae = ka.gpu->end();
        if (ae > kb.gpu->ts || kb.gpu->ts - ae > kInferTolUs) continue;
        if (!(kb.launch->end() < ae && prev_end < ae)) continue;
        if (!wait_calls.empty()) {
          const auto w = std::upper_bound(wait_calls.begin(), wait_calls.end(), ka.launch_ts());
          if (w == wait_calls.end() || *w > kb.launch_ts()) continue;
        }
        if (pick < 0 || ae > kernels[static_cast<size_t>(pick)].gpu->end()) pick = static_cast<long>(a);
      }
      if (pick >= 0 && add_edge(static_cast<size_t>(pick), b)) ++r.inferred_edges;
    }
  }
  validate_program(p);
  return r;
}

std::string torch_import_yaml(const TorchImportResult& r, const std::string& trace_file) {
  std::string head = fmt::format(
      "# Imported from the PyTorch profiler trace {} by `c3sim import --from torch-profiler`.\n"
      "# {} kernels: {} GEMMs, {} collectives, {} measured; cross-stream dependencies: {} from event "
      "records, {} inferred.\n"
      "# Host time removed from launch gaps (blocked in synchronizing calls): {:.1f} us.\n",
      trace_file, r.program.kernels.size(), r.gemms, r.collectives, r.measured, r.event_edges,
      r.inferred_edges, r.blocked_host_us);
  head += fmt::format("# unmapped ({}):\n", r.unmapped.size());
  for (const auto& u : r.unmapped) head += "#   " + u + "\n";
  return head + programs_to_yaml({r.program});
}

}  // namespace c3sim::wl
