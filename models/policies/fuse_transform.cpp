#include "models/policies/fuse_transform.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "models/program/kernel_relations.h"

namespace c3sim::models {

namespace {

// What each fuse entry is called, how its messages name its producers, and which kinds it takes.
struct FuseEntryInfo {
  const char* name;
  const char* producer_words;
  bool gemm;
  bool memory;
};

FuseEntryInfo info(FuseProducers which) {
  switch (which) {
    case FuseProducers::gemm: return {"fuse_gemm", "a GEMM", true, false};
    case FuseProducers::memory: return {"fuse_memory", "a memory kernel", false, true};
    case FuseProducers::any: break;
  }
  return {"fuse", "a GEMM or memory kernel", true, true};
}

std::string needs(FuseProducers which) {
  return fmt::format(
      "a collective whose input {} produces (the collective `after` it, or it the previous kernel on the "
      "collective's stream)",
      info(which).producer_words);
}

struct Fusion {
  int producer = -1;
  int collective = -1;
};

bool is_producer(const wl::ProgramKernel& k, FuseProducers which) {
  const FuseEntryInfo i = info(which);
  return (i.gemm && k.kind == wl::KernelKind::gemm) || (i.memory && k.kind == wl::KernelKind::memory);
}

// Each collective with the producer it consumes, program order; a producer feeds one fusion.
std::vector<Fusion> find_fusions(const wl::Program& p, FuseProducers which) {
  std::vector<Fusion> out;
  std::vector<bool> used(p.kernels.size(), false);
  const std::vector<int> prev = wl::stream_predecessors(p);
  const std::vector<std::vector<int>> deps = wl::dependency_indices(p);
  for (size_t c = 0; c < p.kernels.size(); ++c) {
    if (!is_collective(p.kernels[c])) continue;
    int producer = -1;
    for (const int a : deps[c]) {
      if (a >= 0 && !used[static_cast<size_t>(a)] && is_producer(p.kernels[static_cast<size_t>(a)], which)) {
        producer = a;
        break;
      }
    }
    if (const int s = prev[c]; producer < 0 && s >= 0 && !used[static_cast<size_t>(s)] &&
                               is_producer(p.kernels[static_cast<size_t>(s)], which))
      producer = s;
    if (producer < 0) continue;
    used[static_cast<size_t>(producer)] = used[c] = true;
    out.push_back(Fusion{producer, static_cast<int>(c)});
  }
  return out;
}

void add_unique(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

}  // namespace

wl::Program fuse_producers(const wl::Program& program, FuseProducers which) {
  const std::vector<Fusion> fusions = find_fusions(program, which);
  if (fusions.empty()) {
    throw InputError(program.location, "policies",
                     fmt::format("policy '{}': program '{}' has nothing to fuse (it needs {})",
                                 info(which).name, program.name, needs(which)));
  }
  const size_t n = program.kernels.size();
  std::map<int, const Fusion*> by_producer;
  std::vector<bool> fused_away(n, false);  // collectives that become part of a fused kernel
  std::map<std::string, std::string> renamed;
  for (const Fusion& f : fusions) {
    by_producer[f.producer] = &f;
    fused_away[static_cast<size_t>(f.collective)] = true;
    const wl::ProgramKernel& pk = program.kernels[static_cast<size_t>(f.producer)];
    const wl::ProgramKernel& ck = program.kernels[static_cast<size_t>(f.collective)];
    const std::string name = fmt::format("{}+{}", pk.name, ck.name);
    renamed[pk.name] = name;
    renamed[ck.name] = name;
  }
  // The kernel after each fused-away collective on its own stream, when that stream is not the
  // producer's: it followed the collective in stream order and now waits for the fused kernel.
  std::map<size_t, std::string> follows;
  const std::vector<int> prev = wl::stream_predecessors(program);
  for (size_t i = 0; i < n; ++i) {
    const int s = prev[i];
    if (s < 0 || !fused_away[static_cast<size_t>(s)]) continue;
    const wl::ProgramKernel& c = program.kernels[static_cast<size_t>(s)];
    for (const Fusion& f : fusions) {
      if (f.collective == s && program.kernels[static_cast<size_t>(f.producer)].stream != c.stream)
        follows[i] = renamed.at(c.name);
    }
  }

  wl::Program out = program;
  out.kernels.clear();
  for (size_t i = 0; i < n; ++i) {
    if (fused_away[i]) continue;
    wl::ProgramKernel k = program.kernels[i];
    if (auto it = by_producer.find(static_cast<int>(i)); it != by_producer.end()) {
      const wl::ProgramKernel& c = program.kernels[static_cast<size_t>(it->second->collective)];
      k.name = renamed.at(k.name);
      k.fused.producer = k.kind;
      k.kind = wl::KernelKind::fused;
      k.collective = c.collective;
      k.traced_us.reset();
      k.traced_start_us.reset();
      for (const auto& a : c.after) {
        if (a != program.kernels[i].name) add_unique(k.after, a);
      }
    }
    std::vector<std::string> after;
    for (const auto& a : k.after) {
      auto r = renamed.find(a);
      const std::string& name = r != renamed.end() ? r->second : a;
      if (name != k.name) add_unique(after, name);
    }
    if (auto f = follows.find(i); f != follows.end()) add_unique(after, f->second);
    k.after = std::move(after);
    out.kernels.push_back(std::move(k));
  }
  wl::validate_program(out);
  return out;
}

TransformEntry fuse_entry(FuseProducers which) {
  TransformEntry e;
  e.name = info(which).name;
  e.help = fmt::format(
      "fuse each collective whose input {} produces with it: workgroups write their output to the peers as "
      "they finish",
      info(which).producer_words);
  e.apply = [which](const wl::Program& p, std::optional<int>, const hw::NodeSpec&) {
    return fuse_producers(p, which);
  };
  e.applies = [which](const wl::Program& p) { return !find_fusions(p, which).empty(); };
  e.needs = needs(which);
  return e;
}

}  // namespace c3sim::models
