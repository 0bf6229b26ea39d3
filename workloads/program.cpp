#include "workloads/program.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "workloads/input_limits.h"

namespace c3sim::wl {

const char* to_string(KernelKind k) {
  switch (k) {
    case KernelKind::gemm: return "gemm";
    case KernelKind::collective: return "collective";
    case KernelKind::memory: return "memory";
    case KernelKind::dma_copy: return "dma_copy";
    case KernelKind::measured: return "measured";
    case KernelKind::fused: return "fused";
  }
  return "?";
}

const ProgramKernel* Program::kernel(const std::string& n) const {
  const int i = kernel_index(n);
  return i < 0 ? nullptr : &kernels[static_cast<size_t>(i)];
}

const ProgramStream* Program::stream(const std::string& n) const {
  const int i = stream_index(n);
  return i < 0 ? nullptr : &streams[static_cast<size_t>(i)];
}

namespace {

// The index of the element named `name` (kernels and streams alike), -1 if absent.
template <class T>
int index_by_name(const std::vector<T>& items, const std::string& name) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

int Program::kernel_index(const std::string& n) const { return index_by_name(kernels, n); }

int Program::stream_index(const std::string& n) const { return index_by_name(streams, n); }

std::size_t Program::kernel_at(const std::string& n) const {
  const int i = kernel_index(n);
  if (i < 0) throw ModelError(fmt::format("program '{}': no kernel '{}'", name, n));
  return static_cast<std::size_t>(i);
}

std::size_t Program::stream_of(std::size_t k) const {
  const int s = stream_index(kernels.at(k).stream);
  if (s < 0) throw ModelError(fmt::format("program '{}': no stream '{}'", name, kernels[k].stream));
  return static_cast<std::size_t>(s);
}

std::vector<std::vector<int>> dependency_indices(const Program& p) {
  // The first kernel of a name wins, as kernel_index's scan finds it.
  std::unordered_map<std::string_view, int> index;
  index.reserve(p.kernels.size());
  for (size_t i = 0; i < p.kernels.size(); ++i) index.try_emplace(p.kernels[i].name, static_cast<int>(i));
  std::vector<std::vector<int>> out(p.kernels.size());
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    out[i].reserve(p.kernels[i].after.size());
    for (const auto& a : p.kernels[i].after) {
      const auto it = index.find(a);
      out[i].push_back(it == index.end() ? -1 : it->second);
    }
  }
  return out;
}

std::vector<int> stream_predecessors(const Program& p) {
  std::vector<int> prev(p.kernels.size(), -1);
  std::map<std::string, int> last;
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    if (auto it = last.find(p.kernels[i].stream); it != last.end()) prev[i] = it->second;
    last[p.kernels[i].stream] = static_cast<int>(i);
  }
  return prev;
}

Program program_from_scenario(const Scenario& s) {
  Program p;
  p.name = s.name;
  p.source = s.source.empty() ? "pair" : s.source;
  p.gpus = s.gpus;
  p.location = s.location;
  p.policies = s.policies;
  p.policy_locations = s.policy_locations;
  p.streams.push_back(ProgramStream{"gemm_stream", 0, std::nullopt, s.location});
  p.streams.push_back(ProgramStream{"comm_stream", 0, std::nullopt, s.location});
  ProgramKernel g;
  g.name = "gemm";
  g.kind = KernelKind::gemm;
  g.stream = "gemm_stream";
  g.gemm = s.gemm;
  g.location = s.location;
  ProgramKernel c;
  c.name = "coll";
  c.kind = KernelKind::collective;
  c.stream = "comm_stream";
  c.collective = s.collective;
  c.location = s.location;
  p.kernels = {g, c};
  return p;
}

