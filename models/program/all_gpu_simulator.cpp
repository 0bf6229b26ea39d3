#include "models/program/all_gpu_simulator.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sim/base/errors.h"
#include "workloads/program_io.h"

namespace c3sim::models {

namespace {

// Generous: a chain of C collectives settles in about C + 1 rounds (each round fixes the gates of
// at least the next collective whose arrivals no longer move).
constexpr int kMinRounds = 16;

// Per rank, the kernel index of each collective in program order: the n-th entries of all ranks
// are one instance. ModelError unless every rank has the same sequence of ops and sizes.
std::vector<std::vector<size_t>> match_collectives(const std::vector<wl::Program>& ranks) {
  if (ranks.empty()) throw ModelError("simulate_all_gpus: no ranks");
  std::vector<std::vector<size_t>> out(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    for (size_t i = 0; i < ranks[r].kernels.size(); ++i)
      if (ranks[r].kernels[i].kind == wl::KernelKind::collective) out[r].push_back(i);
  }
  const wl::Program& a = ranks.front();
  for (size_t r = 1; r < ranks.size(); ++r) {
    bool alike = out[r].size() == out[0].size();
    for (size_t j = 0; alike && j < out[0].size(); ++j) {
      const wl::Collective& x = a.kernels[out[0][j]].collective;
      const wl::Collective& y = ranks[r].kernels[out[r][j]].collective;
      alike = x.op == y.op && x.bytes == y.bytes;
    }
    if (!alike) {
      throw ModelError(fmt::format(
          "simulate_all_gpus: rank {} of '{}' does not have rank 0's sequence of collectives", r, a.name));
    }
  }
  return out;
}

// Gates of one round, per distinct program and kernel (program order). A rank gets a gate only
// where another rank is later than itself: the latest arrival where it arrived earlier, the latest
// own end where its own work ended earlier (then its stream is held too). Where it is the latest it
// runs ungated, so a CU collective queued behind a kernel of its stream keeps its natural start.
struct Gates {
  std::vector<std::vector<TimePs>> start, end;
  bool operator==(const Gates&) const = default;
};

// The instant a rank's work ends on the common clock.
TimePs last_end(const ProgramRun& run) {
  TimePs last = 0;
  for (const KernelRun& k : run.kernels) last = std::max(last, k.end_ps);
  return last;
}

// Walks back from the last kernel to end on `straggler`; returns (rank, kernel) entries from the
// first kernel on. At a collective the path moves to the rank that arrived last (or whose own work
// ended last, where the instance was held at its end).
std::vector<std::pair<int, size_t>> critical_path(const std::vector<wl::Program>& programs,
                                                  const std::vector<ProgramRun>& runs,
                                                  const std::vector<std::vector<size_t>>& collectives,
                                                  int straggler) {
  std::vector<std::vector<int>> prev(programs.size());
  std::vector<std::vector<int>> instance(programs.size());  // per rank and kernel: its instance, or -1
  for (size_t r = 0; r < programs.size(); ++r) {
    prev[r] = wl::stream_predecessors(programs[r]);
    instance[r].assign(programs[r].kernels.size(), -1);
    for (size_t j = 0; j < collectives[r].size(); ++j) instance[r][collectives[r][j]] = static_cast<int>(j);
  }
  int r = straggler;
  const ProgramRun& s = runs[static_cast<size_t>(r)];
  size_t k = 0;
  for (size_t i = 1; i < s.kernels.size(); ++i) {
    if (s.kernels[i].end_ps > s.kernels[k].end_ps) k = i;
  }
  size_t total = 0;
  for (const wl::Program& p : programs) total += p.kernels.size();
  std::vector<std::pair<int, size_t>> out;
  for (size_t guard = 0; guard <= total; ++guard) {
    const int j = instance[static_cast<size_t>(r)][k];
    if (j >= 0) {
      const auto at = [&](size_t rank) {
        return runs[rank].kernels[collectives[rank][static_cast<size_t>(j)]];
      };
      const KernelRun& here = at(static_cast<size_t>(r));
      // Held at the end by a slower rank's own work, or at the start by a later arrival.
      int best = 0;
      for (size_t x = 1; x < runs.size(); ++x) {
        const bool later = here.end_ps > here.body_end_ps
                               ? at(x).body_end_ps > at(static_cast<size_t>(best)).body_end_ps
                               : at(x).ready_ps > at(static_cast<size_t>(best)).ready_ps;
        if (later) best = static_cast<int>(x);
      }
      r = best;
      k = collectives[static_cast<size_t>(r)][static_cast<size_t>(j)];
    }
    out.emplace_back(r, k);
    const wl::Program& p = programs[static_cast<size_t>(r)];
    const ProgramRun& run = runs[static_cast<size_t>(r)];
    const TimePs ready = run.kernels[k].ready_ps;
    // The predecessor whose end is this kernel's ready instant (the first in program order).
    std::vector<int> preds;
    if (prev[static_cast<size_t>(r)][k] >= 0) preds.push_back(prev[static_cast<size_t>(r)][k]);
    for (const auto& a : p.kernels[k].after) preds.push_back(static_cast<int>(p.kernel_at(a)));
    std::sort(preds.begin(), preds.end());
    int next = -1;
    for (int i : preds) {
      if (run.kernels[static_cast<size_t>(i)].end_ps == ready) {
        next = i;
        break;
      }
    }
    if (next < 0) break;  // released by its host launch
    k = static_cast<size_t>(next);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

AllGpuRun simulate_all_gpus(ProgramSimulator& sim, const std::vector<wl::Program>& ranks,
                            const std::vector<engine::TraceRecorder*>& traces) {
  const std::vector<std::vector<size_t>> collectives = match_collectives(ranks);
  if (!traces.empty() && traces.size() != ranks.size())
    throw ModelError("simulate_all_gpus: one trace recorder per rank, or none");
  // Distinct programs: ranks with the same program and start run once per round (and so share
  // their gates: the same kernels at the same times).
  std::vector<size_t> distinct_of(ranks.size());
  std::vector<size_t> distinct;  // a rank of each distinct program
  std::map<std::string, size_t> seen;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const std::string key = fmt::format("{}\n{}", wl::programs_to_yaml({ranks[r]}), ranks[r].start_us);
    const auto [it, fresh] = seen.try_emplace(key, distinct.size());
    if (fresh) distinct.push_back(r);
    distinct_of[r] = it->second;
  }
  const size_t instances = collectives.front().size();
  const auto none = [&] {
    std::vector<std::vector<TimePs>> g;
    g.reserve(distinct.size());
    for (const size_t r : distinct) g.emplace_back(ranks[r].kernels.size(), 0);
    return g;
  };
  Gates gates{none(), none()};
  // A steady-state rank's averaged power at its start, found once for its program alone and held
  // through the rounds (models/program/program_simulator.h, ProgramKnobs::power_start_fixed).
  std::vector<double> power_start(distinct.size(), 0);
  for (size_t d = 0; d < distinct.size(); ++d)
    power_start[d] = sim.steady_power_start(ranks[distinct[d]], {});
  const auto knobs_for = [&](size_t d) {
    ProgramKnobs knobs;
    knobs.power_start = power_start[d];
    knobs.power_start_fixed = true;
    knobs.start_gate = gates.start[d];
    knobs.end_gate = gates.end[d];
    knobs.hold_stream.resize(knobs.end_gate.size());
    for (size_t i = 0; i < knobs.end_gate.size(); ++i) knobs.hold_stream[i] = gates.end[d][i] > 0;
    return knobs;
  };
  std::vector<ProgramRun> runs(distinct.size());
  size_t longest_program = 0;
  for (const wl::Program& p : ranks) longest_program = std::max(longest_program, p.kernels.size());
  const int max_rounds = std::max(kMinRounds, 4 * static_cast<int>(longest_program) + 2);
  AllGpuRun out;
  for (;;) {
    if (out.rounds == max_rounds) {
      throw ModelError(fmt::format("program '{}': the ranks' collective times did not settle in {} rounds",
                                   ranks.front().name, max_rounds));
    }
    ++out.rounds;
    for (size_t d = 0; d < distinct.size(); ++d) runs[d] = sim.simulate(ranks[distinct[d]], knobs_for(d));
    Gates next{none(), none()};
    for (size_t j = 0; j < instances; ++j) {
      TimePs arrival = 0, own_end = 0;
      for (size_t d = 0; d < distinct.size(); ++d) {
        const KernelRun& k = runs[d].kernels[collectives[distinct[d]][j]];
        arrival = std::max(arrival, k.ready_ps);
        own_end = std::max(own_end, k.body_end_ps);
      }
      for (size_t d = 0; d < distinct.size(); ++d) {
        const size_t i = collectives[distinct[d]][j];
        if (runs[d].kernels[i].ready_ps < arrival) next.start[d][i] = arrival;
        if (runs[d].kernels[i].body_end_ps < own_end) next.end[d][i] = own_end;
      }
    }
    if (next == gates) break;
    gates = std::move(next);
  }

  for (size_t r = 0; r < ranks.size(); ++r) {
    if (traces.empty()) {
      out.ranks.push_back(runs[distinct_of[r]]);
      continue;
    }
    ProgramKnobs knobs = knobs_for(distinct_of[r]);
    knobs.trace = traces[r];
    out.ranks.push_back(sim.simulate(ranks[r], knobs));
  }
  // The step on the common clock: the earliest rank's first launch to the last end of any rank.
  TimePs first = us_to_ps(ranks.front().start_us), last = 0;
  int longest = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    first = std::min(first, us_to_ps(ranks[r].start_us));
    const TimePs end = last_end(out.ranks[r]);
    if (end > last) {
      last = end;
      longest = static_cast<int>(r);
    }
  }
  out.step_us = ps_to_us(last - first);
  auto path = critical_path(ranks, out.ranks, collectives, longest);
  // The straggler is the rank the path took at its last collective: the one that arrived last (or
  // whose own work ended last) and so held the others; without collectives, the longest rank.
  // Ranks that leave that collective together tie on their last end; the path then follows the
  // straggler's own kernels to the end.
  out.straggler = path.back().first;
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const wl::Program& p = ranks[static_cast<size_t>(it->first)];
    if (p.kernels[it->second].kind != wl::KernelKind::collective) continue;
    out.straggler = it->first;
    break;
  }
  if (out.straggler != longest && last_end(out.ranks[static_cast<size_t>(out.straggler)]) == last)
    path = critical_path(ranks, out.ranks, collectives, out.straggler);
  for (const auto& [r, k] : path)
    out.critical_path.push_back(fmt::format("r{}:{}", r, ranks[static_cast<size_t>(r)].kernels[k].name));
  return out;
}

}  // namespace c3sim::models
