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

void check_alike(const std::vector<wl::Program>& ranks) {
  if (ranks.empty()) throw ModelError("simulate_all_gpus: no ranks");
  const wl::Program& a = ranks.front();
  for (size_t r = 1; r < ranks.size(); ++r) {
    const wl::Program& b = ranks[r];
    bool alike = a.kernels.size() == b.kernels.size() && a.streams.size() == b.streams.size();
    for (size_t i = 0; alike && i < a.kernels.size(); ++i) {
      const wl::ProgramKernel& x = a.kernels[i];
      const wl::ProgramKernel& y = b.kernels[i];
      alike = x.name == y.name && x.kind == y.kind && x.stream == y.stream && x.after == y.after &&
              (x.kind != wl::KernelKind::collective ||
               (x.collective.op == y.collective.op && x.collective.bytes == y.collective.bytes));
    }
    if (!alike) {
      throw ModelError(
          fmt::format("simulate_all_gpus: rank {} of '{}' does not have rank 0's kernels, streams "
                      "and collectives",
                      r, a.name));
    }
  }
}

// Gates of one round, per distinct program and kernel (program order). A rank gets a gate only
// where another rank is later than itself: the latest arrival where it arrived earlier, the latest
// own end where its own work ended earlier (then its stream is held too). Where it is the latest it
// runs ungated, so a CU collective queued behind a kernel of its stream keeps its natural start.
struct Gates {
  std::vector<std::vector<TimePs>> start, end;
  bool operator==(const Gates&) const = default;
};

// The rank among `ranks` with the largest value (the lowest rank on a tie).
template <class F>
int argmax_rank(const std::vector<ProgramRun>& runs, F value) {
  int best = 0;
  for (size_t r = 1; r < runs.size(); ++r) {
    if (value(runs[r]) > value(runs[static_cast<size_t>(best)])) best = static_cast<int>(r);
  }
  return best;
}

// Walks back from the last kernel to end on the rank with the longest step; returns (rank,
// kernel) entries from the first kernel on.
std::vector<std::pair<int, size_t>> critical_path(const std::vector<wl::Program>& programs,
                                                  const std::vector<ProgramRun>& runs, int straggler) {
  const wl::Program& p = programs.front();
  const size_t n = p.kernels.size();
  const std::vector<int> prev = wl::stream_predecessors(p);
  const ProgramRun& s = runs[static_cast<size_t>(straggler)];
  size_t k = 0;
  for (size_t i = 1; i < n; ++i) {
    if (s.kernels[i].end_ps > s.kernels[k].end_ps) k = i;
  }
  int r = straggler;
  std::vector<std::pair<int, size_t>> out;
  for (size_t guard = 0; guard <= n; ++guard) {
    const bool collective = p.kernels[k].kind == wl::KernelKind::collective;
    if (collective) {
      const KernelRun& here = runs[static_cast<size_t>(r)].kernels[k];
      // Held at the end by a slower rank's own work, or at the start by a later arrival.
      if (here.end_ps > here.body_end_ps) {
        r = argmax_rank(runs, [k](const ProgramRun& x) { return x.kernels[k].body_end_ps; });
      } else {
        r = argmax_rank(runs, [k](const ProgramRun& x) { return x.kernels[k].ready_ps; });
      }
    }
    out.emplace_back(r, k);
    const ProgramRun& run = runs[static_cast<size_t>(r)];
    const TimePs ready = run.kernels[k].ready_ps;
    // The predecessor whose end is this kernel's ready instant (the first in program order).
    std::vector<int> preds;
    if (prev[k] >= 0) preds.push_back(prev[k]);
    for (const auto& a : p.kernels[k].after) preds.push_back(static_cast<int>(p.kernel_at(a)));
    std::sort(preds.begin(), preds.end());
    int next = -1;
    for (int j : preds) {
      if (run.kernels[static_cast<size_t>(j)].end_ps == ready) {
        next = j;
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
  check_alike(ranks);
  if (!traces.empty() && traces.size() != ranks.size())
    throw ModelError("simulate_all_gpus: one trace recorder per rank, or none");
  const size_t n = ranks.front().kernels.size();
  // Distinct programs: ranks with the same program run once per round.
  std::vector<size_t> distinct_of(ranks.size());
  std::vector<size_t> distinct;  // a rank of each distinct program
  std::map<std::string, size_t> seen;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const auto [it, fresh] = seen.try_emplace(wl::programs_to_yaml({ranks[r]}), distinct.size());
    if (fresh) distinct.push_back(r);
    distinct_of[r] = it->second;
  }
  std::vector<bool> is_collective(n);
  for (size_t i = 0; i < n; ++i)
    is_collective[i] = ranks.front().kernels[i].kind == wl::KernelKind::collective;

  const std::vector<std::vector<TimePs>> none(distinct.size(), std::vector<TimePs>(n, 0));
  Gates gates{none, none};
  const auto knobs_for = [&](size_t d) {
    ProgramKnobs knobs;
    knobs.start_gate = gates.start[d];
    knobs.end_gate = gates.end[d];
    knobs.hold_stream.resize(n);
    for (size_t i = 0; i < n; ++i) knobs.hold_stream[i] = gates.end[d][i] > 0;
    return knobs;
  };
  std::vector<ProgramRun> runs(distinct.size());
  const int max_rounds = std::max(kMinRounds, 4 * static_cast<int>(n) + 2);
  AllGpuRun out;
  for (;;) {
    if (out.rounds == max_rounds) {
      throw ModelError(fmt::format("program '{}': the ranks' collective times did not settle in {} rounds",
                                   ranks.front().name, max_rounds));
    }
    ++out.rounds;
    for (size_t d = 0; d < distinct.size(); ++d) runs[d] = sim.simulate(ranks[distinct[d]], knobs_for(d));
    Gates next{none, none};
    for (size_t i = 0; i < n; ++i) {
      if (!is_collective[i]) continue;
      TimePs arrival = 0, own_end = 0;
      for (const ProgramRun& run : runs) {
        arrival = std::max(arrival, run.kernels[i].ready_ps);
        own_end = std::max(own_end, run.kernels[i].body_end_ps);
      }
      for (size_t d = 0; d < distinct.size(); ++d) {
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
  const int longest = argmax_rank(out.ranks, [](const ProgramRun& x) { return x.step_us; });
  out.step_us = out.ranks[static_cast<size_t>(longest)].step_us;
  const auto path = critical_path(ranks, out.ranks, longest);
  // Ranks that end together at a collective tie on step: the straggler is the rank the path
  // ends on, the one whose work held the others.
  out.straggler = path.back().first;
  for (const auto& [r, k] : path)
    out.critical_path.push_back(fmt::format("r{}:{}", r, ranks.front().kernels[k].name));
  return out;
}

}  // namespace c3sim::models
