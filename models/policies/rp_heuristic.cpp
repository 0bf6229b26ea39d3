#include "models/policies/rp_heuristic.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/policies/policy.h"

namespace c3sim::models {

namespace {

struct Roles {
  bool gemm = false;
  bool cu_collective = false;
  bool collective = false;
};

std::map<std::string, Roles> stream_roles(const wl::Program& p) {
  std::map<std::string, Roles> roles;
  for (const auto& k : p.kernels) {
    Roles& r = roles[k.stream];
    r.gemm = r.gemm || k.kind == wl::KernelKind::gemm;
    r.collective = r.collective || k.kind == wl::KernelKind::collective;
    r.cu_collective = r.cu_collective ||
                      (k.kind == wl::KernelKind::collective && k.collective.impl == wl::CollectiveImpl::cu);
  }
  return roles;
}

}  // namespace

std::vector<std::string> collective_streams(const wl::Program& p) {
  const auto roles = stream_roles(p);
  std::vector<std::string> out;
  for (const auto& s : p.streams) {
    auto it = roles.find(s.name);
    if (it != roles.end() && it->second.cu_collective && !it->second.gemm) out.push_back(s.name);
  }
  return out;
}

std::vector<StreamCus> rp_assignments(const wl::Program& p, const hw::NodeSpec& spec) {
  std::vector<StreamCus> out{StreamCus{}};
  for (const auto& s : collective_streams(p)) {
    std::vector<StreamCus> next;
    for (const StreamCus& a : out) {
      for (int c : rp_sweep_cus(spec)) {
        StreamCus b = a;
        b[s] = c;
        next.push_back(std::move(b));
      }
    }
    out = std::move(next);
  }
  return out;
}

wl::Program partition_streams(const wl::Program& program, const StreamCus& cus, const hw::NodeSpec& spec) {
  wl::Program p = program;
  if (cus.empty()) return p;
  int largest = 0;
  for (const auto& [s, c] : cus) largest = std::max(largest, c);
  const auto roles = stream_roles(program);
  for (auto& s : p.streams) {
    if (auto it = cus.find(s.name); it != cus.end()) {
      s.cus = it->second;
    } else if (auto r = roles.find(s.name); r != roles.end() && r->second.gemm && !r->second.collective) {
      s.cus = spec.compute.total_cus() - largest;
    }
  }
  return p;
}

StreamCus rp_heuristic_pick(ProgramSimulator& sim, const wl::Program& p) {
  StreamCus best;
  double best_us = 0, best_coll_us = 0;
  bool first = true;
  for (const StreamCus& a : rp_assignments(p, sim.spec())) {
    const wl::Program q = partition_streams(p, a, sim.spec());
    const double t = sim.ideal_us(q);
    // Tie-break: the collectives' isolated time. When the critical path does not move (a GEMM
    // whose waves do not change with a few CUs less), the faster collectives keep more slack
    // against the interference the estimate leaves out.
    double coll = 0;
    for (size_t k = 0; k < q.kernels.size(); ++k) {
      if (q.kernels[k].kind == wl::KernelKind::collective) coll += sim.isolated_us(q, static_cast<int>(k));
    }
    const bool tie = !first && std::abs(t - best_us) <= 1e-9 * best_us;
    if (first || (!tie && t < best_us) || (tie && coll < best_coll_us)) {
      best = a;
      best_us = t;
      best_coll_us = coll;
      first = false;
    }
  }
  return best;
}

std::string to_string(const StreamCus& cus) {
  std::string out;
  for (const auto& [s, c] : cus) out += fmt::format("{}{}:{}", out.empty() ? "" : " ", s, c);
  return out.empty() ? "no collective stream" : out;
}

TransformEntry rp_heuristic_entry() {
  TransformEntry e;
  e.name = "rp_heuristic";
  e.help = "rp per collective stream: the CU masks with the shortest isolated-time critical path";
  e.decide = [](const wl::Program& p, std::optional<int>, ProgramSimulator& sim) {
    const StreamCus pick = rp_heuristic_pick(sim, p);
    return Decision{partition_streams(p, pick, sim.spec()), to_string(pick)};
  };
  return e;
}

}  // namespace c3sim::models