namespace {

std::string key_of(const Program& p, const ProgramKernel& k, const std::string& field) {
  return fmt::format("{}.kernels.{}{}{}", p.name, k.name, field.empty() ? "" : ".", field);
}

// Edges u -> v: v may not start before u ends (`after`, and the previous kernel on v's stream).
std::vector<std::vector<int>> successors(const Program& p) {
  std::vector<std::vector<int>> next(p.kernels.size());
  const std::vector<int> prev = stream_predecessors(p);
  const std::vector<std::vector<int>> waits_for = dependency_indices(p);
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    for (const int u : waits_for[i]) {
      if (u >= 0) next[static_cast<size_t>(u)].push_back(static_cast<int>(i));  // validate_program reports -1
    }
    if (prev[i] >= 0) next[static_cast<size_t>(prev[i])].push_back(static_cast<int>(i));
  }
  return next;
}

// Kahn's algorithm, smallest index first so the order is deterministic; returns fewer than all
// kernels when there is a cycle.
std::vector<int> kahn(const Program& p) {
  const auto next = successors(p);
  std::vector<int> indegree(p.kernels.size(), 0);
  for (const auto& out : next) {
    for (int v : out) ++indegree[static_cast<size_t>(v)];
  }
  std::set<int> ready;
  for (size_t i = 0; i < indegree.size(); ++i) {
    if (indegree[i] == 0) ready.insert(static_cast<int>(i));
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int u = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(u);
    for (int v : next[static_cast<size_t>(u)]) {
      if (--indegree[static_cast<size_t>(v)] == 0) ready.insert(v);
    }
  }
  return order;
}

// A size a program file cannot hold (the parser bounds each): a negative one came from arithmetic
// that overflowed (a generator's or importer's), so the message names the field and its value.
void check_size(const Program& p, const ProgramKernel& k, const std::string& field, std::int64_t v) {
  if (v > 0) return;
  throw InputError(
      k.location, key_of(p, k, field),
      v < 0 ? fmt::format(
                  "{} is out of range (sizes are positive; a negative one is an int64 that overflowed)", v)
            : std::string("must be positive, got 0"));
}

void check_kernel_size(const Program& p, const ProgramKernel& k) {
  switch (k.kind) {
    case KernelKind::gemm:
      check_size(p, k, "gemm.m", k.gemm.m);
      check_size(p, k, "gemm.n", k.gemm.n);
      check_size(p, k, "gemm.k", k.gemm.k);
      return;
    case KernelKind::collective: check_size(p, k, "collective.bytes", k.collective.bytes); return;
    case KernelKind::memory: check_size(p, k, "memory.bytes", k.memory.bytes); return;
    case KernelKind::dma_copy: check_size(p, k, "dma_copy.bytes", k.dma.bytes); return;
    case KernelKind::measured:
      if (!(k.measured.time_us > 0) || !std::isfinite(k.measured.time_us)) {
        throw InputError(k.location, key_of(p, k, "measured.time_us"),
                         fmt::format("must be a finite number > 0, got {}", k.measured.time_us));
      }
      return;
    case KernelKind::fused:
      if (k.fused.producer == KernelKind::gemm) {
        check_size(p, k, "gemm.m", k.gemm.m);
        check_size(p, k, "gemm.n", k.gemm.n);
        check_size(p, k, "gemm.k", k.gemm.k);
      } else if (k.fused.producer == KernelKind::memory) {
        check_size(p, k, "memory.bytes", k.memory.bytes);
      } else {
        throw InputError(k.location, key_of(p, k, "fused"),
                         fmt::format("a fused kernel's producer is a gemm or memory kernel, not {}",
                                     to_string(k.fused.producer)));
      }
      check_size(p, k, "collective.bytes", k.collective.bytes);
      if (k.fused.messages_per_workgroup <= 0) {
        throw InputError(k.location, key_of(p, k, "fused.messages_per_workgroup"),
                         fmt::format("must be positive, got {}", k.fused.messages_per_workgroup));
      }
      return;
  }
}

}  // namespace

std::vector<int> topological_order(const Program& p) {
  std::vector<int> order = kahn(p);
  if (order.size() != p.kernels.size()) throw ModelError("topological_order: program has a cycle");
  return order;
}

