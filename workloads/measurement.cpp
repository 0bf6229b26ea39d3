// The measurement schema's JSON form. Writing omits optional and empty fields; reading is strict
// (StrictJsonObject) so a typo in a hand-edited or foreign file is an error, not a silent zero.
#include "workloads/measurement.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "sim/base/ascii_case.h"
#include "sim/base/dtype.h"
#include "sim/base/input_file.h"
#include "workloads/collective.h"
#include "workloads/input_limits.h"
#include "workloads/program.h"
#include "workloads/strict_json.h"

namespace c3sim::wl {

namespace {

using nlohmann::json;

constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr std::int64_t kMaxI64 = std::numeric_limits<std::int64_t>::max();

json header(const char* kind) {
  return json{{"schema", kSchemaName}, {"version", kSchemaVersion}, {"kind", kind}};
}

double finite(double v, const char* key) {
  if (!std::isfinite(v)) throw ModelError(fmt::format("measurement field '{}' is not finite ({})", key, v));
  return v;
}

void put(json& j, const char* key, double v) { j[key] = finite(v, key); }
void put_opt(json& j, const char* key, const std::optional<double>& v) {
  if (v) put(j, key, *v);
}
void put_opt(json& j, const char* key, const std::optional<int>& v) {
  if (v) j[key] = *v;
}
void put_nonempty(json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}
void put_nonempty(json& j, const char* key, const json& v) {
  if (!v.is_null() && !v.empty()) j[key] = v;
}

void put_shape(json& j, std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dtype) {
  j["m"] = m;
  j["n"] = n;
  j["k"] = k;
  j["dtype"] = dtype;
}

// --- reading ---------------------------------------------------------------------------------

std::string dtype_field(StrictJsonObject& o) {
  std::string d = o.string("dtype");
  if (!parse_dtype(d)) o.fail("dtype", fmt::format("unknown dtype '{}'", d));
  return d;
}

std::string op_field(StrictJsonObject& o) {
  const std::string s = o.string("op");
  const std::optional<CollectiveOp> op = parse_collective_op(s);
  if (!op) o.fail("op", fmt::format("unknown collective '{}'", s));
  return to_string(*op);
}

std::string impl_field(StrictJsonObject& o) {
  const std::string s = o.string("impl");
  const std::optional<CollectiveImpl> impl = parse_collective_impl(s);
  if (!impl) o.fail("impl", fmt::format("unknown collective implementation '{}'", s));
  return to_string(*impl);
}

// Times must be positive: a zero time is a failed or unrecorded run, and every ratio (speedup,
// percent of ideal, calibration's log error) divides by it.
double positive_time(StrictJsonObject& o, const char* key) {
  const double t = o.number(key, 0);
  if (!(t > 0)) o.fail(key, fmt::format("{} is not a positive time in us", t));
  return t;
}

std::string string_field(StrictJsonObject& o, const char* key) {
  std::string s = o.string(key);
  if (has_control_character(s, /*allow_whitespace=*/false)) o.fail(key, "holds a control character");
  return s;
}

// The shared workload bounds (workloads/input_limits.h), at this record's line.
void check_shape(StrictJsonObject& o, std::int64_t m, std::int64_t n, std::int64_t k) {
  check_gemm_shape(m, n, k, o.where(), "");
}

int gpu_count(StrictJsonObject& o) {
  const std::int64_t g = o.integer("gpus", std::numeric_limits<std::int64_t>::min(), kMaxI64);
  check_gpu_count(g, o.where(), "gpus");
  return static_cast<int>(g);
}

int positive_int(StrictJsonObject& o, const char* key) {
  return static_cast<int>(o.integer(key, 1, kMaxInt));
}

std::optional<int> optional_positive_int(StrictJsonObject& o, const char* key) {
  const auto v = o.optional_integer(key, 1, kMaxInt);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

// The GEMM every iso_gemm and c3 record carries: m, n, k within the model's limits, then dtype.
template <class R>
void read_gemm_shape(StrictJsonObject& o, R& r) {
  r.m = o.integer("m", 1, kMaxI64);
  r.n = o.integer("n", 1, kMaxI64);
  r.k = o.integer("k", 1, kMaxI64);
  check_shape(o, r.m, r.n, r.k);
  r.dtype = dtype_field(o);
}

// The repetition fields every timed record ends with (before its free-form objects).
template <class R>
void read_spread_and_trials(StrictJsonObject& o, R& r) {
  r.spread_us = o.optional_number("spread_us", 0);
  r.trials = positive_int(o, "trials");
}

EnvRecord read_env(StrictJsonObject& o, std::int64_t schema_version) {
  EnvRecord r;
  r.producer = string_field(o, "producer");
  r.hardware = string_field(o, "hardware");
  r.gpus = positive_int(o, "gpus");
  // Optional: logs of collective benchmarks (nccl-tests) do not say how many CUs a GPU has.
  r.cus_per_gpu = optional_positive_int(o, "cus_per_gpu").value_or(0);
  // Schema 1 predates the field; from 2 on every env record names the release that wrote it.
  r.c3sim_version = schema_version >= 2 || o.has("c3sim_version") ? string_field(o, "c3sim_version") : "";
  r.details = o.optional_object("details");
  return r;
}

IsoGemmRecord read_iso_gemm(StrictJsonObject& o) {
  IsoGemmRecord r;
  r.tag = o.has("tag") ? string_field(o, "tag") : "";
  read_gemm_shape(o, r);
  r.cus = positive_int(o, "cus");
  r.time_us = positive_time(o, "time_us");
  read_spread_and_trials(o, r);
  r.extra = o.optional_object("extra");
  return r;
}

// extra.channels / algorithm / protocol, where present (null: not known, as absent): the library's
// own choices for the call.
void read_library_choices(IsoCollRecord& r, const SourceLocation& where) {
  if (const auto it = r.extra.find("channels"); it != r.extra.end() && !it->is_null()) {
    if (!it->is_number_integer())
      throw InputError(where, "extra.channels", "must be a positive integer (the channels the library ran)");
    // 1 .. the workgroup limit; an unsigned beyond int64 stays huge rather than wrapping negative.
    const std::int64_t channels =
        it->is_number_unsigned()
            ? static_cast<std::int64_t>(std::min<std::uint64_t>(it->get<std::uint64_t>(), kMaxI64))
            : it->get<std::int64_t>();
    check_workgroups(channels, where, "extra.channels");
    r.channels = static_cast<int>(channels);
  }
  if (const auto it = r.extra.find("algorithm"); it != r.extra.end() && !it->is_null()) {
    r.algorithm =
        it->is_string() ? parse_collective_algorithm(ascii_lowercase(it->get<std::string>())) : std::nullopt;
    if (!r.algorithm)
      throw InputError(where, "extra.algorithm", "must be one of ring, tree, direct (any case)");
    const auto op = parse_collective_op(r.op);
    if (op && !algorithm_runs(*r.algorithm, *op))
      throw InputError(
          where, "extra.algorithm",
          fmt::format("{} does not run {} (it runs: {})", to_string(*r.algorithm), r.op, algorithms_of(*op)));
  }
  if (const auto it = r.extra.find("protocol"); it != r.extra.end() && !it->is_null()) {
    r.protocol =
        it->is_string() ? parse_collective_protocol(ascii_lowercase(it->get<std::string>())) : std::nullopt;
    if (!r.protocol) throw InputError(where, "extra.protocol", "must be one of ll, ll128, simple (any case)");
  }
}

IsoCollRecord read_iso_coll(StrictJsonObject& o) {
  IsoCollRecord r;
  r.op = op_field(o);
  r.bytes = o.integer("bytes", 1, kMaxI64);
  r.impl = impl_field(o);
  r.gpus = gpu_count(o);
  // The element type is not recorded: the output must at least split into its blocks (one per GPU,
  // or one for a reduce-scatter, whose input of one block per GPU then always splits).
  check_collective_bytes(r.bytes, output_blocks(*parse_collective_op(r.op), r.gpus), 1, o.where(), "bytes");
  r.workgroups = optional_positive_int(o, "workgroups");
  if (r.workgroups) check_workgroups(*r.workgroups, o.where(), "workgroups");
  r.engines = optional_positive_int(o, "engines");
  r.time_us = positive_time(o, "time_us");
  read_spread_and_trials(o, r);
  r.extra = o.optional_object("extra");
  read_library_choices(r, o.where());
  return r;
}

C3Record read_c3(StrictJsonObject& o) {
  C3Record r;
  r.scenario = string_field(o, "scenario");
  r.policy = string_field(o, "policy");
  r.gemm_tag = o.has("gemm_tag") ? string_field(o, "gemm_tag") : "";
  read_gemm_shape(o, r);
  r.op = op_field(o);
  r.bytes = o.integer("bytes", 1, kMaxI64);
  r.impl = impl_field(o);
  r.gpus = gpu_count(o);
  check_collective_bytes(r.bytes, output_blocks(*parse_collective_op(r.op), r.gpus),
                         dtype_bytes(*parse_dtype(r.dtype)), o.where(), "bytes");
  r.time_us = positive_time(o, "time_us");
  r.gemm_time_us = o.number("gemm_time_us", 0);
  r.coll_time_us = o.number("coll_time_us", 0);
  r.iso_gemm_us = o.optional_number("iso_gemm_us", 0);
  r.iso_coll_us = o.optional_number("iso_coll_us", 0);
  r.speedup = o.optional_number("speedup", 0);
  r.ideal_speedup = o.optional_number("ideal_speedup", 0);
  // Negative when C3 runs slower than serial (the paper's Fig. 8 has such bars): no lower bound.
  r.percent_of_ideal = o.optional_number("percent_of_ideal", -std::numeric_limits<double>::infinity());
  read_spread_and_trials(o, r);
  r.attribution = o.optional_object("attribution");
  r.extra = o.optional_object("extra");
  r.where = o.where();
  return r;
}

IsoCopyRecord read_iso_copy(StrictJsonObject& o) {
  IsoCopyRecord r;
  r.pattern = o.string("pattern");
  if (r.pattern != "local" && r.pattern != "push" && r.pattern != "pull" && r.pattern != "bidirectional") {
    o.fail("pattern", fmt::format("unknown copy pattern '{}' (local, push, pull, bidirectional)", r.pattern));
  }
  r.bytes = o.integer("bytes", 1, kMaxI64);
  r.gpus = positive_int(o, "gpus");
  r.peers = static_cast<int>(o.integer("peers", 0, kMaxInt));
  r.streams = positive_int(o, "streams");
  r.chunks = positive_int(o, "chunks");
  r.batched = o.boolean("batched");
  r.time_us = o.number("time_us", 0);
  read_spread_and_trials(o, r);
  r.extra = o.optional_object("extra");
  return r;
}

FusedStepRecord read_fused_step(StrictJsonObject& o) {
  FusedStepRecord r;
  r.step = o.string("step");
  if (r.step != "embedding_all_to_all") {
    o.fail("step", fmt::format("unknown fused step '{}' (embedding_all_to_all)", r.step));
  }
  r.variant = o.string("variant");
  if (r.variant != "lookup" && r.variant != "all_to_all" && r.variant != "bulk" && r.variant != "fused") {
    o.fail("variant", fmt::format("unknown variant '{}' (lookup, all_to_all, bulk, fused)", r.variant));
  }
  r.gpus = gpu_count(o);
  r.batch = o.integer("batch", 1, kMaxI64);
  r.tables = o.integer("tables", 1, kMaxI64);
  r.dim = o.integer("dim", 1, kMaxI64);
  r.pooling = o.integer("pooling", 1, kMaxI64);
  r.rows = o.integer("rows", 1, kMaxI64);
  r.dtype = o.string("dtype");
  if (r.dtype != "fp32" && r.dtype != "bf16")
    o.fail("dtype", fmt::format("'{}' is not fp32 or bf16", r.dtype));
  r.bytes = o.integer("bytes", 1, kMaxI64);
  r.chunk = optional_positive_int(o, "chunk");
  r.time_us = o.number("time_us", 0);
  read_spread_and_trials(o, r);
  r.extra = o.optional_object("extra");
  return r;
}

ProgramKernelRecord read_program_kernel(const json& j, const SourceLocation& where) {
  StrictJsonObject o(j, where);
  ProgramKernelRecord k;
  k.name = o.string("name");
  k.kind = o.string("kind");
  // A row names its kernel as the program file's kind does (c3bench writes wl::to_string).
  std::string kinds;
  bool known = false;
  for (const KernelKind kind : kKernelKinds) {
    known = known || k.kind == to_string(kind);
    kinds += fmt::format("{}{}", kinds.empty() ? "" : ", ", to_string(kind));
  }
  if (!known) o.fail("kind", fmt::format("unknown kernel kind '{}' ({})", k.kind, kinds));
  k.stream = o.string("stream");
  k.launch_us = o.number("launch_us", 0);
  k.ready_us = o.number("ready_us", 0);
  k.start_us = o.number("start_us", 0);
  k.end_us = o.number("end_us", 0);
  k.iso_us = o.optional_number("iso_us", 0);
  k.attribution = o.optional_object("attribution");
  o.finish();
  return k;
}

// The kernel list is an array of objects, each read as strictly as a record; the rest of the
// record is read from a copy without it (StrictJsonObject reads scalars and objects).
ProgramRecord read_program(const json& j, const SourceLocation& where) {
  json rest = j;
  const json kernels = rest.contains("kernels") ? rest.at("kernels") : json();
  rest.erase("kernels");
  StrictJsonObject o(rest, where);
  (void)o.string("schema");  // checked by the caller
  (void)o.integer("version", std::numeric_limits<std::int64_t>::min(), kMaxI64);
  (void)o.string("kind");
  if (!kernels.is_array()) o.fail("kernels", "expected an array of kernel objects");
  ProgramRecord r;
  for (const json& k : kernels) r.kernels.push_back(read_program_kernel(k, where));
  r.program = o.string("program");
  r.policy = o.string("policy");
  r.gpus = positive_int(o, "gpus");
  r.step_us = positive_time(o, "step_us");  // a step takes time; validate divides by it
  r.serial_us = o.optional_number("serial_us", 0);
  r.ideal_us = o.optional_number("ideal_us", 0);
  // Negative when the program runs slower than serial: no lower bound.
  r.overlap_percent = o.optional_number("overlap_percent", -std::numeric_limits<double>::infinity());
  read_spread_and_trials(o, r);
  r.extra = o.optional_object("extra");
  o.finish();
  r.where = where;
  return r;
}

}  // namespace

json to_json(const ProgramRecord& r) {
  json j = header("program");
  j["program"] = r.program;
  j["policy"] = r.policy;
  j["gpus"] = r.gpus;
  put(j, "step_us", r.step_us);
  put_opt(j, "serial_us", r.serial_us);
  put_opt(j, "ideal_us", r.ideal_us);
  put_opt(j, "overlap_percent", r.overlap_percent);
  json ks = json::array();
  for (const auto& k : r.kernels) {
    json e;
    e["name"] = k.name;
    e["kind"] = k.kind;
    e["stream"] = k.stream;
    put(e, "launch_us", k.launch_us);
    put(e, "ready_us", k.ready_us);
    put(e, "start_us", k.start_us);
    put(e, "end_us", k.end_us);
    put_opt(e, "iso_us", k.iso_us);
    if (!k.attribution.empty()) e["attribution"] = k.attribution;
    ks.push_back(std::move(e));
  }
  j["kernels"] = std::move(ks);
  put_opt(j, "spread_us", r.spread_us);
  j["trials"] = r.trials;
  put_nonempty(j, "extra", r.extra);
  return j;
}

json to_json(const EnvRecord& r) {
  json j = header("env");
  j["producer"] = r.producer;
  j["hardware"] = r.hardware;
  j["gpus"] = r.gpus;
  if (r.cus_per_gpu > 0) j["cus_per_gpu"] = r.cus_per_gpu;
  // A schema-1 record read without it is written as "unknown": what is written is schema 2, whose
  // env records must name the release.
  j["c3sim_version"] = r.c3sim_version.empty() ? std::string(kUnknownRelease) : r.c3sim_version;
  put_nonempty(j, "details", r.details);
  return j;
}

json to_json(const IsoGemmRecord& r) {
  json j = header("iso_gemm");
  put_nonempty(j, "tag", r.tag);
  put_shape(j, r.m, r.n, r.k, r.dtype);
  j["cus"] = r.cus;
  put(j, "time_us", r.time_us);
  put_opt(j, "spread_us", r.spread_us);
  j["trials"] = r.trials;
  put_nonempty(j, "extra", r.extra);
  return j;
}

json to_json(const IsoCollRecord& r) {
  json j = header("iso_coll");
  j["op"] = r.op;
  j["bytes"] = r.bytes;
  j["impl"] = r.impl;
  j["gpus"] = r.gpus;
  put_opt(j, "workgroups", r.workgroups);
  put_opt(j, "engines", r.engines);
  put(j, "time_us", r.time_us);
  put_opt(j, "spread_us", r.spread_us);
  j["trials"] = r.trials;
  put_nonempty(j, "extra", r.extra);
  return j;
}

json to_json(const C3Record& r) {
  json j = header("c3");
  j["scenario"] = r.scenario;
  j["policy"] = r.policy;
  put_nonempty(j, "gemm_tag", r.gemm_tag);
  put_shape(j, r.m, r.n, r.k, r.dtype);
  j["op"] = r.op;
  j["bytes"] = r.bytes;
  j["impl"] = r.impl;
  j["gpus"] = r.gpus;
  put(j, "time_us", r.time_us);
  put(j, "gemm_time_us", r.gemm_time_us);
  put(j, "coll_time_us", r.coll_time_us);
  put_opt(j, "iso_gemm_us", r.iso_gemm_us);
  put_opt(j, "iso_coll_us", r.iso_coll_us);
  put_opt(j, "speedup", r.speedup);
  put_opt(j, "ideal_speedup", r.ideal_speedup);
  put_opt(j, "percent_of_ideal", r.percent_of_ideal);
  put_opt(j, "spread_us", r.spread_us);
  j["trials"] = r.trials;
  put_nonempty(j, "attribution", r.attribution);
  put_nonempty(j, "extra", r.extra);
  return j;
}

json to_json(const IsoCopyRecord& r) {
  json j = header("iso_copy");
  j["pattern"] = r.pattern;
  j["bytes"] = r.bytes;
  j["gpus"] = r.gpus;
  j["peers"] = r.peers;
  j["streams"] = r.streams;
  j["chunks"] = r.chunks;
  j["batched"] = r.batched;
  put(j, "time_us", r.time_us);
  put_opt(j, "spread_us", r.spread_us);
  j["trials"] = r.trials;
  put_nonempty(j, "extra", r.extra);
  return j;
}

json to_json(const FusedStepRecord& r) {
  json j = header("fused_step");
  j["step"] = r.step;
  j["variant"] = r.variant;
  j["gpus"] = r.gpus;
  j["batch"] = r.batch;
  j["tables"] = r.tables;
  j["dim"] = r.dim;
  j["pooling"] = r.pooling;
  j["rows"] = r.rows;
  j["dtype"] = r.dtype;
  j["bytes"] = r.bytes;
  put_opt(j, "chunk", r.chunk);
  put(j, "time_us", r.time_us);
  put_opt(j, "spread_us", r.spread_us);
  j["trials"] = r.trials;
  put_nonempty(j, "extra", r.extra);
  return j;
}

json to_json(const Record& r) {
  return std::visit([](const auto& x) { return to_json(x); }, r);
}

const char* kind_of(const Record& r) {
  struct Kind {
    const char* operator()(const EnvRecord&) const { return "env"; }
    const char* operator()(const IsoGemmRecord&) const { return "iso_gemm"; }
    const char* operator()(const IsoCollRecord&) const { return "iso_coll"; }
    const char* operator()(const C3Record&) const { return "c3"; }
    const char* operator()(const IsoCopyRecord&) const { return "iso_copy"; }
    const char* operator()(const ProgramRecord&) const { return "program"; }
    const char* operator()(const FusedStepRecord&) const { return "fused_step"; }
  };
  return std::visit(Kind{}, r);
}

Record record_from_json(const json& j, const SourceLocation& where) {
  StrictJsonObject o(j, where);
  const std::string schema = o.string("schema");
  if (schema != kSchemaName) o.fail("schema", fmt::format("'{}' is not '{}'", schema, kSchemaName));
  const std::int64_t version = o.integer("version", std::numeric_limits<std::int64_t>::min(), kMaxI64);
  if (version > kSchemaVersion) {
    o.fail("version",
           fmt::format("schema version {} is newer than this build reads ({})", version, kSchemaVersion));
  }
  if (version < 1) o.fail("version", fmt::format("schema version {} does not exist (first is 1)", version));
  const std::string kind = o.string("kind");
  Record r;
  if (kind == "env") {
    r = read_env(o, version);
  } else if (kind == "iso_gemm") {
    r = read_iso_gemm(o);
  } else if (kind == "iso_coll") {
    r = read_iso_coll(o);
  } else if (kind == "c3") {
    r = read_c3(o);
  } else if (kind == "iso_copy") {
    r = read_iso_copy(o);
  } else if (kind == "fused_step") {
    r = read_fused_step(o);
  } else if (kind == "program") {
    return read_program(j, where);  // reads (and finishes) its own copy
  } else {
    o.fail(
        "kind",
        fmt::format("unknown record kind '{}' (env, iso_gemm, iso_coll, c3, iso_copy, program, fused_step)",
                    kind));
  }
  o.finish();
  return r;
}

std::vector<Record> read_measurements_string(const std::string& text, const std::string& label) {
  std::vector<Record> out;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    check_json_depth(line, kMaxRecordDepth, SourceLocation{label, line_no, 0});
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error& e) {
      const int column = e.byte > static_cast<std::size_t>(kMaxInt) ? 0 : static_cast<int>(e.byte);
      throw InputError(SourceLocation{label, line_no, column}, "",
                       fmt::format("malformed JSON: {}", e.what()));
    } catch (const json::exception& e) {  // e.g. out_of_range 406: a number too large for a double
      throw InputError(SourceLocation{label, line_no, 0}, "", fmt::format("unreadable JSON: {}", e.what()));
    }
    out.push_back(record_from_json(j, SourceLocation{label, line_no, 0}));
  }
  return out;
}

std::vector<Record> read_measurements(const std::string& path) {
  return read_measurements_string(read_input_file(path), path);
}

std::string to_jsonl(const std::vector<Record>& records) {
  std::string out;
  for (const Record& r : records) {
    out += to_json(r).dump();
    out += '\n';
  }
  return out;
}

std::string format_double(double v) { return fmt::format("{}", v); }

}  // namespace c3sim::wl
