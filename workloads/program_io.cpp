// Reading and writing program YAML (format in program_io.h and docs/programs.md). Parse with
// StrictMap so every key is accounted for, then validate_program() checks the structure.
#include "workloads/program_io.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "workloads/input_limits.h"
#include "workloads/workload_yaml_fields.h"

namespace c3sim::wl {

namespace {

// Bounds that no real workload reaches (GEMM sides and byte counts: workload_yaml_fields.cpp,
// the same bounds as scenario files).
constexpr std::int64_t kMaxGpus = 1 << 12;
constexpr std::int64_t kMaxWorkgroups = 1 << 20;
// Resident workgroups per CU: 32 on NVIDIA compute capability 7.0-10.x, 32 on CDNA3 (2,048
// threads in workgroups of at least 64); the bound only rejects nonsense.
constexpr std::int64_t kMaxBlocksPerCu = 64;
constexpr std::int64_t kMaxCus = 1 << 16;
constexpr std::int64_t kMaxGatherRows = 1 << 16;    // rows pooled per item
constexpr std::int64_t kMaxThreadsPerCu = 1 << 12;  // 2048 on Hopper and CDNA3

// yaml-cpp keeps the first of two equal keys and drops the other silently; a program file with
// two `after:` keys would then run something other than what its author reads.
void reject_duplicate_keys(const YAML::Node& node, const std::string& file, const std::string& path) {
  if (node.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      const std::string here = path.empty() ? key : fmt::format("{}.{}", path, key);
      if (!seen.insert(key).second) throw InputError(location_of(kv.first, file), here, "duplicate key");
      reject_duplicate_keys(kv.second, file, here);
    }
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      reject_duplicate_keys(node[i], file, fmt::format("{}[{}]", path, i));
    }
  }
}

// Program files leave the byte bound out of their over-the-bound message (workload_yaml_fields.h).
std::int64_t parse_bytes(StrictMap& m, const std::string& key) {
  return byte_count(m, key, BoundInMessage::omitted);
}

// Times in microseconds: finite, within 0..kMaxProgramTimeUs (the engine counts integer picoseconds).
double non_negative(StrictMap& m, const std::string& key) {
  const double v = m.number(key);
  if (!(v >= 0) || !std::isfinite(v) || v > kMaxProgramTimeUs)
    m.fail(key, fmt::format("must be a finite number >= 0 and at most {} us, got {}", kMaxProgramTimeUs, v));
  return v;
}

double positive_time(StrictMap& m, const std::string& key) {
  const double v = m.number(key);
  if (!(v > 0) || !std::isfinite(v) || v > kMaxProgramTimeUs)
    m.fail(key, fmt::format("must be a finite number > 0 and <= {} us, got {}", kMaxProgramTimeUs, v));
  return v;
}

Collective parse_collective(StrictMap c) {
  return collective_field(std::move(c), kMaxWorkgroups, BoundInMessage::omitted).collective;
}

std::vector<std::string> string_list(StrictMap& m, const std::string& key,
                                     std::vector<SourceLocation>* where) {
  std::vector<std::string> out;
  if (!m.has(key)) return out;
  const std::vector<YAML::Node> items = m.sequence(key);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const SourceLocation loc = location_of(items[i], m.file());
    const std::string k = fmt::format("{}[{}]", m.qualified(key), i);
    if (!items[i].IsScalar() || items[i].Scalar().empty())
      throw InputError(loc, k, "expected a non-empty name");
    out.push_back(items[i].Scalar());
    if (where != nullptr) where->push_back(loc);
  }
  return out;
}

// A kernel's `memory:` body: bytes, grid, and how it reads (`gather:`, GatherAccess).
MemoryKernel parse_memory(StrictMap m) {
  MemoryKernel out;
  out.bytes = parse_bytes(m, "bytes");
  if (m.has("workgroups"))
    out.workgroups = static_cast<int>(positive_integer(m, "workgroups", kMaxWorkgroups));
  if (m.has("gather")) {
    StrictMap g = m.map("gather");
    GatherAccess a;
    a.rows_per_item = static_cast<int>(positive_integer(g, "rows_per_item", kMaxGatherRows));
    a.threads_per_cu = static_cast<int>(positive_integer(g, "threads_per_cu", kMaxThreadsPerCu));
    if (g.has("fused_threads_per_cu"))
      a.fused_threads_per_cu =
          static_cast<int>(positive_integer(g, "fused_threads_per_cu", kMaxThreadsPerCu));
    g.finish();
    out.gather = a;
  }
  m.finish();
  return out;
}