std::int64_t measured_waves(const MeasuredKernel& k, int cus) {
  if (!k.blocks_per_cu || !k.workgroups || cus <= 0) return 1;
  const std::int64_t per_wave = std::int64_t{cus} * *k.blocks_per_cu;
  return std::max<std::int64_t>(1, (*k.workgroups + per_wave - 1) / per_wave);
}

void validate_program(const Program& p) {
  if (p.kernels.empty())
    throw InputError(p.location, p.name + ".kernels", "a program needs at least one kernel");
  std::set<std::string> streams;
  for (const auto& s : p.streams) {
    if (!streams.insert(s.name).second) {
      throw InputError(s.location, p.name + ".streams." + s.name,
                       fmt::format("duplicate stream '{}'", s.name));
    }
    if (s.cus && *s.cus <= 0) {
      throw InputError(s.location, p.name + ".streams." + s.name + ".cus",
                       fmt::format("CU mask must be positive, got {}", *s.cus));
    }
  }
  std::set<std::string> names;
  for (const auto& k : p.kernels) {
    if (k.name.empty()) throw InputError(k.location, p.name + ".kernels", "kernel name must not be empty");
    if (!names.insert(k.name).second) {
      throw InputError(k.location, key_of(p, k, "name"), fmt::format("duplicate kernel name '{}'", k.name));
    }
    if (!streams.contains(k.stream)) {
      throw InputError(k.location, key_of(p, k, "stream"),
                       fmt::format("stream '{}' is not declared under streams", k.stream));
    }
    if (k.gap_us && !(*k.gap_us >= 0 && *k.gap_us <= kMaxProgramTimeUs)) {
      throw InputError(k.location, key_of(p, k, "gap_us"),
                       fmt::format("gap must be in 0..{} us, got {}", kMaxProgramTimeUs, *k.gap_us));
    }
    if (k.kind == KernelKind::measured && k.measured.time_us > kMaxProgramTimeUs) {
      throw InputError(k.location, key_of(p, k, "measured.time_us"),
                       fmt::format("{} us is over the {} us a program time may be", k.measured.time_us,
                                   kMaxProgramTimeUs));
    }
    // Ranks: gpus on each of the program's nodes (one GPU per node is a collective over the network).
    if ((k.kind == KernelKind::collective || k.kind == KernelKind::fused) && p.gpus &&
        *p.gpus * p.nodes.value_or(1) < kMinGpus) {
      throw InputError(
          k.location, key_of(p, k, "collective"),
          fmt::format("a collective needs at least {} GPUs; the program has gpus: {}", kMinGpus, *p.gpus));
    }
    check_kernel_size(p, k);
    if ((k.kind == KernelKind::memory || k.kind == KernelKind::fused) && k.memory.workgroups &&
        *k.memory.workgroups <= 0) {
      throw InputError(k.location, key_of(p, k, "memory.workgroups"), "must be positive");
    }
    if ((k.kind == KernelKind::memory || k.kind == KernelKind::fused) && k.memory.gather &&
        (k.memory.gather->rows_per_item <= 0 || k.memory.gather->threads_per_cu <= 0 ||
         k.memory.gather->fused_threads_per_cu.value_or(1) <= 0)) {
      throw InputError(k.location, key_of(p, k, "memory.gather"),
                       "rows_per_item, threads_per_cu and fused_threads_per_cu must be positive");
    }
    if (k.kind == KernelKind::measured && k.measured.workgroups && *k.measured.workgroups <= 0) {
      throw InputError(k.location, key_of(p, k, "measured.workgroups"), "must be positive");
    }
    if (k.kind == KernelKind::measured && k.measured.blocks_per_cu) {
      if (*k.measured.blocks_per_cu <= 0)
        throw InputError(k.location, key_of(p, k, "measured.blocks_per_cu"), "must be positive");
      if (!k.measured.workgroups)
        throw InputError(k.location, key_of(p, k, "measured.blocks_per_cu"), "needs measured.workgroups");
    }
  }
  for (const auto& k : p.kernels) {
    for (const auto& a : k.after) {
      if (a == k.name) throw InputError(k.location, key_of(p, k, "after"), "a kernel cannot wait for itself");
      if (!names.contains(a)) {
        throw InputError(k.location, key_of(p, k, "after"),
                         fmt::format("'{}' is not a kernel of this program", a));
      }
    }
  }
  const std::vector<int> order = kahn(p);
  if (order.size() != p.kernels.size()) {
    // Name the first kernel (in launch order) that never became ready: it sits on the cycle or
    // behind it.
    std::vector<bool> done(p.kernels.size(), false);
    for (int i : order) done[static_cast<size_t>(i)] = true;
    for (size_t i = 0; i < p.kernels.size(); ++i) {
      if (!done[i]) {
        const ProgramKernel& k = p.kernels[i];
        throw InputError(k.location, key_of(p, k, "after"),
                         fmt::format("kernel '{}' waits on a dependency cycle (through `after` and stream "
                                     "order)",
                                     k.name));
      }
    }
  }
}

