#include "models/policies/ficco_transform.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "models/program/kernel_relations.h"

namespace c3sim::models {

namespace {

constexpr int kMaxChunks = 64;

struct Pair {
  int first = -1;  // launched first (its chunks lead the interleave)
  int second = -1;
  bool second_waits = false;  // chunk j of `second` waits for chunk j of `first`
};

// Each collective with the GEMM it feeds or drains; an unpaired one-GEMM + one-collective program
// (or `subset`) is its own independent pair. With `subset`, only kernels named in it pair.
std::vector<Pair> find_pairs(const wl::Program& p, const std::vector<std::string>* subset = nullptr) {
  std::vector<Pair> out;
  std::vector<bool> used(p.kernels.size(), false);
  if (subset != nullptr) {
    for (size_t i = 0; i < p.kernels.size(); ++i)
      used[i] = std::find(subset->begin(), subset->end(), p.kernels[i].name) == subset->end();
  }
  for (size_t c = 0; c < p.kernels.size(); ++c) {
    if (p.kernels[c].kind != wl::KernelKind::collective || used[c]) continue;
    for (size_t g = 0; g < p.kernels.size(); ++g) {
      if (p.kernels[g].kind != wl::KernelKind::gemm || used[g]) continue;
      const bool consumer = waits_for(p.kernels[g], p.kernels[c].name);
      const bool producer = waits_for(p.kernels[c], p.kernels[g].name);
      if (!consumer && !producer) continue;
      used[g] = used[c] = true;
      out.push_back(consumer ? Pair{static_cast<int>(c), static_cast<int>(g), true}
                             : Pair{static_cast<int>(g), static_cast<int>(c), true});
      break;
    }
  }
  std::vector<int> members;  // the kernels that may pair, program order
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    if (subset == nullptr || !used[i]) members.push_back(static_cast<int>(i));
  }
  if (out.empty() && members.size() == 2) {
    const wl::ProgramKernel& a = p.kernels[static_cast<size_t>(members[0])];
    const wl::ProgramKernel& b = p.kernels[static_cast<size_t>(members[1])];
    const auto is_pair_kind = [](const wl::ProgramKernel& k) {
      return k.kind == wl::KernelKind::gemm || k.kind == wl::KernelKind::collective;
    };
    if (a.kind != b.kind && is_pair_kind(a) && is_pair_kind(b))
      out.push_back(Pair{members[0], members[1], false});
  }
  return out;
}

std::string chunk_name(const std::string& name, int j) { return fmt::format("{}#{}", name, j + 1); }

// Chunk j of kernel k (of `chunks`); `partner` is the other kernel's chunk j this one waits for.
wl::ProgramKernel chunk_of(const wl::ProgramKernel& k, int j, int chunks, const std::string& drop_dep,
                           const std::optional<std::string>& partner, bool dma) {
  wl::ProgramKernel c = k;
  c.name = chunk_name(k.name, j);
  c.after.clear();
  if (j == 0) {
    for (const auto& a : k.after) {
      if (a != drop_dep) c.after.push_back(a);
    }
  } else {
    c.gap_us.reset();
  }
  if (partner) c.after.push_back(*partner);
  if (k.kind == wl::KernelKind::gemm) {
    const std::int64_t rows = k.gemm.m / chunks;
    c.gemm.m = j + 1 < chunks ? rows : k.gemm.m - rows * (chunks - 1);
  } else {
    c.collective.bytes = k.collective.bytes / chunks;
    if (dma && !wl::op_traits(k.collective.op).reduces) c.collective.impl = wl::CollectiveImpl::dma;
  }
  return c;
}

}  // namespace

wl::Program ficco_chunk(const wl::Program& program, int chunks, bool dma, const hw::NodeSpec& spec) {
  return ficco_chunk_subset(program, nullptr, chunks, dma, spec);
}