ProgramKernel parse_kernel(StrictMap k) {
  ProgramKernel out;
  out.location = k.location();
  out.name = nonempty_string(k, "name");
  out.stream = k.string("stream");
  int bodies = 0;
  for (const KernelKind kind : kKernelKinds) bodies += k.has(to_string(kind)) ? 1 : 0;
  if (k.has("fused")) {
    // A producer's body and the collective's beside `fused:` (FusedKernel).
    const bool gemm = k.has("gemm");
    if (bodies != 3 || !k.has("collective") || (!gemm && !k.has("memory")))
      k.fail("fused", "a fused kernel has `fused:` with a collective and one of gemm, memory");
    out.kind = KernelKind::fused;
    StrictMap f = k.map("fused");
    if (f.has("messages_per_workgroup"))
      out.fused.messages_per_workgroup =
          static_cast<int>(positive_integer(f, "messages_per_workgroup", kMaxWorkgroups));
    f.finish();
    out.fused.producer = gemm ? KernelKind::gemm : KernelKind::memory;
    if (gemm) {
      out.gemm = gemm_field(k, nullptr);
    } else {
      out.memory = parse_memory(k.map("memory"));
    }
    out.collective = parse_collective(k.map("collective"));
  } else if (bodies != 1) {
    k.fail("gemm", "a kernel has exactly one of gemm, collective, memory, dma_copy, measured");
  } else if (k.has("gemm")) {
    out.kind = KernelKind::gemm;
    out.gemm = gemm_field(k, nullptr);  // no output-size check (scenario files have one)
  } else if (k.has("collective")) {
    out.kind = KernelKind::collective;
    out.collective = parse_collective(k.map("collective"));
  } else if (k.has("memory")) {
    out.kind = KernelKind::memory;
    out.memory = parse_memory(k.map("memory"));
  } else if (k.has("measured")) {
    out.kind = KernelKind::measured;
    StrictMap m = k.map("measured");
    out.measured.time_us = positive_time(m, "time_us");
    if (m.has("workgroups"))
      out.measured.workgroups = static_cast<int>(positive_integer(m, "workgroups", kMaxWorkgroups));
    if (m.has("blocks_per_cu"))
      out.measured.blocks_per_cu = static_cast<int>(positive_integer(m, "blocks_per_cu", kMaxBlocksPerCu));
    out.measured.source = m.optional_string("source").value_or("");
    m.finish();
  } else {
    out.kind = KernelKind::dma_copy;
    StrictMap d = k.map("dma_copy");
    out.dma.bytes = parse_bytes(d, "bytes");
    out.dma.to_peer = d.optional_boolean("to_peer").value_or(false);
    d.finish();
  }
  out.after = string_list(k, "after", nullptr);
  if (k.has("gap_us")) out.gap_us = non_negative(k, "gap_us");
  if (k.has("traced_us")) out.traced_us = non_negative(k, "traced_us");
  if (k.has("traced_start_us")) out.traced_start_us = non_negative(k, "traced_start_us");
  k.finish();
  return out;
}

std::vector<ProgramKernel> parse_kernels(StrictMap& m) {
  std::vector<ProgramKernel> out;
  const std::vector<YAML::Node> kernels = m.sequence("kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i)
    out.push_back(
        parse_kernel(StrictMap(kernels[i], m.file(), fmt::format("{}[{}]", m.qualified("kernels"), i))));
  return out;
}

RankKernels parse_rank_kernels(StrictMap m) {
  RankKernels out;
  out.location = m.location();
  const std::int64_t rank = m.integer("rank");
  if (rank < 0 || rank >= kMaxGpus)
    m.fail("rank", fmt::format("must be in 0..{}, got {}", kMaxGpus - 1, rank));
  out.rank = static_cast<int>(rank);
  if (m.has("start_us")) out.start_us = non_negative(m, "start_us");
  out.kernels = parse_kernels(m);
  m.finish();
  return out;
}

ProgramStream parse_stream(StrictMap s) {
  ProgramStream out;
  out.location = s.location();
  out.name = nonempty_string(s, "name");
  if (auto p = s.optional_integer("priority")) {
    if (*p < 0 || *p > 16) s.fail("priority", fmt::format("must be in 0..16, got {}", *p));
    out.priority = static_cast<int>(*p);
  }
  if (s.has("cus")) out.cus = static_cast<int>(positive_integer(s, "cus", kMaxCus));
  out.own_group = s.optional_boolean("own_group").value_or(false);
  s.finish();
  return out;
}

std::vector<double> number_list(StrictMap& m, const std::string& key) {
  std::vector<double> out;
  const std::vector<YAML::Node> items = m.sequence(key);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string k = fmt::format("{}[{}]", m.qualified(key), i);
    double v = 0;
    if (!items[i].IsScalar() || !YAML::convert<double>::decode(items[i], v) || !std::isfinite(v))
      throw InputError(location_of(items[i], m.file()), k, "expected a finite number");
    out.push_back(v);
  }
  return out;
}