namespace {

// Clamped below 2^62 so a huge factor cannot overflow llround; check_rank_sizes then refuses the
// result against the file format's bounds.
std::int64_t scaled(std::int64_t v, double f) {
  const double x = std::min(static_cast<double>(v) * f, 0x1p62);
  return std::max<std::int64_t>(1, std::llround(x));
}

// Whether kernel kind `kind` has the sized field an imbalance or override names.
void check_rank_kernel(const Program& p, const std::string& kernel, const SourceLocation& where,
                       const std::string& key, bool gemm_field, bool bytes_field, bool time_field) {
  const ProgramKernel* k = p.kernel(kernel);
  if (k == nullptr) throw InputError(where, key, fmt::format("'{}' is not a kernel of this program", kernel));
  const bool fits =
      (k->kind == KernelKind::gemm && !bytes_field && !time_field) ||
      ((k->kind == KernelKind::memory || k->kind == KernelKind::dma_copy) && !gemm_field && !time_field) ||
      (k->kind == KernelKind::measured && !gemm_field && !bytes_field);
  if (!fits) {
    throw InputError(where, key,
                     fmt::format("kernel '{}' is a {} kernel: per-rank sizes fit GEMMs (m, n, k), memory and "
                                 "dma_copy kernels (bytes) and measured kernels (time_us); collectives "
                                 "move the same bytes on every rank",
                                 kernel, to_string(k->kind)));
  }
}

void check_rank_differences(const Program& p, int gpus) {
  for (size_t i = 0; i < p.imbalance.size(); ++i) {
    const RankImbalance& im = p.imbalance[i];
    const std::string key = fmt::format("{}.imbalance[{}]", p.name, i);
    if (im.factors.size() != static_cast<size_t>(gpus)) {
      throw InputError(im.location, key + ".factors",
                       fmt::format("{} factors for {} ranks: give one per rank", im.factors.size(), gpus));
    }
    for (double f : im.factors) {
      if (!(f > 0) || !std::isfinite(f))
        throw InputError(im.location, key + ".factors",
                         fmt::format("factors must be finite and > 0, got {}", f));
    }
    if (im.kernels.empty()) throw InputError(im.location, key + ".kernels", "name at least one kernel");
    for (const auto& name : im.kernels) {
      // An imbalance scales whichever size the kind has: only collectives are refused.
      const ProgramKernel* k = p.kernel(name);
      const bool gemm = k != nullptr && k->kind == KernelKind::gemm;
      check_rank_kernel(p, name, im.location, key + ".kernels", gemm, false,
                        k != nullptr && k->kind == KernelKind::measured);
    }
  }
  for (size_t i = 0; i < p.rank_overrides.size(); ++i) {
    const RankOverride& o = p.rank_overrides[i];
    const std::string key = fmt::format("{}.rank_overrides[{}]", p.name, i);
    if (o.rank < 0 || o.rank >= gpus) {
      throw InputError(
          o.location, key + ".rank",
          fmt::format("rank {} is out of range: the program runs ranks 0..{}", o.rank, gpus - 1));
    }
    check_rank_kernel(p, o.kernel, o.location, key + ".kernel", o.m || o.n || o.k, o.bytes.has_value(),
                      o.time_us.has_value());
  }
}

// The entry of the file that set a rank's size of a kernel: the last override of that rank and
// kernel (overrides apply after factors), else the last imbalance naming the kernel. Errors in a
// rank's size point at that entry's line, where the user wrote the number that broke it.
struct RankSizeCause {
  SourceLocation location;
  std::string key;
};

std::optional<RankSizeCause> rank_size_cause(const Program& p, const std::string& kernel, int rank) {
  for (size_t i = p.rank_overrides.size(); i-- > 0;) {
    const RankOverride& o = p.rank_overrides[i];
    if (o.rank == rank && o.kernel == kernel)
      return RankSizeCause{o.location, fmt::format("{}.rank_overrides[{}]", p.name, i)};
  }
  for (size_t i = p.imbalance.size(); i-- > 0;) {
    const RankImbalance& im = p.imbalance[i];
    if (std::find(im.kernels.begin(), im.kernels.end(), kernel) != im.kernels.end())
      return RankSizeCause{im.location, fmt::format("{}.imbalance[{}].factors[{}]", p.name, i, rank)};
  }
  return std::nullopt;
}

// The bound one rank's kernel must keep (the same checks its own file format applies).
void check_rank_kernel_size(const Program& p, const ProgramKernel& k, int rank) {
  const auto key = [&](const char* field) { return fmt::format("{}[rank {}]", key_of(p, k, field), rank); };
  switch (k.kind) {
    case KernelKind::gemm: check_gemm_shape(k.gemm.m, k.gemm.n, k.gemm.k, k.location, key("gemm")); break;
    case KernelKind::memory:
      checked_bytes(static_cast<double>(k.memory.bytes), k.location, key("memory") + ".bytes");
      break;
    case KernelKind::dma_copy:
      checked_bytes(static_cast<double>(k.dma.bytes), k.location, key("dma_copy") + ".bytes");
      break;
    case KernelKind::measured:
      if (!std::isfinite(k.measured.time_us) || k.measured.time_us > kMaxProgramTimeUs)
        throw InputError(k.location, key("measured") + ".time_us",
                         fmt::format("the rank's time, {} us, is over the {} us a program time may be",
                                     k.measured.time_us, kMaxProgramTimeUs));
      break;
    case KernelKind::collective:
    case KernelKind::fused: break;
  }
}

// What an imbalance factor or an override makes of each rank stays within the bounds every file
// format's own sizes have (workloads/input_limits.h): no rank runs a GEMM or a copy that a
// scenario file could not name. The error names the imbalance or override entry that set the size
// (its line and key) and, in the message, which kernel field of which rank it broke.
void check_rank_sizes(const Program& p, int gpus) {
  if (p.imbalance.empty() && p.rank_overrides.empty()) return;
  for (int rank = 0; rank < gpus; ++rank) {
    const Program r = program_for_rank(p, rank);
    for (const ProgramKernel& k : r.kernels) {
      try {
        check_rank_kernel_size(p, k, rank);
      } catch (const InputError& e) {
        const auto cause = rank_size_cause(p, k.name, rank);
        if (!cause) throw;  // the kernel's own size (checked at parse time for files)
        throw InputError(cause->location, cause->key, fmt::format("gives {}: {}", e.key(), e.problem()));
      }
    }
  }
}

}  // namespace