wl::Program ficco_chunk_subset(const wl::Program& program, const std::vector<std::string>* kernels,
                               int chunks, bool dma, const hw::NodeSpec& spec) {
  const std::string policy = fmt::format("{}:{}", dma ? "ficco_dma" : "ficco", chunks);
  const std::vector<Pair> pairs = find_pairs(program, kernels);
  if (pairs.empty()) {
    throw InputError(program.location, "policies",
                     fmt::format("policy '{}': program '{}' has no GEMM + collective pair to split (a GEMM "
                                 "`after` a collective, a collective `after` a GEMM, or a two-kernel pair)",
                                 policy, program.name));
  }
  const int gpus = program.gpus.value_or(spec.interconnect.gpus);
  std::map<int, const Pair*> lead, follow;
  for (const Pair& pr : pairs) {
    lead[pr.first] = &pr;
    follow[pr.second] = &pr;
  }
  for (const Pair& pr : pairs) {
    for (int i : {pr.first, pr.second}) {
      const wl::ProgramKernel& k = program.kernels[static_cast<size_t>(i)];
      if (k.kind == wl::KernelKind::gemm && k.gemm.m < chunks) {
        throw InputError(k.location, "policies",
                         fmt::format("policy '{}': GEMM '{}' has M = {} rows, fewer than {} chunks", policy,
                                     k.name, k.gemm.m, chunks));
      }
      // Chunks of whole blocks; a reduce-scatter's bytes are already one block (its output).
      const std::int64_t unit = std::int64_t{chunks} * wl::output_blocks(k.collective.op, gpus);
      if (k.kind == wl::KernelKind::collective && k.collective.bytes % unit != 0) {
        throw InputError(
            k.location, "policies",
            fmt::format("policy '{}': collective '{}' of {} bytes does not split into {} chunks of "
                        "{} whole shards",
                        policy, k.name, k.collective.bytes, chunks, gpus));
      }
    }
  }

  wl::Program out = program;
  out.kernels.clear();
  // Who now stands for a split kernel in other kernels' `after`: its last chunk.
  std::map<std::string, std::string> renamed;
  for (const Pair& pr : pairs) {
    for (int i : {pr.first, pr.second}) {
      const std::string& n = program.kernels[static_cast<size_t>(i)].name;
      renamed[n] = chunk_name(n, chunks - 1);
    }
  }
  for (size_t i = 0; i < program.kernels.size(); ++i) {
    const int idx = static_cast<int>(i);
    if (follow.contains(idx)) continue;  // emitted with its lead
    if (auto it = lead.find(idx); it != lead.end()) {
      const Pair& pr = *it->second;
      const wl::ProgramKernel& a = program.kernels[static_cast<size_t>(pr.first)];
      const wl::ProgramKernel& b = program.kernels[static_cast<size_t>(pr.second)];
      for (int j = 0; j < chunks; ++j) {
        out.kernels.push_back(chunk_of(a, j, chunks, b.name, std::nullopt, dma));
        const std::optional<std::string> partner =
            pr.second_waits ? std::optional<std::string>(chunk_name(a.name, j)) : std::nullopt;
        wl::ProgramKernel cb = chunk_of(b, j, chunks, a.name, partner, dma);
        if (j == 0) cb.gap_us.reset();  // b's own slot is gone; it follows a's chunk a gap later
        out.kernels.push_back(std::move(cb));
      }
      continue;
    }
    wl::ProgramKernel k = program.kernels[i];
    for (auto& a : k.after) {
      if (auto r = renamed.find(a); r != renamed.end()) a = r->second;
    }
    out.kernels.push_back(std::move(k));
  }
  // Chunks of other pairs may wait for a split kernel too.
  for (auto& k : out.kernels) {
    for (auto& a : k.after) {
      if (auto r = renamed.find(a); r != renamed.end()) a = r->second;
    }
  }
  wl::validate_program(out);
  return out;
}

namespace {

TransformEntry make_entry(bool dma) {
  TransformEntry e;
  e.name = dma ? "ficco_dma" : "ficco";
  e.help =
      dma ? "FiCCO: split each GEMM + collective pair into <chunks> chunks, collective chunks on copy engines"
          : "FiCCO: split each GEMM + collective pair into <chunks> chunks (chunk j of the consumer waits "
            "for chunk j of the producer)";
  e.argument = "chunks";
  e.check = [](int arg, const hw::NodeSpec&, const SourceLocation& where, const std::string& full) {
    if (arg < 2 || arg > kMaxChunks) {
      throw InputError(where, "policies",
                       fmt::format("policy '{}': chunks must be in 2..{}, got {}", full, kMaxChunks, arg));
    }
  };
  e.apply = [dma](const wl::Program& p, std::optional<int> arg, const hw::NodeSpec& spec) {
    return ficco_chunk(p, arg.value_or(2), dma, spec);
  };
  e.sweep = [name = e.name](const hw::NodeSpec&) {
    std::vector<std::string> out;
    for (int k : {2, 4, 8}) out.push_back(fmt::format("{}:{}", name, k));
    return out;
  };
  e.in_all = true;
  e.applies = [](const wl::Program& p) { return !find_pairs(p).empty(); };
  e.needs =
      "a GEMM + collective pair to split (a GEMM `after` a collective, a collective `after` a GEMM, or a "
      "two-kernel pair)";
  return e;
}

}  // namespace

TransformEntry ficco_entry() { return make_entry(false); }
TransformEntry ficco_dma_entry() { return make_entry(true); }

}  // namespace c3sim::models