RankImbalance parse_imbalance(StrictMap m) {
  RankImbalance out;
  out.location = m.location();
  out.kernels = string_list(m, "kernels", nullptr);
  if (out.kernels.empty()) m.fail("kernels", "name at least one kernel");
  if (auto d = m.optional_string("dim")) {
    if (*d != "m" && *d != "n" && *d != "k") m.fail("dim", fmt::format("must be m, n or k, got '{}'", *d));
    out.dim = (*d)[0];
  }
  out.factors = number_list(m, "factors");
  for (double f : out.factors) {
    if (!(f > 0)) m.fail("factors", fmt::format("factors must be > 0, got {}", f));
  }
  m.finish();
  return out;
}

RankOverride parse_rank_override(StrictMap m) {
  RankOverride out;
  out.location = m.location();
  const std::int64_t rank = m.integer("rank");
  if (rank < 0 || rank >= kMaxGpus)
    m.fail("rank", fmt::format("must be in 0..{}, got {}", kMaxGpus - 1, rank));
  out.rank = static_cast<int>(rank);
  out.kernel = m.string("kernel");
  if (m.has("m")) out.m = positive_integer(m, "m", kMaxGemmDim);
  if (m.has("n")) out.n = positive_integer(m, "n", kMaxGemmDim);
  if (m.has("k")) out.k = positive_integer(m, "k", kMaxGemmDim);
  if (m.has("bytes")) out.bytes = parse_bytes(m, "bytes");
  if (m.has("time_us")) {
    out.time_us = positive_time(m, "time_us");
  }
  if (!out.m && !out.n && !out.k && !out.bytes && !out.time_us)
    m.fail("kernel", "an override sets at least one of m, n, k, bytes, time_us");
  m.finish();
  return out;
}

ProgramDevice parse_device(StrictMap d) {
  ProgramDevice out;
  out.location = d.location();
  out.name = nonempty_string(d, "name");
  if (d.has("cus")) out.cus = static_cast<int>(positive_integer(d, "cus", kMaxCus));
  if (d.has("memory_bytes")) out.memory_bytes = parse_bytes(d, "memory_bytes");
  d.finish();
  return out;
}