void check_program_fits(const Program& p, int node_gpus, int node_cus) {
  const int gpus = p.gpus.value_or(node_gpus);
  if (p.gpus && *p.gpus > node_gpus) {
    throw InputError(p.location, p.name + ".gpus",
                     fmt::format("program asks for {} GPUs but the node has {}", *p.gpus, node_gpus));
  }
  for (const auto& k : p.kernels) {
    if ((k.kind != KernelKind::collective && k.kind != KernelKind::fused) || gpus * p.nodes.value_or(1) >= 2)
      continue;
    throw InputError(k.location, key_of(p, k, "collective"),
                     fmt::format("a collective needs at least 2 GPUs; the program runs on {}{}", gpus,
                                 p.gpus ? " (its gpus:)" : " (the node's GPU count)"));
  }
  check_rank_differences(p, gpus);
  check_rank_sizes(p, gpus);
  for (const auto& s : p.streams) {
    if (s.cus && *s.cus >= node_cus) {
      throw InputError(
          s.location, p.name + ".streams." + s.name + ".cus",
          fmt::format("impossible CU mask: {} CUs of {} leaves none for other streams", *s.cus, node_cus));
    }
  }
  for (const auto& k : p.kernels) {
    // `bytes` is the per-GPU output: the gathered (or exchanged, or reduced) whole for every op
    // but reduce-scatter, whose output is already one block.
    if ((k.kind == KernelKind::collective || k.kind == KernelKind::fused) &&
        k.collective.bytes % output_blocks(k.collective.op, gpus) != 0) {
      throw InputError(k.location, key_of(p, k, "collective.bytes"),
                       fmt::format("{} bytes do not split into {} equal shards", k.collective.bytes, gpus));
    }
  }
}

namespace {

// The key prefix of rank entry i: "<program>.ranks[i]".
std::string rank_key(const Program& p, std::size_t i) { return fmt::format("{}.ranks[{}]", p.name, i); }

// The program rank entry i describes, for validate_program (its kernel keys read
// "<program>.ranks[i].kernels.<name>.<field>").
Program rank_view(const Program& p, std::size_t i) {
  Program out;
  out.name = rank_key(p, i);
  out.gpus = p.gpus;
  out.streams = p.streams;
  out.kernels = p.rank_kernels[i].kernels;
  out.location = p.rank_kernels[i].location;
  return out;
}

std::string collective_text(const Collective& c) {
  return fmt::format("{} of {} bytes", to_string(c.op), c.bytes);
}

}  // namespace

void validate_rank_kernels(const Program& p) {
  if (p.rank_kernels.empty()) return;
  if (!p.imbalance.empty() || !p.rank_overrides.empty()) {
    throw InputError(p.rank_kernels.front().location, p.name + ".ranks",
                     "a program with one kernel list per rank takes no imbalance or rank_overrides "
                     "(give each rank's kernels as they are)");
  }
  const int gpus = p.gpus.value_or(static_cast<int>(p.rank_kernels.size()));
  std::vector<const RankKernels*> by_rank(static_cast<std::size_t>(gpus), nullptr);
  for (std::size_t i = 0; i < p.rank_kernels.size(); ++i) {
    const RankKernels& e = p.rank_kernels[i];
    if (e.rank < 0 || e.rank >= gpus) {
      throw InputError(
          e.location, rank_key(p, i) + ".rank",
          fmt::format("rank {} is beyond the program's {} GPUs (ranks 0..{})", e.rank, gpus, gpus - 1));
    }
    if (by_rank[static_cast<std::size_t>(e.rank)] != nullptr)
      throw InputError(e.location, rank_key(p, i) + ".rank", fmt::format("duplicate rank {}", e.rank));
    by_rank[static_cast<std::size_t>(e.rank)] = &e;
    if (!(e.start_us >= 0 && e.start_us <= kMaxProgramTimeUs)) {
      throw InputError(e.location, rank_key(p, i) + ".start_us",
                       fmt::format("must be in 0..{} us, got {}", kMaxProgramTimeUs, e.start_us));
    }
    validate_program(rank_view(p, i));
  }
  for (int r = 0; r < gpus; ++r) {
    if (by_rank[static_cast<std::size_t>(r)] == nullptr) {
      throw InputError(
          p.location, p.name + ".ranks",
          fmt::format("rank {} has no kernel list (every rank of the program's {} GPUs needs one)", r, gpus));
    }
  }
  // Collectives are matched by order: the n-th collective of each rank is one instance.
  const auto collectives = [](const RankKernels& e) {
    std::vector<const ProgramKernel*> out;
    for (const ProgramKernel& k : e.kernels)
      if (k.kind == KernelKind::collective) out.push_back(&k);
    return out;
  };
  const std::vector<const ProgramKernel*> first = collectives(*by_rank[0]);
  for (std::size_t i = 0; i < p.rank_kernels.size(); ++i) {
    const RankKernels& e = p.rank_kernels[i];
    const std::vector<const ProgramKernel*> mine = collectives(e);
    for (std::size_t c = 0; c < std::max(mine.size(), first.size()); ++c) {
      if (c < mine.size() && c < first.size() && mine[c]->collective.op == first[c]->collective.op &&
          mine[c]->collective.bytes == first[c]->collective.bytes)
        continue;
      const std::string theirs =
          c < first.size() ? fmt::format("'{}', {}", first[c]->name, collective_text(first[c]->collective))
                           : "none";
      if (c >= mine.size()) {
        throw InputError(
            e.location, rank_key(p, i) + ".kernels",
            fmt::format("rank {} has {} collectives, rank 0 has {}: collective #{} of rank 0 ({}) "
                        "has no partner",
                        e.rank, mine.size(), first.size(), c + 1, theirs));
      }
      throw InputError(mine[c]->location,
                       fmt::format("{}.kernels.{}.collective", rank_key(p, i), mine[c]->name),
                       fmt::format("collective #{} of rank {} is {}, rank 0's is {}: the ranks' collective "
                                   "sequences differ",
                                   c + 1, e.rank, collective_text(mine[c]->collective), theirs));
    }
  }
}