Program parse_program(StrictMap m) {
  Program p;
  p.location = m.location();
  p.name = nonempty_string(m, "name");
  p.source = m.optional_string("source").value_or("");
  if (m.has("gpus")) p.gpus = static_cast<int>(positive_integer(m, "gpus", kMaxGpus));
  if (m.has("nodes")) p.nodes = static_cast<int>(positive_integer(m, "nodes", kMaxNodes));
  if (m.has("launch_gap_us")) p.launch_gap_us = non_negative(m, "launch_gap_us");
  const std::vector<YAML::Node> streams = m.sequence("streams");
  for (std::size_t i = 0; i < streams.size(); ++i) {
    p.streams.push_back(
        parse_stream(StrictMap(streams[i], m.file(), fmt::format("{}[{}]", m.qualified("streams"), i))));
  }
  if (m.has("ranks") && m.has("kernels"))
    m.fail("kernels", "give `kernels:` or one list per rank under `ranks:`, not both");
  if (!m.has("ranks")) {
    p.kernels = parse_kernels(m);
  } else {
    const std::vector<YAML::Node> ranks = m.sequence("ranks");
    if (ranks.empty()) m.fail("ranks", "list is empty");
    for (std::size_t i = 0; i < ranks.size(); ++i)
      p.rank_kernels.push_back(
          parse_rank_kernels(StrictMap(ranks[i], m.file(), fmt::format("{}[{}]", m.qualified("ranks"), i))));
    if (!p.gpus) p.gpus = static_cast<int>(p.rank_kernels.size());
    const auto zero = std::find_if(p.rank_kernels.begin(), p.rank_kernels.end(),
                                   [](const RankKernels& e) { return e.rank == 0; });
    if (zero != p.rank_kernels.end()) p.kernels = zero->kernels;
  }
  if (p.gpus && *p.gpus < 2 && p.nodes.value_or(1) < 2) {
    for (const auto& k : p.kernels) {
      if (k.kind != KernelKind::collective) continue;
      m.fail("gpus", fmt::format("a program with collectives (kernel '{}') needs at least 2 GPUs, got {}",
                                 k.name, *p.gpus));
    }
  }
  p.policies = string_list(m, "policies", &p.policy_locations);
  if (m.has("measured_step_us")) p.measured_step_us = non_negative(m, "measured_step_us");
  if (m.has("measured_profiler_step_us"))
    p.measured_profiler_step_us = non_negative(m, "measured_profiler_step_us");
  p.all_gpus = m.optional_boolean("all_gpus").value_or(false);
  p.steady_state = m.optional_boolean("steady_state").value_or(false);
  if (m.has("device")) p.device = parse_device(m.map("device"));
  if (m.has("imbalance")) {
    const std::vector<YAML::Node> items = m.sequence("imbalance");
    for (std::size_t i = 0; i < items.size(); ++i) {
      p.imbalance.push_back(
          parse_imbalance(StrictMap(items[i], m.file(), fmt::format("{}[{}]", m.qualified("imbalance"), i))));
    }
  }
  if (m.has("rank_overrides")) {
    const std::vector<YAML::Node> items = m.sequence("rank_overrides");
    for (std::size_t i = 0; i < items.size(); ++i) {
      p.rank_overrides.push_back(parse_rank_override(
          StrictMap(items[i], m.file(), fmt::format("{}[{}]", m.qualified("rank_overrides"), i))));
    }
  }
  m.finish();
  validate_rank_kernels(p);
  validate_program(p);
  return p;
}

}  // namespace

bool is_program_document(const YamlDocument& doc) {
  return doc.root.IsMap() && (doc.root["program"] || doc.root["programs"]);
}

std::vector<Program> programs_from_yaml(const YamlDocument& doc) {
  if (!doc.root.IsDefined() || doc.root.IsNull())
    throw InputError(SourceLocation{doc.file, 0, 0}, "", "empty program file");
  reject_duplicate_keys(doc.root, doc.file, "");
  StrictMap top(doc.root, doc.file, "");
  std::vector<Program> out;
  if (top.has("program") && top.has("programs"))
    top.fail("programs", "give `program:` or `programs:`, not both");
  if (top.has("program")) {
    out.push_back(parse_program(top.map("program")));
  } else {
    const std::vector<YAML::Node> entries = top.sequence("programs");
    if (entries.empty()) top.fail("programs", "list is empty");
    for (std::size_t i = 0; i < entries.size(); ++i) {
      out.push_back(parse_program(StrictMap(entries[i], doc.file, fmt::format("programs[{}]", i))));
    }
  }
  top.finish();
  std::set<std::string> names;
  for (const Program& p : out) {
    if (!names.insert(p.name).second) {
      throw InputError(p.location, p.name + ".name", fmt::format("duplicate program name '{}'", p.name));
    }
  }
  return out;
}

std::vector<Program> load_programs_file(const std::string& path) {
  return programs_from_yaml(load_yaml_file(path));
}

std::vector<Program> load_programs_string(const std::string& text, const std::string& label) {
  return programs_from_yaml(load_yaml_string(text, label));
}