Program program_for_rank(const Program& p, int rank) {
  Program out = p;
  out.imbalance.clear();
  out.rank_overrides.clear();
  out.rank_kernels.clear();
  for (const RankKernels& e : p.rank_kernels) {
    if (e.rank != rank) continue;
    out.kernels = e.kernels;
    out.start_us = e.start_us;
  }
  for (const RankImbalance& im : p.imbalance) {
    const double f = im.factors.at(static_cast<size_t>(rank));
    for (const auto& name : im.kernels) {
      ProgramKernel& k = out.kernels[out.kernel_at(name)];
      switch (k.kind) {
        case KernelKind::gemm: {
          std::int64_t& d = im.dim == 'n' ? k.gemm.n : im.dim == 'k' ? k.gemm.k : k.gemm.m;
          d = scaled(d, f);
          break;
        }
        case KernelKind::memory: k.memory.bytes = scaled(k.memory.bytes, f); break;
        case KernelKind::dma_copy: k.dma.bytes = scaled(k.dma.bytes, f); break;
        case KernelKind::measured: k.measured.time_us *= f; break;
        case KernelKind::collective:
        case KernelKind::fused: throw ModelError("program_for_rank: a collective cannot be imbalanced");
      }
    }
  }
  for (const RankOverride& o : p.rank_overrides) {
    if (o.rank != rank) continue;
    ProgramKernel& k = out.kernels[out.kernel_at(o.kernel)];
    if (o.m) k.gemm.m = *o.m;
    if (o.n) k.gemm.n = *o.n;
    if (o.k) k.gemm.k = *o.k;
    if (o.bytes) (k.kind == KernelKind::memory ? k.memory.bytes : k.dma.bytes) = *o.bytes;
    if (o.time_us) k.measured.time_us = *o.time_us;
  }
  return out;
}

}  // namespace c3sim::wl