namespace {

void emit_gemm_body(YAML::Emitter& out, const ProgramKernel& k) {
  out << YAML::Key << "gemm" << YAML::Value << YAML::Flow << YAML::BeginMap;
  if (!k.gemm.tag.empty()) out << YAML::Key << "tag" << YAML::Value << YAML::DoubleQuoted << k.gemm.tag;
  out << YAML::Key << "m" << YAML::Value << k.gemm.m << YAML::Key << "n" << YAML::Value << k.gemm.n;
  out << YAML::Key << "k" << YAML::Value << k.gemm.k;
  out << YAML::Key << "dtype" << YAML::Value << to_string(k.gemm.dtype);
  if (!k.gemm.source.empty())
    out << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted << k.gemm.source;
  out << YAML::EndMap;
}

void emit_memory_body(YAML::Emitter& out, const ProgramKernel& k) {
  out << YAML::Key << "memory" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "bytes" << YAML::Value << byte_count_text(k.memory.bytes);
  if (k.memory.workgroups) out << YAML::Key << "workgroups" << YAML::Value << *k.memory.workgroups;
  if (k.memory.gather) {
    out << YAML::Key << "gather" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "rows_per_item" << YAML::Value << k.memory.gather->rows_per_item;
    out << YAML::Key << "threads_per_cu" << YAML::Value << k.memory.gather->threads_per_cu;
    if (k.memory.gather->fused_threads_per_cu)
      out << YAML::Key << "fused_threads_per_cu" << YAML::Value << *k.memory.gather->fused_threads_per_cu;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

void emit_kernel(YAML::Emitter& out, const ProgramKernel& k) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << k.name;
  out << YAML::Key << "stream" << YAML::Value << YAML::DoubleQuoted << k.stream;
  switch (k.kind) {
    case KernelKind::gemm: emit_gemm_body(out, k); break;
    case KernelKind::collective: emit_collective_field(out, k.collective); break;
    case KernelKind::memory: emit_memory_body(out, k); break;
    case KernelKind::dma_copy:
      out << YAML::Key << "dma_copy" << YAML::Value << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "bytes" << YAML::Value << byte_count_text(k.dma.bytes);
      out << YAML::Key << "to_peer" << YAML::Value << k.dma.to_peer;
      out << YAML::EndMap;
      break;
    case KernelKind::fused:
      out << YAML::Key << "fused" << YAML::Value << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "messages_per_workgroup" << YAML::Value << k.fused.messages_per_workgroup;
      out << YAML::EndMap;
      if (k.fused.producer == KernelKind::gemm) {
        emit_gemm_body(out, k);
      } else {
        emit_memory_body(out, k);
      }
      emit_collective_field(out, k.collective);
      break;
    case KernelKind::measured:
      out << YAML::Key << "measured" << YAML::Value << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "time_us" << YAML::Value << k.measured.time_us;
      if (k.measured.workgroups) out << YAML::Key << "workgroups" << YAML::Value << *k.measured.workgroups;
      if (k.measured.blocks_per_cu)
        out << YAML::Key << "blocks_per_cu" << YAML::Value << *k.measured.blocks_per_cu;
      if (!k.measured.source.empty())
        out << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted << k.measured.source;
      out << YAML::EndMap;
      break;
  }
  if (!k.after.empty()) {
    out << YAML::Key << "after" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& a : k.after) out << YAML::DoubleQuoted << a;
    out << YAML::EndSeq;
  }
  if (k.gap_us) out << YAML::Key << "gap_us" << YAML::Value << *k.gap_us;
  if (k.traced_us) out << YAML::Key << "traced_us" << YAML::Value << *k.traced_us;
  if (k.traced_start_us) out << YAML::Key << "traced_start_us" << YAML::Value << *k.traced_start_us;
  out << YAML::EndMap;
}

void emit_rank_differences(YAML::Emitter& out, const Program& p) {
  if (p.all_gpus) out << YAML::Key << "all_gpus" << YAML::Value << true;
  if (p.steady_state) out << YAML::Key << "steady_state" << YAML::Value << true;
  if (!p.imbalance.empty()) {
    out << YAML::Key << "imbalance" << YAML::Value << YAML::BeginSeq;
    for (const auto& im : p.imbalance) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "kernels" << YAML::Value << YAML::Flow
          << YAML::BeginSeq;
      for (const auto& k : im.kernels) out << YAML::DoubleQuoted << k;
      out << YAML::EndSeq << YAML::Key << "dim" << YAML::Value << std::string(1, im.dim);
      out << YAML::Key << "factors" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (double f : im.factors) out << f;
      out << YAML::EndSeq << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!p.rank_overrides.empty()) {
    out << YAML::Key << "rank_overrides" << YAML::Value << YAML::BeginSeq;
    for (const auto& o : p.rank_overrides) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "rank" << YAML::Value << o.rank;
      out << YAML::Key << "kernel" << YAML::Value << YAML::DoubleQuoted << o.kernel;
      for (const auto& [key, v] : {std::pair{"m", o.m}, std::pair{"n", o.n}, std::pair{"k", o.k}}) {
        if (v) out << YAML::Key << key << YAML::Value << *v;
      }
      if (o.bytes) out << YAML::Key << "bytes" << YAML::Value << byte_count_text(*o.bytes);
      if (o.time_us) out << YAML::Key << "time_us" << YAML::Value << *o.time_us;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
}

}  // namespace

namespace {

std::string emit_programs(const std::vector<const Program*>& programs, const std::string& leading_comments) {
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap << YAML::Key << "programs" << YAML::Value << YAML::BeginSeq;
  for (const Program* program : programs) {
    const Program& p = *program;
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << p.name;
    if (!p.source.empty()) out << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted << p.source;
    if (p.gpus) out << YAML::Key << "gpus" << YAML::Value << *p.gpus;
    if (p.nodes) out << YAML::Key << "nodes" << YAML::Value << *p.nodes;
    if (p.launch_gap_us) out << YAML::Key << "launch_gap_us" << YAML::Value << *p.launch_gap_us;
    out << YAML::Key << "streams" << YAML::Value << YAML::BeginSeq;
    for (const auto& s : p.streams) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted
          << s.name;
      if (s.priority != 0) out << YAML::Key << "priority" << YAML::Value << s.priority;
      if (s.cus) out << YAML::Key << "cus" << YAML::Value << *s.cus;
      if (s.own_group) out << YAML::Key << "own_group" << YAML::Value << true;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
    if (p.rank_kernels.empty()) {
      out << YAML::Key << "kernels" << YAML::Value << YAML::BeginSeq;
      for (const auto& k : p.kernels) emit_kernel(out, k);
      out << YAML::EndSeq;
    } else {
      out << YAML::Key << "ranks" << YAML::Value << YAML::BeginSeq;
      for (const RankKernels& e : p.rank_kernels) {
        out << YAML::BeginMap << YAML::Key << "rank" << YAML::Value << e.rank;
        out << YAML::Key << "start_us" << YAML::Value << e.start_us;
        out << YAML::Key << "kernels" << YAML::Value << YAML::BeginSeq;
        for (const auto& k : e.kernels) emit_kernel(out, k);
        out << YAML::EndSeq << YAML::EndMap;
      }
      out << YAML::EndSeq;
    }
    if (!p.policies.empty()) {
      out << YAML::Key << "policies" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const auto& n : p.policies) out << YAML::DoubleQuoted << n;
      out << YAML::EndSeq;
    }
    if (p.measured_step_us) out << YAML::Key << "measured_step_us" << YAML::Value << *p.measured_step_us;
    if (p.measured_profiler_step_us)
      out << YAML::Key << "measured_profiler_step_us" << YAML::Value << *p.measured_profiler_step_us;
    if (p.device) {
      out << YAML::Key << "device" << YAML::Value << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << p.device->name;
      if (p.device->cus) out << YAML::Key << "cus" << YAML::Value << *p.device->cus;
      if (p.device->memory_bytes)
        out << YAML::Key << "memory_bytes" << YAML::Value << *p.device->memory_bytes;
      out << YAML::EndMap;
    }
    emit_rank_differences(out, p);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  if (!out.good())
    throw ModelError(fmt::format("programs_to_yaml: YAML emitter failed: {}", out.GetLastError()));
  std::string text;
  text.reserve(leading_comments.size() + out.size() + 1);
  text.append(leading_comments).append(out.c_str(), out.size()).push_back('\n');
  return text;
}

}  // namespace

std::string programs_to_yaml(const std::vector<Program>& programs, const std::string& leading_comments) {
  std::vector<const Program*> all;
  all.reserve(programs.size());
  for (const Program& p : programs) all.push_back(&p);
  return emit_programs(all, leading_comments);
}

std::string program_to_yaml(const Program& program, const std::string& leading_comments) {
  return emit_programs({&program}, leading_comments);
}

}  // namespace c3sim::wl
